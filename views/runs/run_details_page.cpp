// SPDX-License-Identifier: Apache-2.0
#include "runs/run_details_page.h"

#include "charts/metric_plot_panel.h"
#include "common/formatting.h"
#include "common/table_view.h"
#include "runs/event_log_model.h"
#include "runs/live_ranks_model.h"
#include "runs/metric_summary_model.h"

#include <QDateTime>
#include <QFontDatabase>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <cmath>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

QString dateTime(double seconds) {
  return QLocale().toString(QDateTime::fromMSecsSinceEpoch(std::llround(seconds * 1000.0)).toLocalTime(),
                            QLocale::LongFormat);
}

}  // namespace

RunDetailsPage::RunDetailsPage(QWidget* parent) : QWidget(parent) {
  setObjectName(u"runDetailsPage"_s);
  m_summary = new QLabel(this);
  m_summary->setObjectName(u"runSummary"_s);
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

  m_plot = new MetricPlotPanel(&m_series, this);
  m_plot->setMinimumHeight(260);

  m_ranks = new LiveRanksModel(this);
  m_metrics = new MetricSummaryModel(this);
  m_events = new EventLogModel(this);
  auto* tabs = new QTabWidget(this);
  tabs->setObjectName(u"runTabs"_s);
  m_ranksView = sortableTable(m_ranks, LiveRanksModel::SortRole, tabs, u"ranksTable"_s);
  m_metricsView = sortableTable(m_metrics, MetricSummaryModel::SortRole, tabs, u"metricsTable"_s);
  tabs->addTab(m_ranksView, tr("Ranks"));
  tabs->addTab(m_metricsView, tr("Metrics"));
  m_eventsView = sortableTable(m_events, Qt::DisplayRole, tabs, u"eventsTable"_s);
  m_eventsView->setSortingEnabled(false);
  tabs->addTab(m_eventsView, tr("Log"));
  m_config = new QPlainTextEdit(tabs);
  m_config->setObjectName(u"runConfig"_s);
  m_config->setReadOnly(true);
  m_config->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  tabs->addTab(m_config, tr("Launch configuration"));

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(m_plot);
  splitter->addWidget(tabs);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_summary);
  layout->addWidget(splitter, 1);

  m_clock.setInterval(1000);
  connect(&m_clock, &QTimer::timeout, this,
          [this] { m_ranks->setNow(double(QDateTime::currentMSecsSinceEpoch()) / 1000.0); });
}

void RunDetailsPage::setDetails(const RunDetails& d) {
  m_runId = d.row.info.id.value;
  showHeader(d.row);
  m_config->setPlainText(QString::fromStdString(d.row.info.configText));
}

void RunDetailsPage::setRow(const RunRow& row) {
  if (row.info.id.value == m_runId) {
    showHeader(row);
  }
}

void RunDetailsPage::showHeader(const RunRow& row) {
  const store::RunInfo& r = row.info;
  QStringList rows;
  auto line = [&rows](const QString& key, const QString& value) {
    rows << u"<tr><td style=\"padding-right:12px\"><b>%1</b></td><td>%2</td></tr>"_s.arg(key, value);
  };
  line(tr("Status"),
       RunsModel::statusText(r.status) + (r.exitCode ? tr(" (exit code %1)").arg(*r.exitCode) : QString()));
  line(tr("Started"), dateTime(r.startedAt.value_or(r.createdAt)));
  if (r.endedAt) {
    line(tr("Ended"), tr("%1, after %2").arg(dateTime(*r.endedAt), format::duration(row.durationS.value_or(0))));
  }
  line(tr("World size"), row.worldSize > 0 ? QString::number(row.worldSize) : u"–"_s);
  line(tr("Strategy"), row.strategy.toHtmlEscaped());
  line(tr("Final loss"), format::scalar(row.finalLoss));
  line(tr("Host"), tr("%1 (launcher pid %2)").arg(QString::fromStdString(r.host).toHtmlEscaped()).arg(r.launcherPid));
  line(tr("Command"), u"<code>%1</code>"_s.arg(QString::fromStdString(r.commandLine).toHtmlEscaped()));
  m_summary->setText(u"<h3>%1</h3><table>%2</table>"_s.arg(
      tr("Run %1: %2").arg(r.id.value).arg(QString::fromStdString(r.name).toHtmlEscaped()), rows.join(QString())));
}

void RunDetailsPage::applyDelta(const RunDelta& d) {
  if (m_runId == 0) {
    m_runId = d.info.id.value;
  }
  if (d.info.id.value != m_runId) {
    return;
  }
  m_live = d.info.status == store::RunStatus::Running;
  if (d.info.layout.worldSize > 0) {
    m_plot->plot()->setWorldSize(m_runId, d.info.layout.worldSize);
  }
  m_series.append(d.metrics);
  m_plot->pointsAppended(d.metrics);
  m_ranks->apply(d);
  m_metrics->appendPoints(d.metrics);
  m_events->appendEvents(d.events);
  if (!m_live) {
    m_plot->plot()->flushPending();  // the steps of the mean some rank never logged
    m_clock.stop();
  } else if (!m_clock.isActive()) {
    m_clock.start();
  }
  if (d.first) {
    m_ranksView->resizeColumnsToContents();
    m_metricsView->resizeColumnsToContents();
    m_eventsView->resizeColumnsToContents();
  }
  if (!d.events.empty()) {
    m_eventsView->scrollToBottom();
  }
}

}  // namespace fathom::views
