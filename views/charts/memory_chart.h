// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "charts/chart_view.h"
#include "planner/plan_comparison.h"

namespace fathom::views {

/// Memory per GPU of every strategy of a comparison as stacked bars, one segment per category, with the device's
/// capacity as a line across. Hovering a segment shows the `--explain` text of that number.
class MemoryChart : public ChartView {
  Q_OBJECT

public:
  explicit MemoryChart(QWidget* parent = nullptr);

  void setComparison(const PlanComparison& comparison);
  /// The hover text of `category`'s segment in the bar of strategy `index` (what a hover shows).
  QString segmentTip(int category, int index) const;

private:
  PlanComparison m_comparison;
};

}  // namespace fathom::views
