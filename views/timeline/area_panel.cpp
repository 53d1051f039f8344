// SPDX-License-Identifier: Apache-2.0
#include "timeline/area_panel.h"

#include "timeline/area_name_model.h"
#include "timeline/time_coords.h"
#include "timeline/timeline_worker.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>
#include <set>
#include <utility>

namespace fathom::views {

namespace {

/// A breakdown row: the label, then each time (shown formatted, kept in ns in Qt::UserRole).
void setBreakdown(QTreeWidgetItem* item, const QString& label, const trace::TimeBreakdown& t) {
  item->setText(AreaPanel::StepColumn, label);
  const std::pair<int, std::int64_t> cells[] = {
      {AreaPanel::SpanColumn, t.spanNs},
      {AreaPanel::ComputeColumn, t.computeNs},
      {AreaPanel::CommunicationColumn, t.communicationNs},
      {AreaPanel::ExposedCommunicationColumn, t.communicationNs - t.overlapNs},
      {AreaPanel::DataLoadingColumn, t.dataLoadingNs},
      {AreaPanel::IdleColumn, t.idleNs},
  };
  for (const auto& [column, ns] : cells) {
    item->setText(column, formatDuration(ns));
    item->setData(column, Qt::UserRole, static_cast<qlonglong>(ns));
    item->setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
  }
}

}  // namespace

AreaPanel::AreaPanel(QWidget* parent) : AreaPanel(Options{}, parent) {}

AreaPanel::AreaPanel(const Options& options, QWidget* parent)
    : QWidget(parent), m_options(options), m_names(new AreaNameModel(this)), m_worker(new TimelineWorker(this)) {
  auto* layout = new QVBoxLayout(this);
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("summary"));
  // Two short lines, no word wrap: a wrapped label's height is not propagated through the panel's layout.
  m_summary->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);  // its two lines, never squeezed
  layout->addWidget(m_summary);

  // Side by side: under the timeline the panel is short and wide, and stacked each view kept two or three rows.
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  m_sorted = new QSortFilterProxyModel(this);
  m_sorted->setSourceModel(m_names);
  m_sorted->setSortRole(AreaNameModel::SortRole);
  m_table = new QTableView(splitter);
  m_table->setObjectName(QStringLiteral("byName"));
  m_table->setModel(m_sorted);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(AreaNameModel::TotalColumn, Qt::DescendingOrder);
  m_table->verticalHeader()->hide();
  // Rows as compact as the breakdown's beside it (the style's default is about twice a line).
  m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().lineSpacing() + 6);
  m_table->horizontalHeader()->setSectionResizeMode(AreaNameModel::NameColumn, QHeaderView::Stretch);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);

  m_breakdown = new QTreeWidget(splitter);
  m_breakdown->setObjectName(QStringLiteral("breakdown"));
  m_breakdown->setHeaderLabels({tr("Rank / step"), tr("Span"), tr("Compute"), tr("Communication"),
                                tr("Exposed communication"), tr("Data loading"), tr("Idle")});
  layout->addWidget(splitter, 1);
  setIndex(nullptr);
}

AreaPanel::~AreaPanel() = default;

void AreaPanel::setIndex(std::shared_ptr<const trace::TimelineIndex> index) {
  m_index = std::move(index);
  m_area.reset();
  setArea(std::nullopt);
}

bool AreaPanel::isComputing() const {
  return m_worker->isBusy();
}

std::uint64_t AreaPanel::estimateSlices(const AreaSelection& area) const {
  std::set<std::optional<int>> ranks;
  for (const std::uint32_t l : area.lanes)
    ranks.insert(m_index->processes()[m_index->lane(l).process].rank);
  std::uint64_t slices = 0;
  for (const trace::TimelineLane& lane : m_index->lanes()) {
    if (!ranks.contains(m_index->processes()[lane.process].rank))
      continue;
    for (std::uint32_t d = 0; d < lane.depthCount(); ++d)
      slices += trace::visibleSlices(lane, d, area.range).size();
  }
  return slices;
}

void AreaPanel::setArea(std::optional<AreaSelection> area) {
  m_worker->cancel();
  m_area = std::move(area);
  m_aggregation.reset();
  m_names->clear();
  m_breakdown->clear();
  if (!m_index || !m_area) {
    m_summary->setText(m_index ? tr("No area selected:\nShift+drag over the timeline to select one") : QString());
    return;
  }
  const trace::TimeRange range = m_area->range;
  const std::uint64_t slices = estimateSlices(*m_area);
  m_summary->setText(tr("%1 to %2 (%3) since the trace's start\n%4 lanes: computing…")
                         .arg(formatDuration(range.startNs - m_index->data().startNs),
                              formatDuration(range.endNs - m_index->data().startNs),
                              formatDuration(range.endNs - range.startNs))
                         .arg(m_area->lanes.size()));
  const trace::AreaOptions options{.top = m_options.top};
  if (slices <= m_options.syncSliceLimit) {
    apply(trace::aggregateArea(*m_index, range, m_area->lanes, options));
    return;
  }
  m_worker->run([this, index = m_index, range, lanes = m_area->lanes, options]() -> std::function<void()> {
    auto result = std::make_shared<trace::AreaAggregation>();
    QString error;
    try {
      *result = trace::aggregateArea(*index, range, lanes, options);
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());  // an unknown lane or empty range: the view never sends one
    }
    return [this, result, error] {
      if (error.isEmpty())
        apply(std::move(*result));
      else
        m_summary->setText(error);
    };
  });
}

void AreaPanel::apply(trace::AreaAggregation aggregation) {
  m_aggregation = std::move(aggregation);
  m_names->setRows(m_index, m_aggregation->byName);
  std::uint64_t slices = 0;
  for (const trace::NameAggregate& a : m_aggregation->byName)
    slices += a.count;
  const trace::TimeRange range = m_aggregation->range;
  m_summary->setText(tr("%1 to %2 (%3) since the trace's start\n%4 lanes: %5 slices")
                         .arg(formatDuration(range.startNs - m_index->data().startNs),
                              formatDuration(range.endNs - m_index->data().startNs),
                              formatDuration(range.endNs - range.startNs))
                         .arg(m_area->lanes.size())
                         .arg(slices));
  fillBreakdown();
  emit aggregated();
}

void AreaPanel::fillBreakdown() {
  m_breakdown->clear();
  for (const trace::RankSummary& r : m_aggregation->ranks) {
    const bool gpu = r.summary.timeline == trace::SummaryTimeline::Gpu;
    const QString rank = r.rank ? tr("rank %1").arg(*r.rank) : tr("all");
    auto* item = new QTreeWidgetItem(m_breakdown);
    setBreakdown(item, (gpu ? tr("%1 · GPU timeline") : tr("%1 · CPU timeline")).arg(rank), r.summary.total);
    for (const trace::StepSummary& step : r.summary.steps)
      setBreakdown(new QTreeWidgetItem(item), tr("step %1").arg(step.step), step.time);
    item->setExpanded(true);
  }
  for (int c = 0; c < BreakdownColumnCount; ++c)
    m_breakdown->resizeColumnToContents(c);
}

}  // namespace fathom::views
