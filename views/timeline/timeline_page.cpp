// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_page.h"

#include "timeline/timeline_minimap.h"
#include "timeline/timeline_search_bar.h"
#include "timeline/timeline_view.h"

#include <QKeyEvent>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

namespace fathom::views {

TimelinePage::TimelinePage(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  m_search = new TimelineSearchBar(this);
  m_search->setObjectName(QStringLiteral("timelineSearch"));
  m_minimap = new TimelineMinimap(this);
  m_minimap->setObjectName(QStringLiteral("timelineMinimap"));
  m_splitter = new QSplitter(Qt::Vertical, this);
  m_splitter->setObjectName(QStringLiteral("timelineSplitter"));
  m_view = new TimelineView(m_splitter);
  m_view->setObjectName(QStringLiteral("timelineView"));
  m_splitter->addWidget(m_view);
  m_splitter->setStretchFactor(0, 1);
  layout->addWidget(m_search);
  layout->addWidget(m_minimap);
  layout->addWidget(m_splitter, 1);
  setFocusProxy(m_view);

  connect(m_view, &TimelineView::loaded, this, &TimelinePage::indexChanged);
  connect(m_view, &TimelineView::visibleRangeChanged, m_minimap, &TimelineMinimap::setVisibleRange);
  connect(m_minimap, &TimelineMinimap::rangeRequested, this, [this](qint64 startNs, qint64 endNs) {
    m_view->setVisibleRange({startNs, endNs});
  });
  connect(m_search, &TimelineSearchBar::matchesChanged, this,
          [this] { m_view->setSearchMatches(m_search->matches()); });
  connect(m_search, &TimelineSearchBar::currentMatchChanged, this, [this] {
    const auto current = m_search->currentMatch();
    m_view->setCurrentMatch(current);
    if (current)
      reveal(*current);
  });
}

TimelinePage::~TimelinePage() = default;

void TimelinePage::open(const QString& path) {
  m_path = path;
  m_view->open(path);
}

void TimelinePage::indexChanged() {
  m_minimap->setIndex(m_view->sharedIndex());
  m_minimap->setVisibleRange(m_view->visibleRange().startNs, m_view->visibleRange().endNs);
  m_search->setIndex(m_view->sharedIndex());
}

void TimelinePage::focusSearch() {
  m_search->focusPattern();
}

void TimelinePage::reveal(trace::SliceRef slice) {
  const trace::TimelineIndex* index = m_view->index();
  if (!index || slice.lane >= index->lanes().size() || slice.index >= index->lane(slice.lane).sliceCount())
    return;
  const trace::TimelineLane& lane = index->lane(slice.lane);
  m_view->ensureLaneVisible(slice.lane, lane.depthOf(slice.index));
  const std::int64_t start = lane.start[slice.index];
  const std::int64_t end = lane.end[slice.index];
  const trace::TimeRange range = m_view->visibleRange();
  if (start >= range.startNs && end <= range.endNs)
    return;  // already in view: the range stays, as when stepping through matches on screen
  // Keep the zoom unless the slice is too long for it; then show it whole with a margin on each side.
  const std::int64_t length = std::max(range.endNs - range.startNs, (end - start) * 5 / 4);
  const std::int64_t centre = start + (end - start) / 2;
  m_view->setVisibleRange({centre - length / 2, centre - length / 2 + length});
}

bool TimelinePage::event(QEvent* event) {
  // Ctrl+F belongs to the page while the focus is in it (the main window's Find filters runs elsewhere): accepting
  // the override turns the shortcut into a key press that reaches keyPressEvent.
  if (event->type() == QEvent::ShortcutOverride && static_cast<QKeyEvent*>(event)->matches(QKeySequence::Find)) {
    event->accept();
    return true;
  }
  return QWidget::event(event);
}

void TimelinePage::keyPressEvent(QKeyEvent* event) {
  if (event->matches(QKeySequence::Find)) {
    focusSearch();
    return;
  }
  QWidget::keyPressEvent(event);
}

}  // namespace fathom::views
