// SPDX-License-Identifier: Apache-2.0
#include "runs/run_details_page.h"

#include "common/formatting.h"
#include "runs/event_log_model.h"
#include "runs/metric_summary_model.h"
#include "runs/ranks_model.h"

#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QPen>
#include <QPlainTextEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>

#include <cmath>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

constexpr int kOpenGlPoints = 20'000;

QTableView* table(QAbstractItemModel* model, int sortRole, QWidget* parent, const QString& name) {
  auto* proxy = new QSortFilterProxyModel(parent);
  proxy->setSourceModel(model);
  proxy->setSortRole(sortRole);
  auto* view = new QTableView(parent);
  view->setObjectName(name);
  view->setModel(proxy);
  view->setSortingEnabled(true);
  view->sortByColumn(-1, Qt::AscendingOrder);
  view->verticalHeader()->hide();
  view->setAlternatingRowColors(true);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->horizontalHeader()->setStretchLastSection(true);
  view->setWordWrap(false);
  return view;
}

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

  m_lossChart = new QChartView(new QChart(), this);
  m_lossChart->setObjectName(u"lossChart"_s);
  m_lossChart->setRenderHint(QPainter::Antialiasing);
  m_lossChart->chart()->setTitle(tr("Loss"));
  m_lossChart->chart()->legend()->setAlignment(Qt::AlignRight);
  m_lossChart->setMinimumHeight(220);

  m_ranks = new RanksModel(this);
  m_metrics = new MetricSummaryModel(this);
  m_events = new EventLogModel(this);
  auto* tabs = new QTabWidget(this);
  tabs->setObjectName(u"runTabs"_s);
  m_metricsView = table(m_metrics, MetricSummaryModel::SortRole, tabs, u"metricsTable"_s);
  m_ranksView = table(m_ranks, RanksModel::SortRole, tabs, u"ranksTable"_s);
  tabs->addTab(m_metricsView, tr("Metrics"));
  tabs->addTab(m_ranksView, tr("Ranks"));
  m_eventsView = table(m_events, Qt::DisplayRole, tabs, u"eventsTable"_s);
  m_eventsView->setSortingEnabled(false);
  tabs->addTab(m_eventsView, tr("Log"));
  m_config = new QPlainTextEdit(tabs);
  m_config->setObjectName(u"runConfig"_s);
  m_config->setReadOnly(true);
  m_config->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  tabs->addTab(m_config, tr("Launch configuration"));

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(m_lossChart);
  splitter->addWidget(tabs);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_summary);
  layout->addWidget(splitter, 1);
}

void RunDetailsPage::setDetails(const RunDetails& d) {
  m_runId = d.row.info.id.value;
  const store::RunInfo& r = d.row.info;
  QStringList rows;
  auto row = [&rows](const QString& key, const QString& value) {
    rows << u"<tr><td style=\"padding-right:12px\"><b>%1</b></td><td>%2</td></tr>"_s.arg(key, value);
  };
  row(tr("Status"),
      RunsModel::statusText(r.status) + (r.exitCode ? tr(" (exit code %1)").arg(*r.exitCode) : QString()));
  row(tr("Started"), dateTime(r.startedAt.value_or(r.createdAt)));
  if (r.endedAt) {
    row(tr("Ended"), tr("%1, after %2").arg(dateTime(*r.endedAt), format::duration(d.row.durationS.value_or(0))));
  }
  row(tr("World size"), d.row.worldSize > 0 ? QString::number(d.row.worldSize) : u"–"_s);
  row(tr("Strategy"), d.row.strategy.toHtmlEscaped());
  row(tr("Final loss"), format::scalar(d.row.finalLoss));
  row(tr("Host"), tr("%1 (launcher pid %2)").arg(QString::fromStdString(r.host).toHtmlEscaped()).arg(r.launcherPid));
  row(tr("Command"), u"<code>%1</code>"_s.arg(QString::fromStdString(r.commandLine).toHtmlEscaped()));
  m_summary->setText(u"<h3>%1</h3><table>%2</table>"_s.arg(
      tr("Run %1: %2").arg(r.id.value).arg(QString::fromStdString(r.name).toHtmlEscaped()), rows.join(QString())));

  m_ranks->setRanks(d.ranks);
  m_metrics->setSummaries(d.metrics);
  m_events->setEvents(d.events);
  m_metricsView->resizeColumnsToContents();
  m_ranksView->resizeColumnsToContents();
  m_eventsView->resizeColumnsToContents();
  m_eventsView->scrollToBottom();
  m_config->setPlainText(QString::fromStdString(r.configText));
  showLoss(d);
}

void RunDetailsPage::showLoss(const RunDetails& d) {
  QChart* chart = m_lossChart->chart();
  chart->removeAllSeries();
  for (QAbstractAxis* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
  if (d.loss.empty()) {
    chart->setTitle(tr("Loss: this run logged none"));
    return;
  }
  chart->setTitle(tr("Loss per rank"));
  auto* x = new QValueAxis();
  x->setTitleText(tr("Step"));
  x->setLabelFormat(u"%d"_s);
  auto* y = new QValueAxis();
  y->setTitleText(tr("Loss"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  double low = HUGE_VAL, high = -HUGE_VAL;
  std::int64_t first = 0, last = 0;
  bool any = false;
  for (const auto& [rank, points] : d.loss) {
    auto* series = new QLineSeries();
    series->setName(tr("rank %1").arg(rank));
    for (const auto& [step, value] : points) {
      if (!std::isfinite(value)) {
        continue;
      }
      series->append(double(step), value);
      low = std::min(low, value);
      high = std::max(high, value);
      first = any ? std::min(first, step) : step;
      last = any ? std::max(last, step) : step;
      any = true;
    }
    // Long runs log many points: past this many, the series draws through OpenGL (Qt Charts' fast path).
    series->setUseOpenGL(series->count() > kOpenGlPoints);
    chart->addSeries(series);
    if (rank > 0) {
      // Data-parallel ranks often log the same (averaged) loss: dashes keep every rank visible.
      QPen pen = series->pen();  // the theme's colour, set by addSeries()
      pen.setStyle(Qt::DashLine);
      series->setPen(pen);
    }
    series->attachAxis(x);
    series->attachAxis(y);
  }
  if (any) {
    x->setRange(double(first), double(std::max(last, first + 1)));
    x->applyNiceNumbers();
    const double pad = std::max((high - low) * 0.05, 1e-6);
    y->setRange(low - pad, high + pad);
    y->applyNiceNumbers();
  }
}

}  // namespace fathom::views
