// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QScrollArea>

namespace fathom::views {

/// A scroll area for a whole page: the page takes the viewport's size and scrolls only when the viewport is shorter or
/// narrower than the page's minimum, so a page of charts and tables fits a small window (a laptop's) without making
/// the main window taller than the screen, and fills a large one without a scroll bar.
///
/// Why not QScrollArea::setWidgetResizable(true): when the page's layout has height-for-width (any word-wrapped
/// label), Qt gives the page its preferred height for the width, and the page then scrolls in every window shorter
/// than its size hint (a run page in a 1500 x 900 window scrolled by 234 px).
class FitScrollArea : public QScrollArea {
  Q_OBJECT

public:
  explicit FitScrollArea(QWidget* parent = nullptr);
  /// Sets the page (as QScrollArea::setWidget: the area owns it).
  void setPage(QWidget* page);

protected:
  void resizeEvent(QResizeEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  /// Sizes the page: the viewport's size, at least the page's minimum.
  void fit();
};

}  // namespace fathom::views
