// SPDX-License-Identifier: Apache-2.0
#include "runs/run_details_page.h"

#include "charts/memory_timeline.h"
#include "charts/metric_plot_panel.h"
#include "common/fit_scroll_area.h"
#include "common/formatting.h"
#include "common/table_view.h"
#include "planner/plan_vs_actual_model.h"
#include "runs/alerts_model.h"
#include "runs/checkpoints_model.h"
#include "runs/event_log_model.h"
#include "runs/host_group_proxy.h"
#include "runs/live_ranks_model.h"
#include "runs/metric_summary_model.h"
#include "timeline/run_timeline_page.h"

#include <QComboBox>
#include <QDateTime>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include <fathom/bigmodel/dispatch_record.h>
#include <fathom/common/error.h>
#include <fathom/plan/prediction.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

QString dateTime(double seconds) {
  return QLocale().toString(QDateTime::fromMSecsSinceEpoch(std::llround(seconds * 1000.0)).toLocalTime(),
                            QLocale::LongFormat);
}

/// "matmul 1.06, attention 1.03, …, all_reduce 3.81": the names are the time model's classes and the collective
/// kinds (plan::RunFit), the same in every language; the factors in the locale's digits.
QString factorList(const std::vector<plan::RunFit::NamedFactor>& factors) {
  QStringList parts;
  for (const plan::RunFit::NamedFactor& f : factors) {
    parts << u"%1 %L2"_s.arg(QString::fromUtf8(f.name.data(), static_cast<qsizetype>(f.name.size())))
                 .arg(f.factor, 0, 'f', 2);
  }
  return parts.join(u", "_s);
}

}  // namespace

QTreeView* RunDetailsPage::ranksByHostView(QWidget* parent) {
  // LiveRanksModel -> grouped by host (a multi-node run) -> sorted within each host by the clicked column.
  m_ranksByHost = new HostGroupProxy(LiveRanksModel::HostColumn, LiveRanksModel::SortRole, this);
  m_ranksByHost->setSourceModel(m_ranks);
  auto* sorted = new QSortFilterProxyModel(this);
  sorted->setSourceModel(m_ranksByHost);
  sorted->setSortRole(LiveRanksModel::SortRole);
  auto* view = new QTreeView(parent);
  view->setObjectName(u"ranksTable"_s);
  view->setModel(sorted);
  view->setSortingEnabled(true);
  view->sortByColumn(-1, Qt::AscendingOrder);
  view->setRootIsDecorated(false);
  view->setAlternatingRowColors(true);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setUniformRowHeights(true);
  view->setWordWrap(false);
  // New groups (a host's first rank arriving) open expanded.
  connect(sorted, &QAbstractItemModel::modelReset, view, &QTreeView::expandAll);
  return view;
}

RunDetailsPage::RunDetailsPage(QWidget* parent) : QWidget(parent) {
  setObjectName(u"runDetailsPage"_s);
  m_summary = new QLabel(this);
  m_summary->setObjectName(u"runSummary"_s);
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

  m_plot = new MetricPlotPanel(&m_series, this);

  m_ranks = new LiveRanksModel(this);
  m_metrics = new MetricSummaryModel(this);
  m_events = new EventLogModel(this);
  auto* tabs = new QTabWidget(this);
  tabs->setObjectName(u"runTabs"_s);
  m_ranksView = ranksByHostView(tabs);
  m_metricsView = sortableTable(m_metrics, MetricSummaryModel::SortRole, tabs, u"metricsTable"_s);
  tabs->addTab(m_ranksView, tr("Ranks"));
  tabs->addTab(m_metricsView, tr("Metrics"));
  m_eventsView = sortableTable(m_events, Qt::DisplayRole, tabs, u"eventsTable"_s);
  m_eventsView->setSortingEnabled(false);
  tabs->addTab(m_eventsView, tr("Log"));
  m_alerts = new AlertsModel(this);
  m_alertsView = sortableTable(m_alerts, Qt::DisplayRole, tabs, u"alertsTable"_s);
  m_alertsView->setSortingEnabled(false);
  m_alertsTab = tabs->addTab(m_alertsView, tr("Alerts"));
  auto* planTab = new QWidget(tabs);
  m_planNote = new QLabel(planTab);
  m_planNote->setObjectName(u"planNote"_s);
  m_planNote->setWordWrap(true);
  m_computePlan = new QPushButton(tr("Compute the plan"), planTab);
  m_computePlan->setObjectName(u"computePlan"_s);
  m_computePlan->hide();
  connect(m_computePlan, &QPushButton::clicked, this, [this] {
    m_computePlan->setEnabled(false);
    m_planNote->setText(tr("Computing the plan…"));
    emit computePlanRequested(m_runId);
  });
  m_plan = new PlanVsActualModel(this);
  m_planView = sortableTable(m_plan, Qt::DisplayRole, planTab, u"planVsActualTable"_s);
  m_planView->setSortingEnabled(false);
  auto* planRow = new QHBoxLayout;
  planRow->addWidget(m_planNote, 1);
  planRow->addWidget(m_computePlan);
  m_fitNote = new QLabel(planTab);
  m_fitNote->setObjectName(u"runFitNote"_s);
  m_fitNote->setWordWrap(true);
  m_calibrate = new QPushButton(tr("Calibrate from this run"), planTab);
  m_calibrate->setObjectName(u"calibrateFromRun"_s);
  m_calibrate->setToolTip(
      tr("Fit this machine's calibrated hardware profile to the run's profiled traces (fathom plan "
         "--calibrate_from); later plans of this machine at the run's processes and threads use the fit"));
  m_calibrate->hide();
  connect(m_calibrate, &QPushButton::clicked, this, [this] {
    m_calibrate->setEnabled(false);
    m_fitNote->setText(tr("Reading the run's traces…"));
    emit calibrateFromRunRequested(m_runId);
  });
  auto* fitRow = new QHBoxLayout;
  fitRow->addWidget(m_fitNote, 1);
  fitRow->addWidget(m_calibrate);
  // Under the table, one rank's memory over time against its planned levels.
  auto* memoryPane = new QWidget(planTab);
  m_memoryRank = new QComboBox(memoryPane);
  m_memoryRank->setObjectName(u"memoryRank"_s);
  m_memoryRank->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_memory = new MemoryTimeline(&m_series, memoryPane);
  m_memory->setMinimumHeight(170);
  auto* rankLabel = new QLabel(tr("Memory over time of rank"), memoryPane);
  rankLabel->setBuddy(m_memoryRank);
  auto* styles = new QLabel(tr("solid: measured, dashed: planned"), memoryPane);
  styles->setEnabled(false);  // a key to the lines, in the muted colour
  // It wraps rather than widening the pane: beside the plan table, its German one line took the table's last column.
  styles->setWordWrap(true);
  auto* rankRow = new QHBoxLayout;
  rankRow->addWidget(rankLabel);
  rankRow->addWidget(m_memoryRank);
  rankRow->addSpacing(12);
  rankRow->addWidget(styles, 1);
  auto* memoryLayout = new QVBoxLayout(memoryPane);
  memoryLayout->setContentsMargins(0, 0, 0, 0);
  memoryLayout->addLayout(rankRow);
  memoryLayout->addWidget(m_memory, 1);
  connect(m_memory, &MemoryTimeline::ranksChanged, this, &RunDetailsPage::updateMemoryRanks);
  connect(m_memoryRank, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index >= 0) {
      m_memory->setRank(m_memoryRank->itemData(index).toInt());
    }
  });
  // Side by side: each keeps the tab's height (stacked, a short window left the chart too short for its labels).
  auto* planSplitter = new QSplitter(Qt::Horizontal, planTab);
  planSplitter->setObjectName(u"planSplitter"_s);
  planSplitter->addWidget(m_planView);
  planSplitter->addWidget(memoryPane);
  planSplitter->setStretchFactor(0, 3);  // the table's five columns need more width than the chart
  planSplitter->setStretchFactor(1, 2);
  planSplitter->setSizes({3000, 2000});
  auto* planLayout = new QVBoxLayout(planTab);
  planLayout->addLayout(planRow);
  planLayout->addLayout(fitRow);
  planLayout->addWidget(planSplitter, 1);
  tabs->addTab(planTab, tr("Plan vs actual"));
  auto* checkpointsTab = new QWidget(tabs);
  m_checkpoints = new CheckpointsModel(this);
  m_checkpointsView = sortableTable(m_checkpoints, Qt::DisplayRole, checkpointsTab, u"checkpointsTable"_s);
  m_checkpointsView->setSortingEnabled(false);
  m_checkpointsView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_checkpointsView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_resume = new QPushButton(tr("Resume from this checkpoint"), checkpointsTab);
  m_resume->setObjectName(u"resumeFromCheckpoint"_s);
  connect(m_checkpointsView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &RunDetailsPage::updateResumeButton);
  connect(m_resume, &QPushButton::clicked, this, [this] {
    const QModelIndexList rows = m_checkpointsView->selectionModel()->selectedRows();
    if (!rows.isEmpty() && !m_runSpec.isEmpty())
      emit resumeRequested(m_runId, m_runSpec, rows.front().data(CheckpointsModel::PathRole).toString());
  });
  auto* resumeRow = new QHBoxLayout;
  resumeRow->addStretch(1);
  resumeRow->addWidget(m_resume);
  auto* checkpointsLayout = new QVBoxLayout(checkpointsTab);
  checkpointsLayout->addWidget(m_checkpointsView, 1);
  checkpointsLayout->addLayout(resumeRow);
  tabs->addTab(checkpointsTab, tr("Checkpoints"));
  updateResumeButton();
  m_tabs = tabs;
  m_config = new QPlainTextEdit(tabs);
  m_config->setObjectName(u"runConfig"_s);
  m_config->setReadOnly(true);
  m_config->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  tabs->addTab(m_config, tr("Launch configuration"));
  m_timeline = new RunTimelinePage(tabs);
  tabs->addTab(m_timeline, tr("Timeline"));

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(m_plot);
  splitter->addWidget(tabs);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter->setSizes({3000, 2000});  // scaled to the splitter's height
  m_deviceMap = new QPushButton(tr("Device map…"), this);
  m_deviceMap->setObjectName(u"openRunDeviceMap"_s);
  m_deviceMap->setToolTip(tr("The device map this run's program dispatched its model with, in the device-map view: "
                             "where each module went and what each device held."));
  m_deviceMap->hide();
  connect(m_deviceMap, &QPushButton::clicked, this, [this] {
    if (m_deviceMaps.size() == 1) {  // with several, the button opens its menu instead
      emit deviceMapRequested(m_runId, QString::fromStdString(m_deviceMaps.front().map.recordJson), deviceMapTitle(0));
    }
  });
  auto* header = new QHBoxLayout;
  header->addWidget(m_summary, 1);
  header->addWidget(m_deviceMap, 0, Qt::AlignTop);
  // The page scrolls when the window is shorter than its rows, charts and tabs need (a laptop's 1366 x 768), instead
  // of making the main window taller than the screen; from about 900 px up it fits without scrolling.
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->addLayout(header);
  layout->addWidget(splitter, 1);
  auto* scroll = new FitScrollArea(this);
  scroll->setObjectName(u"runPageScroll"_s);
  scroll->setPage(content);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll);

  m_clock.setInterval(1000);
  connect(&m_clock, &QTimer::timeout, this,
          [this] { m_ranks->setNow(double(QDateTime::currentMSecsSinceEpoch()) / 1000.0); });
}

QString RunDetailsPage::deviceMapTitle(std::size_t index) const {
  const store::RunDeviceMap& map = m_deviceMaps.at(index).map;
  std::string model;  // core reads the record; one it refuses gets a title without the model (the view says why)
  try {
    model = bigmodel::dispatchRecordFromJson(map.recordJson, "the record").modelName;
  } catch (const Error&) {
  }
  const QString run = tr("Run %1, rank %2").arg(m_runId).arg(map.rank);
  return model.empty() ? run : tr("%1: %2").arg(run, QString::fromStdString(model));
}

void RunDetailsPage::addDeviceMaps(const std::vector<store::RunDeviceMapRow>& maps) {
  if (maps.empty()) {
    return;
  }
  m_deviceMaps.insert(m_deviceMaps.end(), maps.begin(), maps.end());
  m_deviceMap->show();
  if (m_deviceMaps.size() == 1) {
    return;
  }
  auto* menu = m_deviceMap->menu();
  if (menu == nullptr) {
    menu = new QMenu(m_deviceMap);
    m_deviceMap->setMenu(menu);
  }
  menu->clear();
  for (std::size_t i = 0; i < m_deviceMaps.size(); ++i) {
    const QString title = deviceMapTitle(i);
    const QString when = QLocale().toString(
        QDateTime::fromMSecsSinceEpoch(std::llround(m_deviceMaps[i].map.createdAt * 1000.0)).toLocalTime().time(),
        QLocale::ShortFormat);
    menu->addAction(tr("%1 (recorded %2)").arg(title, when), this, [this, i, title] {
      emit deviceMapRequested(m_runId, QString::fromStdString(m_deviceMaps.at(i).map.recordJson), title);
    });
  }
}

void RunDetailsPage::showTimelineTab() {
  m_tabs->setCurrentWidget(m_timeline);
}

void RunDetailsPage::setDetails(const RunDetails& d) {
  m_runId = d.row.info.id.value;
  m_slurmState = d.slurmState;
  showHeader(d.row);
  m_config->setPlainText(QString::fromStdString(d.row.info.configText));
  m_runSpec = QString::fromStdString(d.row.info.runSpec);
  m_checkpoints->setArtifacts(d.artifacts);
  m_checkpointsView->resizeColumnsToContents();
  updateResumeButton();
}

void RunDetailsPage::updateResumeButton() {
  const bool selected = m_checkpointsView->selectionModel()->hasSelection();
  m_resume->setEnabled(selected && !m_runSpec.isEmpty());
  m_resume->setToolTip(m_runSpec.isEmpty()
                           ? tr("This run was not started from a configuration (fathom launch records one), so "
                                "the Studio cannot start it again.")
                           : tr("Starts the run's configuration again with --resume_from_checkpoint and the "
                                "selected checkpoint: training continues from its step."));
}

void RunDetailsPage::setRow(const RunRow& row) {
  if (row.info.id.value == m_runId) {
    showHeader(row);
  }
}

void RunDetailsPage::showHeader(const RunRow& row) {
  const store::RunInfo& r = row.info;
  // Two columns of facts (when and where on the left, what on the right), then the command: three or four lines
  // fewer than one column, for the chart and the tabs below.
  using Cell = std::pair<QString, QString>;
  std::vector<Cell> left;
  std::vector<Cell> right;
  left.emplace_back(tr("Status"), RunsModel::statusText(r.status) +
                                      (r.exitCode ? tr(" (exit code %1)").arg(*r.exitCode) : QString()));
  left.emplace_back(tr("Started"), dateTime(r.startedAt.value_or(r.createdAt)));
  if (r.endedAt) {
    left.emplace_back(tr("Ended"),
                      tr("%1, after %2").arg(dateTime(*r.endedAt), format::duration(row.durationS.value_or(0))));
  }
  left.emplace_back(tr("Host"),
                    tr("%1 (launcher pid %2)").arg(QString::fromStdString(r.host).toHtmlEscaped()).arg(r.launcherPid));
  right.emplace_back(tr("Strategy"), row.strategy.toHtmlEscaped());
  right.emplace_back(tr("World size"), row.worldSize > 0 ? QString::number(row.worldSize) : u"–"_s);
  right.emplace_back(tr("Final loss"), format::scalar(row.finalLoss));
  if (!r.slurmJobId.empty()) {
    const QString job = QString::fromStdString(r.slurmJobId).toHtmlEscaped();
    right.emplace_back(tr("SLURM job"),
                       m_slurmState.empty()
                           ? tr("%1 (queue state unknown: SLURM cannot be asked from here)").arg(job)
                           : tr("%1 (%2)").arg(job, QString::fromStdString(m_slurmState).toHtmlEscaped()));
  }
  auto cells = [](const std::vector<Cell>& column, std::size_t i) {
    return i < column.size()
               ? u"<td style=\"padding-right:12px\"><b>%1</b></td><td style=\"padding-right:36px\">%2</td>"_s.arg(
                     column[i].first, column[i].second)
               : u"<td></td><td></td>"_s;
  };
  QString rows;
  for (std::size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
    rows += u"<tr>"_s + cells(left, i) + cells(right, i) + u"</tr>"_s;
  }
  // The command in a table of its own: spanning the facts' columns, its length would spread them over the width.
  const QString command = u"<tr><td style=\"padding-right:12px\"><b>%1</b></td><td><code>%2</code></td></tr>"_s.arg(
      tr("Command"), QString::fromStdString(r.commandLine).toHtmlEscaped());
  m_summary->setText(u"<h3>%1</h3><table>%2</table><table>%3</table>"_s.arg(
      tr("Run %1: %2").arg(r.id.value).arg(QString::fromStdString(r.name).toHtmlEscaped()), rows, command));
}

void RunDetailsPage::applyPlan(const RunPlanComparison& p) {
  m_computePlan->setEnabled(true);
  m_computePlan->setVisible(!p.stored);
  if (p.comparison) {
    m_plan->setComparison(*p.comparison);
    m_memory->setComparison(*p.comparison);
    m_planView->resizeColumnsToContents();
    m_planNote->setText(p.source == "launch" ? tr("The plan made when the run was launched, against what each rank "
                                                  "measured (exact where equal, else measured − predicted).")
                                             : tr("A plan computed after the run, against what each rank measured "
                                                  "(exact where equal, else measured − predicted)."));
  } else if (p.stored) {
    m_planNote->setText(tr("The stored plan could not be compared: %1").arg(p.error));
  } else {
    m_planNote->setText(p.error.isEmpty() ? tr("This run was launched without a plan.")
                                          : tr("Computing the plan failed: %1").arg(p.error));
  }
}

void RunDetailsPage::applyRunFit(const RunFitOutcome& outcome) {
  m_calibrate->setEnabled(true);
  if (!outcome.report) {
    m_fitNote->setText(tr("Calibrating from this run failed: %1").arg(outcome.error));
    return;
  }
  const calibrate::RunFitReport& r = *outcome.report;
  std::vector<plan::RunFit::NamedFactor> corrected;
  for (const calibrate::FittedClass& c : r.classes) {
    if (c.predictedS > 0 && c.measuredS > 0) {  // the classes the fit corrected (operator and collective names)
      corrected.push_back({c.name, c.factor});
    }
  }
  m_fitNote->setText(tr("Calibrated from this run (hardware fit %1): step time measured %L2 s, predicted %L3 s by the "
                        "calibration alone and %L4 s after the fit. Measured / predicted: %5. Later plans of this "
                        "machine at this run's processes and threads use the fit.")
                         .arg(r.fitId)
                         .arg(r.measuredStepS, 0, 'g', 4)
                         .arg(r.calibratedStepS, 0, 'g', 4)
                         .arg(r.fittedStepS, 0, 'g', 4)
                         .arg(factorList(corrected)));
}

void RunDetailsPage::showStoredFit(const StoredRunFit& stored) {
  if (!stored.fit) {
    m_fitNote->setText(tr("Hardware fit %1 of this run could not be read: %2").arg(stored.id).arg(stored.error));
    return;
  }
  const plan::RunFit& f = *stored.fit;
  m_fitNote->setText(tr("Calibrated from this run at %1 (hardware fit %2): step time measured %L3 s over %4 profiled "
                        "steps. Measured / predicted: %5. Plans of this machine at this run's processes and threads "
                        "use its newest fit.")
                         .arg(dateTime(stored.createdAt))
                         .arg(stored.id)
                         .arg(f.measuredStepS, 0, 'g', 4)
                         .arg(f.steps)
                         .arg(factorList(f.factors())));
}

void RunDetailsPage::updateMemoryRanks() {
  const std::vector<int> ranks = m_memory->ranks();
  const QSignalBlocker blocker(m_memoryRank);
  m_memoryRank->clear();
  for (const int rank : ranks) {
    m_memoryRank->addItem(QString::number(rank), rank);
  }
  const int shown = m_memoryRank->findData(m_memory->rank());
  if (shown >= 0) {
    m_memoryRank->setCurrentIndex(shown);
  } else if (!ranks.empty()) {
    m_memoryRank->setCurrentIndex(0);
    m_memory->setRank(ranks.front());
  }
}

void RunDetailsPage::applyDelta(const RunDelta& d) {
  if (m_runId == 0) {
    m_runId = d.info.id.value;
  }
  if (d.info.id.value != m_runId) {
    return;
  }
  m_live = d.info.status == store::RunStatus::Running;
  m_calibrate->setVisible(!m_live);  // a fit reads a finished run's traces
  if (d.info.layout.worldSize > 0) {
    m_plot->plot()->setWorldSize(m_runId, d.info.layout.worldSize);
  }
  m_series.append(d.metrics);
  m_plot->pointsAppended(d.metrics);
  if (m_memory->run() != m_runId) {
    m_memory->setRun(m_runId);  // the first read: every point so far
  } else {
    m_memory->pointsAppended(d.metrics);
  }
  const bool wasGrouped = m_ranksByHost->grouped();
  m_ranks->apply(d);
  if (m_ranksByHost->grouped() != wasGrouped || (d.first && m_ranksByHost->grouped())) {
    m_ranksView->setRootIsDecorated(m_ranksByHost->grouped());
    m_ranksView->expandAll();
  }
  m_metrics->appendPoints(d.metrics);
  m_events->appendEvents(d.events);
  addDeviceMaps(d.deviceMaps);
  if (d.plan) {
    applyPlan(*d.plan);
  }
  if (d.fit) {
    showStoredFit(*d.fit);
  }
  const qint64 lastAlert = m_alerts->lastAlertId();
  m_alerts->appendAlerts(d.alerts);
  if (m_alerts->lastAlertId() != lastAlert) {
    m_alertsView->resizeColumnsToContents();  // a hang's collective and duration read whole
  }
  const int open = m_alerts->openCount();
  m_tabs->setTabText(m_alertsTab, open > 0 ? tr("Alerts (%1 open)").arg(open) : tr("Alerts"));
  if (m_alerts->lastAlertId() > lastAlert && open > 0 && !d.first) {
    m_tabs->setCurrentIndex(m_alertsTab);  // a new hang or straggler while watching: show it
  }
  if (!m_live) {
    m_plot->plot()->flushPending();  // the steps of the mean some rank never logged
    m_clock.stop();
  } else if (!m_clock.isActive()) {
    m_clock.start();
  }
  if (d.first) {
    for (int column = 0; column < m_ranksByHost->columnCount(); ++column) {
      m_ranksView->resizeColumnToContents(column);
    }
    m_metricsView->resizeColumnsToContents();
    m_eventsView->resizeColumnsToContents();
  }
  if (!d.events.empty()) {
    m_eventsView->scrollToBottom();
  }
}

}  // namespace fathom::views
