// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "runs/run_details.h"

#include <QWidget>

class QChartView;
class QLabel;
class QPlainTextEdit;
class QTableView;

namespace fathom::views {

class EventLogModel;
class MetricSummaryModel;
class RanksModel;

/// One run: a summary (status, times, world size, strategy, command, host), the loss per rank over the steps, the
/// ranks, the metrics (last, min, max per key and rank), the log and the launch configuration. Shows a RunDetails
/// value; whoever owns the page reloads it.
class RunDetailsPage : public QWidget {
  Q_OBJECT

public:
  explicit RunDetailsPage(QWidget* parent = nullptr);

  void setDetails(const RunDetails& details);
  qint64 runId() const { return m_runId; }

  RanksModel* ranksModel() const { return m_ranks; }
  MetricSummaryModel* metricsModel() const { return m_metrics; }
  EventLogModel* eventsModel() const { return m_events; }

private:
  void showLoss(const RunDetails& details);

  qint64 m_runId = 0;
  QLabel* m_summary = nullptr;
  QChartView* m_lossChart = nullptr;
  RanksModel* m_ranks = nullptr;
  MetricSummaryModel* m_metrics = nullptr;
  EventLogModel* m_events = nullptr;
  QTableView* m_metricsView = nullptr;
  QTableView* m_ranksView = nullptr;
  QTableView* m_eventsView = nullptr;
  QPlainTextEdit* m_config = nullptr;
};

}  // namespace fathom::views
