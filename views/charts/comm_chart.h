// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "charts/chart_view.h"
#include "planner/plan_comparison.h"

namespace fathom::views {

/// Communication per optimizer step of every strategy of a comparison: bars of the bytes one GPU sends (left
/// axis), and the communication time before overlap as points (right axis). Hovering shows the collectives of
/// that strategy as `fathom plan` lists them.
class CommChart : public ChartView {
  Q_OBJECT

public:
  explicit CommChart(QWidget* parent = nullptr);

  void setComparison(const PlanComparison& comparison);
  /// The hover text of strategy `index`.
  QString strategyTip(int index) const;

private:
  PlanComparison m_comparison;
};

}  // namespace fathom::views
