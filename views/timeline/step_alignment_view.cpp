// SPDX-License-Identifier: Apache-2.0
#include "timeline/step_alignment_view.h"

#include "timeline/plan_step_model.h"
#include "timeline/step_alignment_canvas.h"
#include "timeline/time_coords.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace fathom::views {

namespace {

enum CollectiveColumn { OrdinalColumn, NameColumn, FirstColumn, LastColumn, LagColumn, SpreadColumn, ColumnCount };

QString timeText(std::int64_t ns) {
  return formatTime(ns, std::max<std::int64_t>(1, ns / 1000));
}

}  // namespace

StepAlignmentView::StepAlignmentView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  auto* stepLabel = new QLabel(tr("Step:"), this);
  m_steps = new QComboBox(this);
  m_steps->setObjectName(QStringLiteral("stepCombo"));
  stepLabel->setBuddy(m_steps);
  m_summary = new QLabel(this);
  m_summary->setWordWrap(true);
  bar->addWidget(stepLabel);
  bar->addWidget(m_steps);
  bar->addWidget(m_summary, 1);
  layout->addLayout(bar);

  m_canvas = new StepAlignmentCanvas(this);
  layout->addWidget(m_canvas);

  m_collectives = new QTreeWidget(this);
  m_collectives->setObjectName(QStringLiteral("collectivesTable"));
  m_collectives->setRootIsDecorated(false);
  m_collectives->setColumnCount(ColumnCount);
  m_collectives->setHeaderLabels(
      {tr("#"), tr("Collective"), tr("First to arrive"), tr("Last to arrive"), tr("Lag of the last"), tr("Spread")});
  m_collectives->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  layout->addWidget(m_collectives, 1);

  m_comparisonBox = new QWidget(this);
  auto* comparison = new QVBoxLayout(m_comparisonBox);
  comparison->setContentsMargins(0, 0, 0, 0);
  auto* rankBar = new QHBoxLayout;
  auto* rankLabel = new QLabel(tr("Measured on rank:"), m_comparisonBox);
  m_rank = new QComboBox(m_comparisonBox);
  m_rank->setObjectName(QStringLiteral("rankCombo"));
  rankLabel->setBuddy(m_rank);
  rankBar->addWidget(new QLabel(tr("<b>Measured vs predicted</b>"), m_comparisonBox));
  rankBar->addStretch(1);
  rankBar->addWidget(rankLabel);
  rankBar->addWidget(m_rank);
  comparison->addLayout(rankBar);
  m_comparison = new PlanStepModel(this);
  m_comparisonTable = new QTableView(m_comparisonBox);
  m_comparisonTable->setObjectName(QStringLiteral("planComparisonTable"));
  m_comparisonTable->setModel(m_comparison);
  m_comparisonTable->verticalHeader()->hide();
  m_comparisonTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  comparison->addWidget(m_comparisonTable);
  layout->addWidget(m_comparisonBox);
  m_comparisonBox->hide();

  connect(m_steps, &QComboBox::currentIndexChanged, this, [this](int step) {
    showStep();
    emit currentStepChanged(step);
  });
  connect(m_rank, &QComboBox::currentIndexChanged, this, [this] { updateComparison(); });
}

StepAlignmentView::~StepAlignmentView() = default;

void StepAlignmentView::setIndex(std::shared_ptr<const trace::TimelineIndex> index) {
  m_canvas->setStep(nullptr, nullptr);
  m_index = std::move(index);
  m_alignment = m_index ? trace::alignSteps(*m_index) : trace::StepAlignment{};
  const QSignalBlocker blockSteps(m_steps);
  const QSignalBlocker blockRanks(m_rank);
  m_steps->clear();
  for (const trace::AlignedStep& step : m_alignment.steps) {
    m_steps->addItem(tr("ProfilerStep#%1").arg(step.number));
  }
  m_rank->clear();
  for (const int rank : m_alignment.ranks) {
    m_rank->addItem(tr("rank %1").arg(rank), rank);
  }
  m_steps->setCurrentIndex(m_alignment.steps.empty() ? -1 : 0);
  m_rank->setCurrentIndex(m_alignment.ranks.empty() ? -1 : 0);
  showStep();
}

void StepAlignmentView::setPlan(std::optional<plan::PlannedStep> plan) {
  m_plan = std::move(plan);
  m_comparisonBox->setVisible(m_plan.has_value());
  updateComparison();
}

int StepAlignmentView::currentStep() const {
  return m_steps->currentIndex();
}

void StepAlignmentView::setCurrentStep(int step) {
  m_steps->setCurrentIndex(step);
}

int StepAlignmentView::comparedRank() const {
  return m_rank->currentData().isValid() ? m_rank->currentData().toInt() : -1;
}

void StepAlignmentView::setComparedRank(int rank) {
  m_rank->setCurrentIndex(m_rank->findData(rank));
}

std::vector<int> StepAlignmentView::highlightedLastRanks() const {
  std::vector<int> out;
  for (int i = 0; i < m_collectives->topLevelItemCount(); ++i) {
    out.push_back(m_collectives->topLevelItem(i)->data(LastColumn, Qt::UserRole).toInt());
  }
  return out;
}

const std::vector<StepAlignmentView::Mark>& StepAlignmentView::lastPaintMarks() const {
  return m_canvas->lastPaintMarks();
}

void StepAlignmentView::showStep() {
  m_collectives->clear();
  const int current = m_steps->currentIndex();
  if (!m_index || current < 0 || current >= static_cast<int>(m_alignment.steps.size())) {
    m_canvas->setStep(nullptr, nullptr);
    m_summary->setText(m_index ? tr("No ProfilerStep spans in this trace.") : QString());
    updateComparison();
    return;
  }
  const trace::AlignedStep& step = m_alignment.steps[static_cast<std::size_t>(current)];
  m_canvas->setStep(m_index.get(), &step);
  std::int64_t earliestEnd = step.ranks.front().endNs;
  for (const trace::RankStepSpan& span : step.ranks) {
    earliestEnd = std::min(earliestEnd, span.endNs);
  }
  m_summary->setText(
      tr("%n rank(s); %1 collective(s); the ranks' ends differ by %2.", nullptr, static_cast<int>(step.ranks.size()))
          .arg(step.collectives.size())
          .arg(timeText(step.endNs - earliestEnd)));
  QFont bold = m_collectives->font();
  bold.setBold(true);
  for (const trace::AlignedCollective& c : step.collectives) {
    auto* item = new QTreeWidgetItem(m_collectives);
    item->setText(OrdinalColumn, QString::number(c.ordinal));
    QString name = QString::fromUtf8(m_index->name(c.name));
    if (!c.consistent) {
      name += tr(" (not on every rank alike)");
    }
    item->setText(NameColumn, name);
    item->setText(FirstColumn, tr("rank %1").arg(c.firstRank));
    item->setText(LastColumn, tr("rank %1").arg(c.lastRank));
    item->setData(LastColumn, Qt::UserRole, c.lastRank);
    item->setFont(LastColumn, bold);
    item->setForeground(LastColumn, QColor(0xd0, 0x30, 0x20));
    item->setText(LagColumn, timeText(c.lagNs));
    item->setText(SpreadColumn, timeText(c.spreadNs));
  }
  updateComparison();
}

void StepAlignmentView::updateComparison() {
  std::optional<trace::StepSummary> measured;
  const int current = m_steps->currentIndex();
  if (m_plan && m_index && current >= 0 && current < static_cast<int>(m_alignment.steps.size())) {
    measured =
        trace::rankStepSummary(*m_index, m_alignment.steps[static_cast<std::size_t>(current)].number, comparedRank());
  }
  m_comparison->setStep(measured, m_plan);
}

}  // namespace fathom::views
