// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "charts/chart_view.h"
#include "planner/plan_comparison.h"

namespace fathom::views {

/// One quantity of every strategy as the GPU count grows from 1 to 1,024 (log axes): memory per GPU (with the
/// device capacity) or step time. Hovering a point shows the `--explain` text of that number at that GPU count.
class ScalingChart : public ChartView {
  Q_OBJECT

public:
  enum class Quantity { MemoryPerGpu, StepTime };

  explicit ScalingChart(Quantity quantity, QWidget* parent = nullptr);

  void setComparison(const PlanComparison& comparison);
  /// The hover text of strategy `strategy` at GPU count `gpus` (predicted again, with explanations).
  QString pointTip(int strategy, int gpus) const;

private:
  Quantity m_quantity;
  PlanComparison m_comparison;
};

}  // namespace fathom::views
