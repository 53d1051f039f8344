// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_view.h"

#include "timeline/plan_lane_painter.h"
#include "timeline/time_coords.h"
#include "timeline/timeline_loader.h"
#include "timeline/timeline_overlays.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <utility>

namespace fathom::views {

namespace {

/// A slice's colour from its name, so that one op has one colour everywhere (Perfetto's rule); merged rectangles
/// are drawn darker, so that a column of many slices does not read as one long slice.
QColor sliceColour(trace::NameId name, bool merged) {
  const auto hash = static_cast<std::uint32_t>(name) * 2654435761u;  // Knuth's multiplicative hash
  const QColor colour = QColor::fromHsv(static_cast<int>(hash % 360), 110 + static_cast<int>((hash >> 9) % 60), 215);
  return merged ? colour.darker(125) : colour;
}

}  // namespace

TimelineView::TimelineView(QWidget* parent) : TimelineView(Options{}, parent) {}

TimelineView::TimelineView(const Options& options, QWidget* parent)
    : QAbstractScrollArea(parent), m_options(options), m_layout({.rowHeight = options.rowHeight,
                                                                 .counterHeight = options.counterHeight,
                                                                 .processHeight = options.processHeight,
                                                                 .planHeight = 2 * options.rowHeight}),
      m_planLanes(std::make_unique<PlanLanePainter>()), m_loader(new TimelineLoader(this)) {
  setFocusPolicy(Qt::StrongFocus);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);  // a fixed plot width: the bar does not come and go with rows
  viewport()->setMouseTracking(true);
  // paintEvent fills the whole viewport itself: Qt's own background fill before it would write every pixel twice.
  viewport()->setAutoFillBackground(false);
  viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
  connect(verticalScrollBar(), &QScrollBar::valueChanged, viewport(), qOverload<>(&QWidget::update));

  m_loadPanel = new QWidget(viewport());
  m_loadPanel->setAutoFillBackground(true);
  auto* layout = new QHBoxLayout(m_loadPanel);
  m_loadLabel = new QLabel(m_loadPanel);
  m_loadProgress = new QProgressBar(m_loadPanel);
  m_loadProgress->setRange(0, 1000);
  m_cancelButton = new QPushButton(tr("Cancel"), m_loadPanel);
  layout->addWidget(m_loadLabel);
  layout->addWidget(m_loadProgress, 1);
  layout->addWidget(m_cancelButton);
  m_loadPanel->hide();
  connect(m_cancelButton, &QPushButton::clicked, this, &TimelineView::cancelLoad);

  connect(m_loader, &TimelineLoader::progress, this,
          [this](double fraction) { m_loadProgress->setValue(static_cast<int>(std::lround(fraction * 1000))); });
  connect(m_loader, &TimelineLoader::loaded, this, [this] {
    showLoadPanel(false);
    m_error.clear();
    setIndex(m_loader->index());
    emit loaded();
  });
  connect(m_loader, &TimelineLoader::failed, this, [this](const QString& message) {
    showLoadPanel(false);
    m_error = tr("Could not load the trace %1: %2").arg(m_loadingPath, message);
    viewport()->update();
    emit loadFailed(m_error);
  });
  connect(m_loader, &TimelineLoader::cancelled, this, [this] { showLoadPanel(false); });
}

TimelineView::~TimelineView() = default;

void TimelineView::open(const QString& path) {
  m_loadingPath = path;
  m_loadLabel->setText(tr("Loading %1…").arg(QFileInfo(path).fileName()));
  m_loadProgress->setValue(0);
  showLoadPanel(true);
  m_loader->load(path);
}

void TimelineView::cancelLoad() {
  m_loader->cancel();
}

bool TimelineView::isLoading() const {
  return m_loader->isLoading();
}

void TimelineView::showLoadPanel(bool show) {
  if (show) {
    m_loadPanel->resize(std::min(viewport()->width(), 600), m_loadPanel->sizeHint().height());
    m_loadPanel->move((viewport()->width() - m_loadPanel->width()) / 2, m_options.rulerHeight + 8);
    m_loadPanel->raise();
  }
  m_loadPanel->setVisible(show);
}

void TimelineView::setIndex(std::shared_ptr<const trace::TimelineIndex> index) {
  m_index = std::move(index);
  m_planLanes->setIndex(m_index.get());
  m_layout.setIndex(m_index.get());  // the charts' scales: once per load, O(samples)
  setIndexColours();
  updatePlanRows();
  selectSlice(std::nullopt);  // references into the old index mean nothing in the new one
  clearAreaSelection();
  fit();
  emit indexChanged();
}

void TimelineView::updateIndex(std::shared_ptr<const trace::TimelineIndex> index) {
  if (!m_index || !index) {
    setIndex(std::move(index));
    return;
  }
  const bool wasFit = isFit();
  const auto baseOf = [](const trace::TimelineIndex& i) -> std::int64_t {
    const auto it = i.data().metadata.find("baseTimeNanoseconds");
    return it != i.data().metadata.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
  };
  const std::int64_t shift = baseOf(*m_index) - baseOf(*index);  // old trace time + shift = new trace time
  const trace::TimeRange range{m_range.startNs + shift, m_range.endNs + shift};
  const int scroll = verticalScrollBar()->value();
  // The previous index stays alive until the layout has compared the new one against it (it holds a raw pointer;
  // freeing it first was a use-after-free found by the asan suite).
  const std::shared_ptr<const trace::TimelineIndex> previous = std::move(m_index);
  m_index = std::move(index);
  m_planLanes->setIndex(m_index.get());
  m_layout.updateIndex(m_index.get());  // the same lanes keep their arrangement (collapse, order, pins)
  setIndexColours();
  updatePlanRows();
  selectSlice(std::nullopt);
  clearAreaSelection();
  fit();
  if (!wasFit)
    setVisibleRange(range);
  verticalScrollBar()->setValue(scroll);
  emit indexChanged();
}

bool TimelineView::isFit() const {
  return m_index && m_range.startNs <= m_index->data().startNs &&
         m_range.endNs >= std::max(m_index->data().endNs, m_index->data().startNs + kMinRangeNs);
}

void TimelineView::setIndexColours() {
  m_chartColours.clear();
  for (const CounterChart& chart : m_layout.charts()) {
    std::vector<QColor> colours;
    for (std::size_t s = 0; s < chart.series.size(); ++s)
      colours.push_back(chart.series.size() == 1 ? palette().color(QPalette::Highlight) : seriesColour(s));
    m_chartColours.push_back(std::move(colours));
  }
  // Slice colours per name, plain and merged, once per load: QColor::fromHsv per rectangle showed in profiles.
  m_nameColours.clear();
  if (m_index) {
    m_nameColours.reserve(2 * m_index->names().size());
    for (std::size_t n = 0; n < m_index->names().size(); ++n) {
      m_nameColours.push_back(sliceColour(static_cast<trace::NameId>(n), false).rgb());
      m_nameColours.push_back(sliceColour(static_cast<trace::NameId>(n), true).rgb());
    }
  }
  m_matches.reset();
  m_matchesByLane.clear();
  m_currentMatch.reset();
}

void TimelineView::updatePlanRows() {
  std::vector<std::uint32_t> processes;
  for (std::uint32_t p = 0; m_index && p < m_index->processes().size(); ++p)
    if (m_planLanes->hasLane(p))
      processes.push_back(p);
  m_layout.setPlanProcesses(processes);
  relayout();
}

void TimelineView::setPlan(const plan::PlannedStep& step) {
  m_planLanes->setPlan(step);
  updatePlanRows();
  emit planChanged();
}

void TimelineView::setPlan(const plan::Prediction& prediction, const plan::Plan& plan) {
  setPlan(plan::plannedStep(prediction, plan));
}

void TimelineView::clearPlan() {
  m_planLanes->setPlan(std::nullopt);
  updatePlanRows();
  emit planChanged();
}

int TimelineView::planLaneCount() const {
  const auto& rows = m_layout.rows();
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.kind == Row::Kind::Plan; }));
}

void TimelineView::changeLayout(const std::function<void(TimelineLayout&)>& change) {
  if (!m_index)
    return;
  change(m_layout);
  relayout();
  emit layoutChanged();
}

void TimelineView::relayout() {
  updateScrollBar();
  viewport()->update();
}

int TimelineView::scrollTop() const {
  return m_options.rulerHeight + m_layout.pinnedHeight();
}

void TimelineView::updateScrollBar() {
  const int visible = std::max(0, viewport()->height() - scrollTop());
  verticalScrollBar()->setRange(0, std::max(0, m_layout.contentHeight() - visible));
  verticalScrollBar()->setPageStep(visible);
  verticalScrollBar()->setSingleStep(m_options.rowHeight);
}

int TimelineView::plotWidth() const {
  return std::max(1, viewport()->width() - m_options.headerWidth);
}

int TimelineView::laneCount() const {
  const auto lanes = [](const std::vector<Row>& rows) {
    return static_cast<int>(std::count_if(rows.begin(), rows.end(),
                                          [](const Row& r) { return r.kind == Row::Kind::Slices && r.depth == 0; }));
  };
  return lanes(m_layout.pinnedRows()) + lanes(m_layout.rows());
}

QStringList TimelineView::headers() const {
  QStringList out;
  for (const std::vector<Row>* rows : {&m_layout.pinnedRows(), &m_layout.rows()})
    for (const Row& row : *rows)
      if (row.kind != Row::Kind::Counter && !row.header.isEmpty())
        out << row.header;
  return out;
}

void TimelineView::setVisibleRange(trace::TimeRange range) {
  if (!m_index)
    return;
  const std::int64_t traceStart = m_index->data().startNs;
  const std::int64_t traceEnd = std::max(m_index->data().endNs, m_planLanes->extentEndNs().value_or(0));
  const std::int64_t traceLength = std::max(kMinRangeNs, traceEnd - traceStart);
  const std::int64_t length = std::clamp(range.endNs - range.startNs, kMinRangeNs, traceLength);
  const std::int64_t start = std::clamp(range.startNs, traceStart, traceStart + traceLength - length);
  const trace::TimeRange clamped{start, start + length};
  if (clamped.startNs == m_range.startNs && clamped.endNs == m_range.endNs)
    return;
  m_range = clamped;
  viewport()->update();
  emit visibleRangeChanged(m_range.startNs, m_range.endNs);
}

void TimelineView::fit() {
  if (!m_index)
    return;
  setVisibleRange({m_index->data().startNs, m_index->data().endNs});
}

void TimelineView::zoomBy(double factor, std::int64_t centreNs) {
  const double length = static_cast<double>(m_range.endNs - m_range.startNs);
  const double before = static_cast<double>(centreNs - m_range.startNs);
  const auto start = centreNs - static_cast<std::int64_t>(std::llround(before * factor));
  const auto newLength = std::max(kMinRangeNs, static_cast<std::int64_t>(std::llround(length * factor)));
  setVisibleRange({start, start + newLength});
}

void TimelineView::panBy(double fraction) {
  const auto shift =
      static_cast<std::int64_t>(std::llround(static_cast<double>(m_range.endNs - m_range.startNs) * fraction));
  setVisibleRange({m_range.startNs + shift, m_range.endNs + shift});
}

void TimelineView::setTimeMode(TimeMode mode) {
  m_timeMode = mode;
  viewport()->update();
}

std::int64_t TimelineView::cursorTime() const {
  if (m_cursorX < 0)
    return m_range.startNs + (m_range.endNs - m_range.startNs) / 2;
  return pixelToTime(m_range, plotWidth(), m_cursorX);
}

const TimelineView::Row* TimelineView::rowAt(int y) const {
  if (y < m_options.rulerHeight)
    return nullptr;
  if (y < scrollTop())
    return m_layout.pinnedRowAt(y - m_options.rulerHeight);
  return m_layout.rowAt(y - scrollTop() + verticalScrollBar()->value());
}

std::optional<int> TimelineView::laneRowY(std::uint32_t lane, std::uint32_t depth) const {
  const Row* row = m_layout.findSliceRow(lane, depth);
  if (!row)
    return std::nullopt;
  return rowTopY(*row);
}

int TimelineView::contentY(int viewportY) const {
  return viewportY - scrollTop() + verticalScrollBar()->value();
}

int TimelineView::viewportY(int contentY) const {
  return contentY + scrollTop() - verticalScrollBar()->value();
}

int TimelineView::rowTopY(const Row& row) const {
  return row.pinned ? m_options.rulerHeight + row.top : scrollTop() + row.top - verticalScrollBar()->value();
}

void TimelineView::ensureLaneVisible(std::uint32_t lane, std::uint32_t depth) {
  if (!m_index || lane >= m_index->lanes().size())
    return;
  const TimelineLayout& layout = m_layout;
  if (layout.isProcessCollapsed(m_index->lane(lane).process) || layout.isLaneCollapsed(lane))
    changeLayout([lane](TimelineLayout& l) { l.expandToLane(lane); });
  const Row* row = m_layout.findSliceRow(lane, depth);
  if (!row || row->pinned)
    return;
  const int visible = std::max(0, viewport()->height() - scrollTop());
  QScrollBar* bar = verticalScrollBar();
  if (row->top < bar->value())
    bar->setValue(row->top);
  else if (row->top + row->height > bar->value() + visible)
    bar->setValue(row->top + row->height - visible);
}

void TimelineView::setSearchMatches(std::shared_ptr<const std::vector<trace::SliceRef>> matches) {
  m_matches = std::move(matches);
  m_matchesByLane.assign(m_index ? m_index->lanes().size() : 0, {});
  if (m_matches) {
    // Per lane, by slice index: within a depth, indices are in start order, so a row's visible matches are a binary
    // search away (paintMatches). O(matches log matches) once per search.
    for (const trace::SliceRef& ref : *m_matches)
      if (ref.lane < m_matchesByLane.size())
        m_matchesByLane[ref.lane].push_back(ref.index);
    for (auto& lane : m_matchesByLane)
      std::sort(lane.begin(), lane.end());
  }
  viewport()->update();
}

void TimelineView::setCurrentMatch(std::optional<trace::SliceRef> current) {
  m_currentMatch = current;
  viewport()->update();
}

QString TimelineView::toolTipAt(const QPoint& pos) const {
  const Row* row = m_index ? rowAt(pos.y()) : nullptr;
  const int x = pos.x() - m_options.headerWidth;
  if (!row || x < 0 || x >= plotWidth())
    return {};
  const std::int64_t t = pixelToTime(m_range, plotWidth(), x);
  const std::int64_t origin = m_timeMode == TimeMode::SinceTraceStart ? m_index->data().startNs : 0;
  if (row->kind == Row::Kind::Slices) {
    if (const auto instant = instantAtPos(pos)) {
      const trace::TimelineLane& lane = m_index->lane(instant->first);
      return tr("%1\ninstant at %2")
          .arg(QString::fromUtf8(m_index->name(lane.instantName[instant->second])),
               formatTime(lane.instantTs[instant->second] - origin, 1));
    }
    const std::optional<trace::SliceRef> slice = sliceAtPos(pos);
    if (!slice)
      return {};
    const trace::TimelineLane& lane = m_index->lane(slice->lane);
    const std::int64_t duration = lane.duration(slice->index);
    return tr("%1\nduration %2, start %3")
        .arg(QString::fromUtf8(m_index->name(lane.name[slice->index])),
             formatTime(duration, std::max<std::int64_t>(1, duration / 100)),
             formatTime(lane.start[slice->index] - origin, 1000));
  }
  if (row->kind == Row::Kind::Plan)
    return m_planLanes->toolTipAt(row->item, (pos.y() - rowTopY(*row)) / m_options.rowHeight, t);
  if (row->kind == Row::Kind::Counter) {
    // One line per series (a stacked chart's legend order, top first), then the stack's total.
    const CounterChart& chart = m_layout.charts()[row->item];
    if (chart.series.size() == 1) {
      if (const auto value = trace::counterValueAt(m_index->counters()[chart.series[0]], t))
        return row->header + QLatin1String(": ") + QLocale().toString(*value, 'g', 6);
      return {};
    }
    QStringList lines;
    double total = 0;
    bool any = false;
    for (auto s = chart.series.rbegin(); s != chart.series.rend(); ++s) {
      const trace::TimelineCounter& series = m_index->counters()[*s];
      const auto value = trace::counterValueAt(series, t);
      any = any || value.has_value();
      total += value.value_or(0.0);
      lines << QString::fromStdString(series.series) + QLatin1String(": ") +
                   QLocale().toString(value.value_or(0.0), 'g', 6);
    }
    if (!any)
      return {};
    lines.prepend(tr("%1: %2 in total").arg(row->header, QLocale().toString(total, 'g', 6)));
    return lines.join(u'\n');
  }
  return {};
}

}  // namespace fathom::views
