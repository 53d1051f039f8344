// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "charts/metric_series_store.h"
#include "runs/run_delta.h"
#include "runs/run_details.h"

#include <QTimer>
#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QPlainTextEdit;
class QTabWidget;
class QTableView;
class QTreeView;

namespace fathom::views {

class HostGroupProxy;

class AlertsModel;
class CheckpointsModel;
class EventLogModel;
class LiveRanksModel;
class MemoryTimeline;
class MetricPlotPanel;
class MetricSummaryModel;
class PlanVsActualModel;
class RunTimelinePage;

/// One run, live while it runs: a summary (status, times, world size, strategy, command, host), the metric plot
/// (any key, per rank or mean with a band), and tabs with one row per rank (state, step, steps/s, loss, memory,
/// heartbeat age, last collective entered and finished), the run monitor's hang and straggler alerts, plan vs actual
/// (per rank and category, predicted and measured; under it a rank's memory over time against its plan), the metrics
/// (last, min, max per key and rank), the log, the run's checkpoints (with "Resume from this checkpoint"), the launch
/// configuration and the trace timeline (RunTimelinePage).
/// setDetails() / setRow() set the header; applyDelta() appends what a RunFeed read to the models and the plot (nothing
/// is reloaded while the run is live).
class RunDetailsPage : public QWidget {
  Q_OBJECT

public:
  explicit RunDetailsPage(QWidget* parent = nullptr);

  void setDetails(const RunDetails& details);
  /// Updates the header from a fresh row of the runs browser (status, duration, final loss).
  void setRow(const RunRow& row);
  /// Appends one incremental read.
  void applyDelta(const RunDelta& delta);
  /// Shows the run's plan against what its ranks measured; without a stored plan, offers to compute one.
  void applyPlan(const RunPlanComparison& plan);
  /// Shows what "Calibrate from this run" fitted (or why it failed), and offers it again.
  void applyRunFit(const RunFitOutcome& outcome);
  qint64 runId() const { return m_runId; }
  /// Whether the last delta said the run is still running.
  bool isLive() const { return m_live; }

  LiveRanksModel* ranksModel() const { return m_ranks; }
  MetricSummaryModel* metricsModel() const { return m_metrics; }
  EventLogModel* eventsModel() const { return m_events; }
  AlertsModel* alertsModel() const { return m_alerts; }
  /// The Checkpoints tab: the checkpoint artifacts setDetails() was given.
  CheckpointsModel* checkpointsModel() const { return m_checkpoints; }
  PlanVsActualModel* planModel() const { return m_plan; }
  MemoryTimeline* memoryTimeline() const { return m_memory; }
  /// The memory timeline's rank selector (the ranks that measured memory or have a plan).
  QComboBox* memoryRankCombo() const { return m_memoryRank; }
  MetricPlotPanel* plotPanel() const { return m_plot; }
  /// The Timeline tab: the run's stored traces, live (a controller, studio::RunTraceFeed, feeds it).
  RunTimelinePage* timelinePage() const { return m_timeline; }
  /// Brings the Timeline tab to the front.
  void showTimelineTab();
  /// "Device map…" in the header: shown once the run recorded a device map (a program that dispatched a model). With
  /// one map it opens it; with several, its menu lists them (rank, model, time).
  QPushButton* deviceMapButton() const { return m_deviceMap; }
  /// The device maps the run recorded so far, in the order they were stored.
  const std::vector<store::RunDeviceMapRow>& deviceMaps() const { return m_deviceMaps; }
  /// What the device-map view calls deviceMaps()[index]: "Run 12, rank 0: gpt-small".
  QString deviceMapTitle(std::size_t index) const;
  const MetricSeriesStore& series() const { return m_series; }
  /// Metric points the page holds (every key).
  std::size_t pointCount() const { return m_series.pointCount(); }

signals:
  /// The user asked to compute the plan of a run launched without one (`fathom runs plan-vs-actual --compute`).
  void computePlanRequested(qint64 runId);
  /// The user asked to fit this machine's calibrated profile to the finished run's profiled traces (`fathom plan
  /// --calibrate_from RUN`).
  void calibrateFromRunRequested(qint64 runId);
  /// "Resume from this checkpoint": launch the run's configuration `runSpec` (its stored run specification, YAML)
  /// again, resuming from the checkpoint folder `checkpoint`.
  void resumeRequested(qint64 runId, const QString& runSpec, const QString& checkpoint);
  /// "Device map…": show the device map `recordJson` (bigmodel::DispatchRecord's JSON) in the device-map view, named
  /// `title` ("Run 12, rank 0: gpt-small").
  void deviceMapRequested(qint64 runId, const QString& recordJson, const QString& title);

private:
  /// The Ranks tab's view over m_ranks (set up once, by the constructor).
  QTreeView* ranksByHostView(QWidget* parent);
  void showHeader(const RunRow& row);
  /// On opening: the fit an earlier "Calibrate from this run" (or `fathom plan --calibrate_from`) stored.
  void showStoredFit(const StoredRunFit& stored);
  /// Offers the memory timeline's ranks in the selector, keeping the rank shown.
  void updateMemoryRanks();
  /// Enables "Resume from this checkpoint" for a selected checkpoint of a run with a stored specification.
  void updateResumeButton();
  /// Adds device maps to the header's button (and its menu) and shows it.
  void addDeviceMaps(const std::vector<store::RunDeviceMapRow>& maps);

  qint64 m_runId = 0;
  bool m_live = false;
  QLabel* m_summary = nullptr;
  MetricSeriesStore m_series;
  MetricPlotPanel* m_plot = nullptr;
  LiveRanksModel* m_ranks = nullptr;
  MetricSummaryModel* m_metrics = nullptr;
  EventLogModel* m_events = nullptr;
  AlertsModel* m_alerts = nullptr;
  QTabWidget* m_tabs = nullptr;
  PlanVsActualModel* m_plan = nullptr;
  QLabel* m_planNote = nullptr;
  QPushButton* m_computePlan = nullptr;
  QLabel* m_fitNote = nullptr;         ///< what the last "Calibrate from this run" fitted
  QPushButton* m_calibrate = nullptr;  ///< "Calibrate from this run" (a finished run)
  MemoryTimeline* m_memory = nullptr;
  QComboBox* m_memoryRank = nullptr;
  int m_alertsTab = -1;
  CheckpointsModel* m_checkpoints = nullptr;
  QTableView* m_checkpointsView = nullptr;
  QPushButton* m_resume = nullptr;
  QPushButton* m_deviceMap = nullptr;
  std::vector<store::RunDeviceMapRow> m_deviceMaps;
  std::string m_slurmState;  ///< RunDetails::slurmState of the run shown
  QString m_runSpec;         ///< the run's stored specification (YAML); empty for runs not made from one
  QTableView* m_metricsView = nullptr;
  /// The ranks, grouped by host when the run has several (HostGroupProxy, then sorted within each host).
  QTreeView* m_ranksView = nullptr;
  HostGroupProxy* m_ranksByHost = nullptr;
  QTableView* m_eventsView = nullptr;
  QTableView* m_alertsView = nullptr;
  QTableView* m_planView = nullptr;
  QPlainTextEdit* m_config = nullptr;
  RunTimelinePage* m_timeline = nullptr;
  QTimer m_clock;  ///< ages the heartbeats once a second while the run is live
};

}  // namespace fathom::views
