// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "charts/metric_series_store.h"
#include "runs/run_delta.h"
#include "runs/run_details.h"

#include <QTimer>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QTableView;

namespace fathom::views {

class EventLogModel;
class LiveRanksModel;
class MetricPlotPanel;
class MetricSummaryModel;

/// One run, live while it runs: a summary (status, times, world size, strategy, command, host), the metric plot
/// (any key, per rank or mean with a band), and tabs with one row per rank (state, step, steps/s, loss, memory,
/// heartbeat age, ...), the metrics (last, min, max per key and rank), the log and the launch configuration.
/// setDetails() / setRow() set the header; applyDelta() appends what a RunFeed read to the models and the plot
/// (nothing is reloaded while the run is live).
class RunDetailsPage : public QWidget {
  Q_OBJECT

public:
  explicit RunDetailsPage(QWidget* parent = nullptr);

  void setDetails(const RunDetails& details);
  /// Updates the header from a fresh row of the runs browser (status, duration, final loss).
  void setRow(const RunRow& row);
  /// Appends one incremental read.
  void applyDelta(const RunDelta& delta);
  qint64 runId() const { return m_runId; }
  /// Whether the last delta said the run is still running.
  bool isLive() const { return m_live; }

  LiveRanksModel* ranksModel() const { return m_ranks; }
  MetricSummaryModel* metricsModel() const { return m_metrics; }
  EventLogModel* eventsModel() const { return m_events; }
  MetricPlotPanel* plotPanel() const { return m_plot; }
  const MetricSeriesStore& series() const { return m_series; }
  /// Metric points the page holds (every key).
  std::size_t pointCount() const { return m_series.pointCount(); }

private:
  void showHeader(const RunRow& row);

  qint64 m_runId = 0;
  bool m_live = false;
  QLabel* m_summary = nullptr;
  MetricSeriesStore m_series;
  MetricPlotPanel* m_plot = nullptr;
  LiveRanksModel* m_ranks = nullptr;
  MetricSummaryModel* m_metrics = nullptr;
  EventLogModel* m_events = nullptr;
  QTableView* m_metricsView = nullptr;
  QTableView* m_ranksView = nullptr;
  QTableView* m_eventsView = nullptr;
  QPlainTextEdit* m_config = nullptr;
  QTimer m_clock;  ///< ages the heartbeats once a second while the run is live
};

}  // namespace fathom::views
