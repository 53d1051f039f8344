// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "charts/metric_series_store.h"
#include "runs/run_comparison.h"

#include <QList>
#include <QWidget>

class QLabel;
class QTableView;

namespace fathom::views {

class ConfigDiffModel;
class MetricPlotPanel;
class RunSummaryModel;

/// Two or more runs side by side: their metrics overlaid in one plot (the mean across ranks with its band per run
/// by default), a summary table (steps/s, final loss, peak memory per rank, strategy, world size) and the
/// configuration keys that differ between them.
class RunComparisonPage : public QWidget {
  Q_OBJECT

public:
  explicit RunComparisonPage(QWidget* parent = nullptr);

  void setData(const RunComparisonData& data);
  QList<qint64> runIds() const { return m_runs; }

  MetricPlotPanel* plotPanel() const { return m_plot; }
  ConfigDiffModel* diffModel() const { return m_diff; }
  RunSummaryModel* summaryModel() const { return m_summary; }
  QLabel* diffNote() const { return m_diffNote; }

private:
  QList<qint64> m_runs;
  MetricSeriesStore m_series;
  QLabel* m_title = nullptr;
  MetricPlotPanel* m_plot = nullptr;
  ConfigDiffModel* m_diff = nullptr;
  RunSummaryModel* m_summary = nullptr;
  QTableView* m_diffView = nullptr;
  QTableView* m_summaryView = nullptr;
  QLabel* m_diffNote = nullptr;
};

}  // namespace fathom::views
