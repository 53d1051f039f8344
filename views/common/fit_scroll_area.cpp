// SPDX-License-Identifier: Apache-2.0
#include "common/fit_scroll_area.h"

#include <QEvent>
#include <QScrollBar>

#include <algorithm>

namespace fathom::views {

FitScrollArea::FitScrollArea(QWidget* parent) : QScrollArea(parent) {
  setFrameShape(QFrame::NoFrame);
  setWidgetResizable(false);  // fit() sizes the page
}

void FitScrollArea::setPage(QWidget* page) {
  setWidget(page);
  page->installEventFilter(this);  // its layout's changes (LayoutRequest) change its minimum
  fit();
}

void FitScrollArea::resizeEvent(QResizeEvent* event) {
  QScrollArea::resizeEvent(event);
  fit();
}

bool FitScrollArea::eventFilter(QObject* watched, QEvent* event) {
  if (watched == widget() && event->type() == QEvent::LayoutRequest) {
    fit();
  }
  return QScrollArea::eventFilter(watched, event);
}

void FitScrollArea::fit() {
  QWidget* page = widget();
  if (page == nullptr) {
    return;
  }
  const QSize minimum = page->minimumSizeHint().expandedTo(page->minimumSize());
  const QSize available = maximumViewportSize();  // the viewport without scroll bars
  // A scroll bar for one direction takes room from the other.
  const bool scrollsVertically = minimum.height() > available.height();
  const int width = available.width() - (scrollsVertically ? verticalScrollBar()->sizeHint().width() : 0);
  const bool scrollsHorizontally = minimum.width() > width;
  const int height = available.height() - (scrollsHorizontally ? horizontalScrollBar()->sizeHint().height() : 0);
  page->resize(std::max(minimum.width(), width), std::max(minimum.height(), height));
}

}  // namespace fathom::views
