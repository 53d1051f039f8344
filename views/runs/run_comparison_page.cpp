// SPDX-License-Identifier: Apache-2.0
#include "runs/run_comparison_page.h"

#include "charts/metric_plot_panel.h"
#include "common/table_view.h"
#include "runs/config_diff_model.h"
#include "runs/run_summary_model.h"

#include <QComboBox>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::views {

RunComparisonPage::RunComparisonPage(QWidget* parent) : QWidget(parent) {
  setObjectName(u"runComparisonPage"_s);
  m_title = new QLabel(this);
  m_title->setObjectName(u"comparisonTitle"_s);
  m_title->setTextFormat(Qt::RichText);
  m_title->setWordWrap(true);
  m_plot = new MetricPlotPanel(&m_series, this);
  m_plot->modeCombo()->setCurrentIndex(m_plot->modeCombo()->findData(int(MetricPlot::Mode::MeanBand)));
  m_plot->setMinimumHeight(260);
  m_diff = new ConfigDiffModel(this);
  m_summary = new RunSummaryModel(this);
  m_summaryView = sortableTable(m_summary, RunSummaryModel::SortRole, this, u"comparisonSummary"_s);
  m_diffView = sortableTable(m_diff, Qt::DisplayRole, this, u"configDiff"_s);
  m_diffNote = new QLabel(this);
  m_diffNote->setObjectName(u"configDiffNote"_s);
  m_diffNote->setWordWrap(true);
  auto* diffPage = new QWidget(this);
  auto* diffLayout = new QVBoxLayout(diffPage);
  diffLayout->setContentsMargins(0, 4, 0, 0);
  diffLayout->addWidget(m_diffNote);
  diffLayout->addWidget(m_diffView, 1);

  auto* tabs = new QTabWidget(this);
  tabs->setObjectName(u"comparisonTabs"_s);
  tabs->addTab(m_summaryView, tr("Summary"));
  tabs->addTab(diffPage, tr("Configuration differences"));
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(m_plot);
  splitter->addWidget(tabs);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_title);
  layout->addWidget(splitter, 1);
}

void RunComparisonPage::setData(const RunComparisonData& data) {
  m_runs.clear();
  QMap<qint64, QString> labels;
  QStringList names;
  QStringList problems;
  for (const store::RunSummary& s : data.comparison.runs) {
    m_runs << s.info.id.value;
    labels.insert(s.info.id.value, tr("run %1").arg(s.info.id.value));
    names << tr("%1 (run %2)").arg(QString::fromStdString(s.info.name).toHtmlEscaped()).arg(s.info.id.value);
    if (!s.configError.empty()) {
      problems << tr("The configuration of run %1 could not be read: %2")
                      .arg(s.info.id.value)
                      .arg(QString::fromStdString(s.configError));
    }
    if (s.worldSize > 0) {
      m_plot->plot()->setWorldSize(s.info.id.value, s.worldSize);
    }
  }
  m_title->setText(u"<h3>%1</h3>"_s.arg(tr("Comparing %1").arg(names.join(u", "_s))));
  m_series.clear();
  m_series.append(data.metrics);
  m_plot->plot()->setRunLabels(labels);
  m_plot->keysChanged();
  m_plot->plot()->rebuild();
  m_plot->plot()->flushPending();
  m_summary->setComparison(data.comparison);
  m_diff->setComparison(data.comparison);
  const int differing = static_cast<int>(data.comparison.configDifferences.size());
  QString note = differing == 0
                     ? tr("The runs' configurations are the same.")
                     : tr("Keys that differ: %1 (the keys every run sets alike are left out).").arg(differing);
  if (!problems.isEmpty()) {
    note += u"\n"_s + problems.join(u'\n');
  }
  m_diffNote->setText(note);
  m_summaryView->resizeColumnsToContents();
  m_diffView->resizeColumnsToContents();
}

}  // namespace fathom::views
