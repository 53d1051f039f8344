// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_page.h"

#include "timeline/area_panel.h"
#include "timeline/slice_details_panel.h"
#include "timeline/timeline_export.h"
#include "timeline/timeline_minimap.h"
#include "timeline/timeline_panels.h"
#include "timeline/timeline_search_bar.h"
#include "timeline/timeline_view.h"

#include <QKeyEvent>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

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
  m_panels = new QTabWidget(m_splitter);
  m_panels->setObjectName(QStringLiteral("timelinePanels"));
  m_panels->setDocumentMode(true);
  m_details = new SliceDetailsPanel(m_panels);
  m_details->setObjectName(QStringLiteral("sliceDetailsPanel"));
  m_area = new AreaPanel(m_panels);
  m_area->setObjectName(QStringLiteral("areaPanel"));
  m_panels->insertTab(kDetailsTab, m_details, tr("Details"));
  m_panels->insertTab(kAreaTab, m_area, tr("Area"));
  m_splitter->addWidget(m_panels);
  // The panels' own minimum (their tables and trees) would make the page taller than small windows (a 900 x 600
  // screenshot): a tab bar and a few lines, the rest scrolls.
  m_panels->setMinimumHeight(5 * fontMetrics().height());
  m_splitter->setStretchFactor(0, 2);
  m_splitter->setStretchFactor(1, 1);
  // Scaled to the page's height: the timeline two thirds, the panels a third. A quarter left the panels of a
  // 1500 x 900 window about 150 px: one row of the area's table (tst_timeline_page, shortPanelsKeepTheirRows).
  m_splitter->setSizes({2000, 1000});
  layout->addWidget(m_search);
  layout->addWidget(m_minimap);
  layout->addWidget(m_splitter, 1);
  setFocusProxy(m_view);

  connect(m_view, &TimelineView::indexChanged, this, &TimelinePage::indexChanged);
  connect(m_view, &TimelineView::visibleRangeChanged, m_minimap, &TimelineMinimap::setVisibleRange);
  connect(m_minimap, &TimelineMinimap::rangeRequested, this, [this](qint64 startNs, qint64 endNs) {
    m_view->setVisibleRange({startNs, endNs});
  });
  connect(m_search, &TimelineSearchBar::matchesChanged, this,
          [this] { m_view->setSearchMatches(m_search->matches()); });
  connect(m_search, &TimelineSearchBar::currentMatchChanged, this, [this] {
    const auto current = m_search->currentMatch();
    m_view->setCurrentMatch(current);
    if (current) {  // as in Perfetto: the match is selected (its details shown) and brought on screen
      m_view->selectSlice(current);
      m_view->revealSlice(*current);
    }
  });

  connectTimelinePanels(m_view, m_details, m_area);
  // The panels' tab follows the latest selection; clearing one leaves the tab where it is.
  connect(m_view, &TimelineView::sliceSelected, this, [this](const std::optional<trace::SliceRef>& slice) {
    if (slice)
      m_panels->setCurrentIndex(kDetailsTab);
  });
  connect(m_view, &TimelineView::areaSelected, this, [this](const std::optional<AreaSelection>& area) {
    if (area)
      m_panels->setCurrentIndex(kAreaTab);
  });

  // Export Range writes the area selection (its range, its lanes' rows) when there is one, else the visible range.
  m_export = new TimelineExport(m_view);
  m_export->setSelectionProvider([view = m_view] {
    const std::optional<AreaSelection> area = view->areaSelection();
    if (!area || view->index() == nullptr)
      return TimelineExport::Selection{view->visibleRange(), {}};
    TimelineExport::Selection selection{area->range, {}};
    for (const std::uint32_t lane : area->lanes)
      selection.rows.push_back(view->index()->lane(lane).key);
    return selection;
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
