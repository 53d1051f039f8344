// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_panels.h"

#include "timeline/area_panel.h"
#include "timeline/slice_details_panel.h"
#include "timeline/timeline_view.h"

namespace fathom::views {

void connectTimelinePanels(TimelineView* view, SliceDetailsPanel* details, AreaPanel* area) {
  if (details) {
    details->setIndex(view->sharedIndex());
    details->setSlice(view->selectedSlice());
    QObject::connect(view, &TimelineView::indexChanged, details,
                     [view, details] { details->setIndex(view->sharedIndex()); });
    QObject::connect(view, &TimelineView::sliceSelected, details, &SliceDetailsPanel::setSlice);
    QObject::connect(details, &SliceDetailsPanel::sliceActivated, view, [view](trace::SliceRef slice) {
      view->selectSlice(slice);
      view->revealSlice(slice);
    });
  }
  if (area) {
    area->setIndex(view->sharedIndex());
    area->setArea(view->areaSelection());
    QObject::connect(view, &TimelineView::indexChanged, area, [view, area] { area->setIndex(view->sharedIndex()); });
    QObject::connect(view, &TimelineView::areaSelected, area, &AreaPanel::setArea);
  }
}

}  // namespace fathom::views
