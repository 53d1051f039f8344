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

void TimelineView::paintEvent(QPaintEvent*) {
  QElapsedTimer timer;
  timer.start();
  QPainter painter(viewport());
  m_stats = {};
  m_planLanes->beginFrame();
  const int pixels = plotWidth();
  m_stats.pixels = pixels;
  m_bands.clear();
  if (m_index) {
    m_bands = stepBandColumns(*m_index, m_range, pixels);  // O(steps), once per frame
    m_bandColour = stepBandColour(palette());
  }
  if (!m_index) {
    painter.fillRect(viewport()->rect(), palette().base());
    const QString text = !m_error.isEmpty() ? m_error : isLoading() ? QString() : tr("No trace loaded");
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(viewport()->rect().adjusted(16, m_options.rulerHeight, -16, -16),
                     Qt::AlignCenter | Qt::TextWordWrap, text);
    return;
  }
  const int scroll = verticalScrollBar()->value();
  const int bottom = viewport()->height();
  const int top = scrollTop();
  // Only rows on screen are queried and painted: the layout finds them by binary search (rows are sorted by top), so
  // a frame costs O(rows on screen x pixels), whatever the number of lanes.
  painter.setClipRect(0, top, viewport()->width(), std::max(0, bottom - top));
  // Each row fills its own background (a zoomed-out row's plot is an image: filling under it too would write its
  // pixels twice, and fills are memory-bound); below the last row, the base colour.
  for (const Row& row : m_layout.rowsIn(scroll, scroll + bottom - top))
    paintRow(painter, row, top + row.top - scroll, pixels);
  if (const int end = top + m_layout.contentHeight() - scroll; end < bottom)
    painter.fillRect(0, std::max(end, top), viewport()->width(), bottom - std::max(end, top), palette().base());
  paintOverlays(painter, OverlayRegion::Scrolling, true);
  paintOverlays(painter, OverlayRegion::Scrolling, false);
  // Pinned rows last, over the scrolled ones, between the ruler and the scrolling rows.
  if (!m_layout.pinnedRows().empty()) {
    painter.setClipRect(0, m_options.rulerHeight, viewport()->width(), m_layout.pinnedHeight());
    painter.fillRect(0, m_options.rulerHeight, viewport()->width(), m_layout.pinnedHeight(), palette().base());
    for (const Row& row : m_layout.pinnedRows())
      paintRow(painter, row, m_options.rulerHeight + row.top, pixels);
    paintOverlays(painter, OverlayRegion::Pinned, true);
    paintOverlays(painter, OverlayRegion::Pinned, false);
    painter.setClipping(false);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawLine(0, top - 1, viewport()->width(), top - 1);
  }
  painter.setClipping(false);
  paintRuler(painter, pixels);
  if (m_headerDragging && m_headerPress && !m_headerPress->pinned) {
    // Where a dragged header would land (headerDropped's rule): a line over the sibling under the cursor.
    const Row* target = rowAt(m_headerDragY);
    const Row* sibling = nullptr;
    if (target && !target->pinned && m_headerPress->kind == Row::Kind::Process) {
      const auto& rows = m_layout.rows();
      const auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) {
        return r.kind == Row::Kind::Process && r.item == target->process;
      });
      sibling = it != rows.end() ? &*it : nullptr;
    } else if (target && !target->pinned && target->kind == Row::Kind::Slices &&
               target->process == m_headerPress->process) {
      sibling = m_layout.findSliceRow(target->item, 0);
    }
    if (sibling)
      painter.fillRect(0, rowTopY(*sibling) - 1, viewport()->width(), 2, palette().color(QPalette::Highlight));
  }
  m_stats.milliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void TimelineView::paintRow(QPainter& painter, const Row& row, int y, int pixels) {
  switch (row.kind) {
  case Row::Kind::Process: painter.fillRect(0, y, viewport()->width(), row.height, palette().alternateBase()); break;
  case Row::Kind::Slices: paintSlices(painter, row, y, pixels); break;
  case Row::Kind::Counter: paintCounter(painter, row, y, pixels); break;
  case Row::Kind::Plan:
    painter.fillRect(0, y, viewport()->width(), row.height, palette().base());
    m_planLanes->paint(painter, row.item, m_range, m_options.headerWidth, pixels, y, m_options.rowHeight);
    break;
  }
  paintHeader(painter, row, y);
}

void TimelineView::paintHeader(QPainter& painter, const Row& row, int y) {
  if (row.header.isEmpty())
    return;
  // A disclosure triangle for what collapses (pointing right when collapsed), then the title, indented per level.
  const int indent = row.kind == Row::Kind::Process ? 2 : 10;
  const int width = (row.kind == Row::Kind::Process ? viewport()->width() : m_options.headerWidth) - indent - 16;
  const int lineHeight = row.kind == Row::Kind::Counter && m_layout.charts()[row.item].series.size() > 1
                             ? m_layout.options().legendLineHeight
                             : row.height;
  if (row.expandable) {
    const int cx = indent + 5;
    const int cy = y + std::min(row.height, m_options.rowHeight) / 2;
    const QPolygon triangle = row.collapsed
                                  ? QPolygon({QPoint(cx - 2, cy - 4), QPoint(cx + 2, cy), QPoint(cx - 2, cy + 4)})
                                  : QPolygon({QPoint(cx - 4, cy - 2), QPoint(cx + 4, cy - 2), QPoint(cx, cy + 2)});
    painter.setPen(Qt::NoPen);
    painter.setBrush(palette().color(QPalette::Text));
    painter.drawPolygon(triangle);
    painter.setBrush(Qt::NoBrush);
  }
  painter.setPen(palette().color(QPalette::Text));
  const QRect text(indent + 12, y, width, lineHeight);
  painter.drawText(text, Qt::AlignVCenter | Qt::AlignLeft,
                   painter.fontMetrics().elidedText(row.header, Qt::ElideRight, text.width()));
  if (row.kind != Row::Kind::Counter || lineHeight == row.height)
    return;
  // A stacked chart's legend: one line per series, top of the stack first, with its colour.
  const CounterChart& chart = m_layout.charts()[row.item];
  int line = y + lineHeight;
  for (std::size_t i = chart.series.size(); i-- > 0; line += lineHeight) {
    painter.fillRect(indent + 12, line + 2, 8, lineHeight - 4, m_chartColours[row.item][i]);
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(
        QRect(indent + 24, line, width - 12, lineHeight), Qt::AlignVCenter | Qt::AlignLeft,
        painter.fontMetrics().elidedText(QString::fromStdString(m_index->counters()[chart.series[i]].series),
                                         Qt::ElideRight, width - 12));
  }
}

void TimelineView::paintSlices(QPainter& painter, const Row& row, int y, int pixels) {
  const trace::TimelineLane& lane = m_index->lane(row.item);
  const int left = m_options.headerWidth;
  ++m_stats.rows;
  if (row.depth >= lane.depthCount()) {
    painter.fillRect(0, y, viewport()->width(), row.height, palette().base());
    fillBands(painter, row, y, row.height, false);
    return;
  }
  trace::mergeForPixels(lane, row.depth, m_range, static_cast<std::uint32_t>(pixels), m_merged);
  // Zoomed out, a row is a rectangle in almost every pixel column: its columns are written into one line of pixels
  // and drawn as one image (a fillRect call per column cost more than the queries at 10M events). Zoomed in, touching
  // rectangles of one colour are filled as one. Names are drawn last, over either.
  const bool asImage = m_merged.size() > kRowImageRectangles;
  if (asImage) {
    m_rowLine.assign(static_cast<std::size_t>(pixels), palette().color(QPalette::Base).rgb());
    fillAround(painter, QRect(left, y + 1, pixels, row.height - 2), y, row.height);
    fillBands(painter, row, y, row.height, true);
  } else {
    painter.fillRect(0, y, viewport()->width(), row.height, palette().base());
    fillBands(painter, row, y, row.height, false);
  }
  m_labels.clear();
  QRect run;
  QRgb runColour = 0;
  for (const trace::MergedSlice& slice : m_merged) {
    const int x0 = static_cast<int>(slice.column);
    const int x1 = std::clamp(static_cast<int>(std::ceil(timeToPixel(m_range, pixels, slice.endNs))), x0 + 1, pixels);
    const QRgb colour = m_nameColours[2 * std::size_t{lane.name[slice.longest]} + (slice.count > 1 ? 1 : 0)];
    ++m_stats.rectangles;
    if (x1 - x0 >= m_options.minLabelWidth)
      m_labels.push_back({x0, x1, lane.name[slice.longest]});
    if (asImage) {
      std::fill(m_rowLine.begin() + x0, m_rowLine.begin() + x1, colour);
      continue;
    }
    const QRect rect(left + x0, y + 1, x1 - x0, row.height - 2);
    if (!run.isEmpty() && colour == runColour && rect.left() <= run.right() + 1) {
      run.setRight(std::max(run.right(), rect.right()));
    } else {
      if (!run.isEmpty())
        painter.fillRect(run, QColor(runColour));
      run = rect;
      runColour = colour;
    }
  }
  if (!run.isEmpty())
    painter.fillRect(run, QColor(runColour));
  if (asImage) {
    const int h = row.height - 2;
    if (m_rowImage.width() < pixels || m_rowImage.height() < h)
      m_rowImage = QImage(std::max(pixels, m_rowImage.width()), std::max(h, m_rowImage.height()), QImage::Format_RGB32);
    for (int line = 0; line < h; ++line)
      std::copy(m_rowLine.begin(), m_rowLine.end(), reinterpret_cast<QRgb*>(m_rowImage.scanLine(line)));
    painter.drawImage(QPoint(left, y + 1), m_rowImage, QRect(0, 0, pixels, h));
  }
  painter.setPen(Qt::black);
  for (const Label& label : m_labels) {
    const QRect rect(left + label.x0, y + 1, label.x1 - label.x0, row.height - 2);
    painter.drawText(rect.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                     painter.fontMetrics().elidedText(QString::fromUtf8(m_index->name(label.name)), Qt::ElideRight,
                                                      rect.width() - 4));
    ++m_stats.labels;
  }
  if (!m_matchesByLane.empty() && !m_matchesByLane[row.item].empty())
    paintMatches(painter, row.item, row.depth, y, row.height, pixels);
}

void TimelineView::fillBands(QPainter& painter, const Row& row, int y, int height, bool line) {
  if (m_bands.empty())
    return;
  const std::optional<int> rank = m_index->processes()[row.process].rank;
  const int left = m_options.headerWidth;
  for (const StepBandColumns& band : m_bands) {
    if (band.rank != rank)
      continue;
    if (line) {  // the image's line, and the pixel row above and below it that fillAround painted
      std::fill(m_rowLine.begin() + band.x0, m_rowLine.begin() + band.x1, m_bandColour);
      painter.fillRect(left + band.x0, y, band.x1 - band.x0, 1, QColor(m_bandColour));
      painter.fillRect(left + band.x0, y + height - 1, band.x1 - band.x0, 1, QColor(m_bandColour));
    } else {
      painter.fillRect(left + band.x0, y, band.x1 - band.x0, height, QColor(m_bandColour));
    }
  }
}

void TimelineView::paintMatches(QPainter& painter, std::uint32_t laneId, std::uint32_t depth, int y, int height,
                                int pixels) {
  const trace::TimelineLane& lane = m_index->lane(laneId);
  const std::vector<std::uint32_t>& matches = m_matchesByLane[laneId];
  // The visible window of this depth, then its matches: indices in [begin, end) are in start order, so two binary
  // searches find them; after outlining a match, the next one drawn is the first starting in a later pixel column
  // (another binary search), so a row outlines at most one match per column, whatever the matches.
  const trace::SliceWindow window = trace::visibleSlices(lane, depth, m_range);
  auto it = std::lower_bound(matches.begin(), matches.end(), window.begin);
  const auto last = std::lower_bound(it, matches.end(), window.end);
  const int left = m_options.headerWidth;
  painter.setBrush(Qt::NoBrush);
  painter.setPen(QPen(QColor(255, 214, 0), 1));
  while (it != last) {
    const std::uint32_t i = *it;
    const int x0 = std::max(0, static_cast<int>(std::floor(timeToPixel(m_range, pixels, lane.start[i]))));
    const int x1 = std::clamp(static_cast<int>(std::ceil(timeToPixel(m_range, pixels, lane.end[i]))), x0 + 1, pixels);
    painter.drawRect(left + x0, y, x1 - x0 - 1, height - 1);
    ++m_stats.matchOutlines;
    // Galloping from here, not bisecting the rest: the next column's match is near, and each probe reads the lane's
    // start array at a match's index (a cache miss at millions of matches).
    const std::int64_t next = pixelToTime(m_range, pixels, x1);
    const auto before = [&](std::uint32_t j) { return lane.start[j] < next; };
    auto lo = it + 1;
    std::ptrdiff_t step = 1;
    while (step < last - lo && before(lo[step])) {
      lo += step;
      step *= 2;
    }
    it = std::partition_point(lo, lo + std::min(step + 1, last - lo), before);
  }
  if (m_currentMatch && m_currentMatch->lane == laneId && lane.depthOf(m_currentMatch->index) == depth) {
    const std::uint32_t i = m_currentMatch->index;
    if (lane.end[i] >= m_range.startNs && lane.start[i] <= m_range.endNs) {
      const int x0 = std::max(0, static_cast<int>(std::floor(timeToPixel(m_range, pixels, lane.start[i]))));
      const int x1 = std::clamp(static_cast<int>(std::ceil(timeToPixel(m_range, pixels, lane.end[i]))), x0 + 2, pixels);
      painter.setPen(QPen(QColor(255, 128, 0), 2));
      painter.drawRect(left + x0 + 1, y + 1, x1 - x0 - 2, height - 2);
    }
  }
}

void TimelineView::paintCounter(QPainter& painter, const Row& row, int y, int pixels) {
  const CounterChart& chart = m_layout.charts()[row.item];
  m_stats.rows += static_cast<int>(chart.series.size());
  stackCounterColumns(*m_index, chart, m_range, pixels, m_stack, m_counterPixels);
  const QRect plot(m_options.headerWidth, y + 2, pixels, row.height - 4);
  fillAround(painter, plot, y, row.height);  // paintCounterStack paints all of the plot
  m_stats.rectangles += paintCounterStack(painter, plot, chart, m_stack, m_chartColours[row.item],
                                          palette().color(QPalette::Base), m_chartImage);
}

void TimelineView::fillAround(QPainter& painter, const QRect& plot, int y, int height) {
  const QBrush base = palette().base();
  painter.fillRect(0, y, plot.left(), height, base);                                          // the header column
  painter.fillRect(plot.left(), y, viewport()->width() - plot.left(), plot.top() - y, base);  // above the plot
  painter.fillRect(plot.left(), plot.bottom() + 1, viewport()->width() - plot.left(), y + height - plot.bottom() - 1,
                   base);  // below it
  painter.fillRect(plot.right() + 1, plot.top(), viewport()->width() - plot.right() - 1, plot.height(), base);
}

void TimelineView::paintRuler(QPainter& painter, int pixels) {
  const int left = m_options.headerWidth;
  const int h = m_options.rulerHeight;
  painter.fillRect(0, 0, viewport()->width(), h, palette().window());
  painter.setPen(palette().color(QPalette::WindowText));
  const std::int64_t step = tickStep(m_range, pixels, 100);
  const std::int64_t origin = m_timeMode == TimeMode::SinceTraceStart ? m_index->data().startNs : 0;
  const std::int64_t length = m_range.endNs - m_range.startNs;
  painter.drawText(QRect(4, 0, left - 8, h), Qt::AlignVCenter | Qt::AlignLeft,
                   m_timeMode == TimeMode::SinceTraceStart
                       ? tr("since start, %1 shown").arg(formatTime(length, length))
                       : tr("trace clock, %1 shown").arg(formatTime(length, length)));
  // Ticks at multiples of `step` in the displayed clock.
  const std::int64_t firstShown = m_range.startNs - origin;
  std::int64_t tick = (firstShown >= 0 ? (firstShown + step - 1) / step : -((-firstShown) / step)) * step;
  for (; tick + origin <= m_range.endNs; tick += step) {
    const int x = left + static_cast<int>(std::lround(timeToPixel(m_range, pixels, tick + origin)));
    painter.drawLine(x, h - 6, x, h);
    painter.drawText(x + 3, h - 8, formatTime(tick, step));
  }
  painter.drawLine(0, h - 1, viewport()->width(), h - 1);
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QAbstractScrollArea::resizeEvent(event);
  updateScrollBar();
  if (m_loadPanel->isVisible())
    showLoadPanel(true);
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  if (!m_index || event->modifiers().testFlag(Qt::ShiftModifier)) {
    QAbstractScrollArea::wheelEvent(event);  // Shift+wheel scrolls the rows
    return;
  }
  const double notches = event->angleDelta().y() / 120.0;
  if (notches == 0)
    return;
  m_cursorX = static_cast<int>(event->position().x()) - m_options.headerWidth;
  if (m_cursorX < 0 || m_cursorX >= plotWidth())
    m_cursorX = -1;
  zoomBy(std::pow(m_options.zoomStep, notches), cursorTime());
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !m_index)
    return QAbstractScrollArea::mousePressEvent(event);
  if (const QPoint pos = event->position().toPoint(); pos.x() < m_options.headerWidth) {
    // The header column: a click collapses or expands, a drag moves the process or lane.
    const Row* row = rowAt(pos.y());
    if (row && !row->header.isEmpty() && (row->kind == Row::Kind::Process || row->kind == Row::Kind::Slices)) {
      m_headerPress = *row;
      m_headerPressPos = pos;
      m_headerDragging = false;
    }
    return;
  }
  m_pressPos = event->position().toPoint();
  if (event->modifiers().testFlag(Qt::ShiftModifier)) {  // Shift+drag selects an area; a plain drag pans
    m_boxing = true;
    m_boxStartNs =
        pixelToTime(m_range, plotWidth(), std::clamp(m_pressPos.x() - m_options.headerWidth, 0, plotWidth()));
    m_boxStartY = contentY(m_pressPos.y());
    m_boxPreview.reset();
    return;
  }
  m_dragging = true;
  m_dragX = static_cast<int>(event->position().x());
  m_dragRange = m_range;
  viewport()->setCursor(Qt::ClosedHandCursor);
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  const int x = static_cast<int>(event->position().x());
  m_cursorX = x >= m_options.headerWidth && x < m_options.headerWidth + plotWidth() ? x - m_options.headerWidth : -1;
  if (m_headerPress) {
    if (!m_headerDragging &&
        (event->position().toPoint() - m_headerPressPos).manhattanLength() >= QApplication::startDragDistance()) {
      m_headerDragging = true;
      viewport()->setCursor(Qt::SizeVerCursor);
    }
    if (m_headerDragging) {
      m_headerDragY = static_cast<int>(event->position().y());
      viewport()->update();  // the drop line follows
    }
    return;
  }
  if (m_boxing) {
    updateBox(event->position().toPoint());
    return;
  }
  if (!m_dragging) {
    const QString tip = toolTipAt(event->position().toPoint());
    if (tip.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(event->globalPosition().toPoint(), tip, viewport());
    return;
  }
  const double nsPerPixel = static_cast<double>(m_dragRange.endNs - m_dragRange.startNs) / plotWidth();
  const auto shift = static_cast<std::int64_t>(std::llround((m_dragX - x) * nsPerPixel));
  setVisibleRange({m_dragRange.startNs + shift, m_dragRange.endNs + shift});
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && m_headerPress) {
    const Row row = *m_headerPress;
    const bool dragged = m_headerDragging;
    m_headerPress.reset();
    m_headerDragging = false;
    viewport()->unsetCursor();
    if (dragged)
      headerDropped(row, static_cast<int>(event->position().y()));
    else
      headerClicked(row);
    return;
  }
  if (event->button() == Qt::LeftButton && m_boxing) {
    updateBox(event->position().toPoint());
    m_boxing = false;
    if (m_boxPreview) {
      selectSlice(std::nullopt);  // one selection at a time: the area replaces the slice
      setAreaSelection(m_boxPreview->range, m_boxPreview->lanes);
    }
    m_boxPreview.reset();
    viewport()->update();
  } else if (event->button() == Qt::LeftButton && m_dragging) {
    m_dragging = false;
    viewport()->unsetCursor();
    if ((event->position().toPoint() - m_pressPos).manhattanLength() < kClickSlop)
      clickAt(event->position().toPoint());
  }
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  // Plain keys only: Ctrl+F (the page's search) and other chords go to the parent.
  if (!m_index || (event->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)))
    return QAbstractScrollArea::keyPressEvent(event);
  switch (event->key()) {
  case Qt::Key_W: zoomBy(m_options.zoomStep, cursorTime()); break;
  case Qt::Key_S: zoomBy(1 / m_options.zoomStep, cursorTime()); break;
  case Qt::Key_A: panBy(-m_options.panStep); break;
  case Qt::Key_D: panBy(m_options.panStep); break;
  case Qt::Key_F: fitSelection(); break;
  case Qt::Key_Escape:
    selectSlice(std::nullopt);
    clearAreaSelection();
    break;
  case Qt::Key_T:
    setTimeMode(m_timeMode == TimeMode::SinceTraceStart ? TimeMode::TraceClock : TimeMode::SinceTraceStart);
    break;
  default: QAbstractScrollArea::keyPressEvent(event);
  }
}

}  // namespace fathom::views

namespace fathom::views {

void TimelineView::headerClicked(const Row& row) {
  if (!row.expandable)
    return;
  if (row.kind == Row::Kind::Process)
    changeLayout([&](TimelineLayout& l) { l.setProcessCollapsed(row.item, !row.collapsed); });
  else if (row.kind == Row::Kind::Slices)
    changeLayout([&](TimelineLayout& l) { l.setLaneCollapsed(row.item, !row.collapsed); });
}

void TimelineView::headerDropped(const Row& row, int dropY) {
  // Dropped on a row of the same kind's siblings: take that sibling's place in the order (a process among processes,
  // a lane among its process's lanes); elsewhere nothing moves.
  const Row* target = rowAt(dropY);
  if (!target || target->pinned || row.pinned)
    return;
  if (row.kind == Row::Kind::Process) {
    const auto& order = m_layout.processOrder();
    const auto at = std::find(order.begin(), order.end(), target->process);
    changeLayout([&](TimelineLayout& l) { l.moveProcessTo(row.item, static_cast<std::size_t>(at - order.begin())); });
  } else if (row.kind == Row::Kind::Slices && target->kind == Row::Kind::Slices && target->process == row.process) {
    const auto& order = m_layout.laneOrder(row.process);
    const auto at = std::find(order.begin(), order.end(), target->item);
    changeLayout([&](TimelineLayout& l) { l.moveLaneTo(row.item, static_cast<std::size_t>(at - order.begin())); });
  }
}

QMenu* TimelineView::createHeaderMenu(const QPoint& pos) {
  const Row* found = m_index && pos.x() < m_options.headerWidth ? rowAt(pos.y()) : nullptr;
  if (!found || (found->kind != Row::Kind::Process && found->kind != Row::Kind::Slices))
    return nullptr;
  const Row row = *found;
  auto* menu = new QMenu(this);
  const auto add = [&](const QString& text, const QString& name, bool enabled, auto&& change) {
    QAction* action = menu->addAction(text);
    action->setObjectName(name);
    action->setEnabled(enabled);
    connect(action, &QAction::triggered, this, [this, change] { changeLayout(change); });
  };
  using Move = TimelineLayout::Move;
  if (row.kind == Row::Kind::Process) {
    const auto& order = m_layout.processOrder();
    const bool first = order.front() == row.item;
    const bool last = order.back() == row.item;
    const std::uint32_t p = row.item;
    add(tr("Move Up"), QStringLiteral("moveUp"), !first, [p](TimelineLayout& l) { l.moveProcess(p, Move::Up); });
    add(tr("Move Down"), QStringLiteral("moveDown"), !last, [p](TimelineLayout& l) { l.moveProcess(p, Move::Down); });
    add(tr("Move to Top"), QStringLiteral("moveToTop"), !first,
        [p](TimelineLayout& l) { l.moveProcess(p, Move::ToTop); });
    menu->addSeparator();
    const bool collapsed = row.collapsed;
    add(collapsed ? tr("Expand") : tr("Collapse"), QStringLiteral("collapse"), true,
        [p, collapsed](TimelineLayout& l) { l.setProcessCollapsed(p, !collapsed); });
    return menu;
  }
  // A lane (its first row, or any of its depths).
  const std::uint32_t lane = row.item;
  const auto& order = m_layout.laneOrder(row.process);
  const bool pinned = m_layout.isLanePinned(lane);
  const bool first = order.front() == lane;
  const bool last = order.back() == lane;
  add(tr("Move Up"), QStringLiteral("moveUp"), !pinned && !first,
      [lane](TimelineLayout& l) { l.moveLane(lane, Move::Up); });
  add(tr("Move Down"), QStringLiteral("moveDown"), !pinned && !last,
      [lane](TimelineLayout& l) { l.moveLane(lane, Move::Down); });
  add(tr("Move to Top"), QStringLiteral("moveToTop"), !pinned && !first,
      [lane](TimelineLayout& l) { l.moveLane(lane, Move::ToTop); });
  menu->addSeparator();
  add(pinned ? tr("Unpin") : tr("Pin to Top"), QStringLiteral("pin"), true,
      [lane, pinned](TimelineLayout& l) { l.setLanePinned(lane, !pinned); });
  const bool collapsed = m_layout.isLaneCollapsed(lane);
  add(collapsed ? tr("Expand") : tr("Collapse"), QStringLiteral("collapse"), m_index->lane(lane).depthCount() > 1,
      [lane, collapsed](TimelineLayout& l) { l.setLaneCollapsed(lane, !collapsed); });
  return menu;
}

QMenu* TimelineView::createContextMenu(const QPoint& pos) {
  if (pos.x() < m_options.headerWidth)
    return createHeaderMenu(pos);
  if (actions().isEmpty())
    return nullptr;
  auto* menu = new QMenu(this);
  menu->addActions(actions());
  return menu;
}

void TimelineView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu* menu = createContextMenu(event->pos());
  if (!menu)
    return QAbstractScrollArea::contextMenuEvent(event);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->popup(event->globalPos());
}

}  // namespace fathom::views
