// SPDX-License-Identifier: Apache-2.0
// TimelineView's input: resize, wheel, mouse (pan, click select, Shift+drag area, header clicks and drags), keys, the
// header and context menus; the view's state and API are in timeline_view.cpp, its painting in timeline_view_paint.cpp.
#include "timeline/timeline_view.h"

#include "timeline/plan_lane_painter.h"
#include "timeline/time_coords.h"
#include "timeline/timeline_overlays.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>

#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <utility>

namespace fathom::views {

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
