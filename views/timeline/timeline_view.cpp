// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_view.h"

#include "timeline/time_coords.h"
#include "timeline/timeline_loader.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
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
    : QAbstractScrollArea(parent), m_options(options), m_loader(new TimelineLoader(this)) {
  setFocusPolicy(Qt::StrongFocus);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);  // a fixed plot width: the bar does not come and go with rows
  viewport()->setMouseTracking(true);
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
  m_counterMax.clear();
  if (m_index) {
    // Once per load, O(samples): the top of each counter's chart, so that a chart's scale does not jump while panning.
    for (const trace::TimelineCounter& counter : m_index->counters()) {
      const auto top = std::max_element(counter.value.begin(), counter.value.end());
      m_counterMax.push_back(top == counter.value.end() ? 0.0 : *top);
    }
  }
  buildRows();
  fit();
}

void TimelineView::buildRows() {
  m_rows.clear();
  int top = 0;
  if (m_index) {
    const auto& processes = m_index->processes();
    for (std::uint32_t p = 0; p < processes.size(); ++p) {
      const trace::TimelineProcess& process = processes[p];
      QString title = QString::fromStdString(process.title);
      if (process.rank && !title.contains(QLatin1String("rank")))
        title = tr("rank %1 · %2").arg(*process.rank).arg(title);
      if (!process.labels.empty())
        title += QLatin1String(" (") + QString::fromStdString(process.labels) + u')';
      m_rows.push_back({Row::Kind::Process, p, 0, top, m_options.processHeight, title});
      top += m_options.processHeight;
      for (const std::uint32_t laneId : process.lanes) {
        const trace::TimelineLane& lane = m_index->lane(laneId);
        const std::uint32_t depths = std::max<std::uint32_t>(1, lane.depthCount());  // an empty lane keeps its header
        for (std::uint32_t d = 0; d < depths; ++d) {
          m_rows.push_back({Row::Kind::Slices, laneId, d, top, m_options.rowHeight,
                            d == 0 ? QString::fromStdString(lane.title) : QString()});
          top += m_options.rowHeight;
        }
      }
      for (const std::uint32_t c : process.counters) {
        const trace::TimelineCounter& counter = m_index->counters()[c];
        QString header = QString::fromUtf8(m_index->name(counter.name));
        if (!counter.series.empty())
          header += QLatin1String(": ") + QString::fromStdString(counter.series);
        m_rows.push_back({Row::Kind::Counter, c, 0, top, m_options.counterHeight, header});
        top += m_options.counterHeight;
      }
    }
  }
  m_contentHeight = top;
  updateScrollBar();
}

void TimelineView::updateScrollBar() {
  const int visible = std::max(0, viewport()->height() - m_options.rulerHeight);
  verticalScrollBar()->setRange(0, std::max(0, m_contentHeight - visible));
  verticalScrollBar()->setPageStep(visible);
  verticalScrollBar()->setSingleStep(m_options.rowHeight);
}

int TimelineView::plotWidth() const {
  return std::max(1, viewport()->width() - m_options.headerWidth);
}

int TimelineView::laneCount() const {
  return static_cast<int>(std::count_if(m_rows.begin(), m_rows.end(),
                                        [](const Row& r) { return r.kind == Row::Kind::Slices && r.depth == 0; }));
}

QStringList TimelineView::headers() const {
  QStringList out;
  for (const Row& row : m_rows)
    if (row.kind != Row::Kind::Counter && !row.header.isEmpty())
      out << row.header;
  return out;
}

void TimelineView::setVisibleRange(trace::TimeRange range) {
  if (!m_index)
    return;
  const std::int64_t traceStart = m_index->data().startNs;
  const std::int64_t traceLength = std::max(kMinRangeNs, m_index->data().endNs - traceStart);
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
  const int content = y - m_options.rulerHeight + verticalScrollBar()->value();
  const auto it =
      std::partition_point(m_rows.begin(), m_rows.end(), [&](const Row& r) { return r.top + r.height <= content; });
  return it != m_rows.end() && it->top <= content ? &*it : nullptr;
}

QString TimelineView::toolTipAt(const QPoint& pos) const {
  const Row* row = m_index ? rowAt(pos.y()) : nullptr;
  const int x = pos.x() - m_options.headerWidth;
  if (!row || x < 0 || x >= plotWidth())
    return {};
  const std::int64_t t = pixelToTime(m_range, plotWidth(), x);
  const std::int64_t origin = m_timeMode == TimeMode::SinceTraceStart ? m_index->data().startNs : 0;
  if (row->kind == Row::Kind::Slices) {
    const trace::TimelineLane& lane = m_index->lane(row->item);
    if (row->depth >= lane.depthCount())
      return {};
    const std::int64_t slack = 2 * std::max<std::int64_t>(1, (m_range.endNs - m_range.startNs) / plotWidth());
    const auto slice = trace::sliceAt(lane, row->depth, t, slack);
    if (!slice)
      return {};
    const std::int64_t duration = lane.duration(*slice);
    return tr("%1\nduration %2, start %3")
        .arg(QString::fromUtf8(m_index->name(lane.name[*slice])),
             formatTime(duration, std::max<std::int64_t>(1, duration / 100)),
             formatTime(lane.start[*slice] - origin, 1000));
  }
  if (row->kind == Row::Kind::Counter) {
    if (const auto value = trace::counterValueAt(m_index->counters()[row->item], t))
      return row->header + QLatin1String(": ") + QLocale().toString(*value, 'g', 6);
  }
  return {};
}

void TimelineView::paintEvent(QPaintEvent*) {
  QElapsedTimer timer;
  timer.start();
  QPainter painter(viewport());
  painter.fillRect(viewport()->rect(), palette().base());
  m_stats = {};
  const int pixels = plotWidth();
  m_stats.pixels = pixels;
  if (!m_index) {
    const QString text = !m_error.isEmpty() ? m_error : isLoading() ? QString() : tr("No trace loaded");
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(viewport()->rect().adjusted(16, m_options.rulerHeight, -16, -16),
                     Qt::AlignCenter | Qt::TextWordWrap, text);
    return;
  }
  const int scroll = verticalScrollBar()->value();
  const int bottom = viewport()->height();
  // Rows are sorted by top: find the first on screen with a binary search, stop at the first below it.
  auto first = std::partition_point(m_rows.begin(), m_rows.end(), [&](const Row& r) {
    return m_options.rulerHeight + r.top + r.height - scroll <= m_options.rulerHeight;
  });
  painter.setClipRect(0, m_options.rulerHeight, viewport()->width(), bottom - m_options.rulerHeight);
  for (auto it = first; it != m_rows.end(); ++it) {
    const int y = m_options.rulerHeight + it->top - scroll;
    if (y >= bottom)
      break;
    switch (it->kind) {
    case Row::Kind::Process:
      painter.fillRect(0, y, viewport()->width(), it->height, palette().alternateBase());
      painter.setPen(palette().color(QPalette::Text));
      painter.drawText(QRect(4, y, viewport()->width() - 8, it->height), Qt::AlignVCenter | Qt::AlignLeft, it->header);
      break;
    case Row::Kind::Slices: paintSlices(painter, *it, y, pixels); break;
    case Row::Kind::Counter: paintCounter(painter, *it, y, pixels); break;
    }
  }
  painter.setClipping(false);
  paintRuler(painter, pixels);
  m_stats.milliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

void TimelineView::paintSlices(QPainter& painter, const Row& row, int y, int pixels) {
  const trace::TimelineLane& lane = m_index->lane(row.item);
  const int left = m_options.headerWidth;
  if (!row.header.isEmpty()) {
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(12, y, left - 16, row.height), Qt::AlignVCenter | Qt::AlignLeft,
                     painter.fontMetrics().elidedText(row.header, Qt::ElideRight, left - 16));
  }
  ++m_stats.rows;
  if (row.depth >= lane.depthCount())
    return;
  trace::mergeForPixels(lane, row.depth, m_range, static_cast<std::uint32_t>(pixels), m_merged);
  const QColor textColour(Qt::black);
  for (const trace::MergedSlice& slice : m_merged) {
    const int x0 = static_cast<int>(slice.column);
    const int x1 = std::clamp(static_cast<int>(std::ceil(timeToPixel(m_range, pixels, slice.endNs))), x0 + 1, pixels);
    const QRect rect(left + x0, y + 1, x1 - x0, row.height - 2);
    painter.fillRect(rect, sliceColour(lane.name[slice.longest], slice.count > 1));
    ++m_stats.rectangles;
    if (rect.width() >= m_options.minLabelWidth) {
      const QString name = QString::fromUtf8(m_index->name(lane.name[slice.longest]));
      painter.setPen(textColour);
      painter.drawText(rect.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       painter.fontMetrics().elidedText(name, Qt::ElideRight, rect.width() - 4));
      ++m_stats.labels;
    }
  }
}

void TimelineView::paintCounter(QPainter& painter, const Row& row, int y, int pixels) {
  const trace::TimelineCounter& counter = m_index->counters()[row.item];
  const int left = m_options.headerWidth;
  painter.setPen(palette().color(QPalette::Text));
  painter.drawText(QRect(12, y, left - 16, row.height), Qt::AlignVCenter | Qt::AlignLeft,
                   painter.fontMetrics().elidedText(row.header, Qt::ElideRight, left - 16));
  ++m_stats.rows;
  const double top = m_counterMax[row.item];
  if (top <= 0)
    return;
  const int chart = row.height - 4;
  const auto height = [&](double v) { return static_cast<int>(std::lround(std::clamp(v / top, 0.0, 1.0) * chart)); };
  const QColor fill = palette().color(QPalette::Highlight);
  const int base = y + row.height - 2;
  // A 1 px bar per column with samples, up to the column's peak (heaptrack's peak-preserving reduction), and between
  // two such columns a rectangle at the last value, which holds until the next sample. Each rectangle covers columns
  // no other one covers, so a row never fills more rectangles than it has pixels.
  trace::mergeCounterForPixels(counter, m_range, static_cast<std::uint32_t>(pixels), m_counterPixels);
  const auto held = trace::counterValueAt(counter, m_range.startNs);
  int from = 0;
  double value = held.value_or(0);
  for (const trace::CounterPixel& p : m_counterPixels) {
    const int column = static_cast<int>(p.column);
    if (column > from && value > 0) {
      const int h = height(value);
      painter.fillRect(left + from, base - h, column - from, h, fill);
      ++m_stats.rectangles;
    }
    const int h = height(p.max);
    painter.fillRect(left + column, base - h, 1, h, fill);
    ++m_stats.rectangles;
    from = column + 1;
    value = p.last;
  }
  const std::int64_t lastSample = counter.ts.empty() ? m_range.startNs : counter.ts.back();
  const int end = std::clamp(static_cast<int>(std::ceil(timeToPixel(m_range, pixels, lastSample))), from, pixels);
  if (end > from && value > 0) {
    const int h = height(value);
    painter.fillRect(left + from, base - h, end - from, h, fill);
    ++m_stats.rectangles;
  }
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
  m_dragging = true;
  m_dragX = static_cast<int>(event->position().x());
  m_dragRange = m_range;
  viewport()->setCursor(Qt::ClosedHandCursor);
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  const int x = static_cast<int>(event->position().x());
  m_cursorX = x >= m_options.headerWidth && x < m_options.headerWidth + plotWidth() ? x - m_options.headerWidth : -1;
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
  if (event->button() == Qt::LeftButton && m_dragging) {
    m_dragging = false;
    viewport()->unsetCursor();
  }
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  if (!m_index)
    return QAbstractScrollArea::keyPressEvent(event);
  switch (event->key()) {
  case Qt::Key_W: zoomBy(m_options.zoomStep, cursorTime()); break;
  case Qt::Key_S: zoomBy(1 / m_options.zoomStep, cursorTime()); break;
  case Qt::Key_A: panBy(-m_options.panStep); break;
  case Qt::Key_D: panBy(m_options.panStep); break;
  case Qt::Key_F: fit(); break;
  case Qt::Key_T:
    setTimeMode(m_timeMode == TimeMode::SinceTraceStart ? TimeMode::TraceClock : TimeMode::SinceTraceStart);
    break;
  default: QAbstractScrollArea::keyPressEvent(event);
  }
}

}  // namespace fathom::views
