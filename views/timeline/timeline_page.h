// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/timeline_index.h>

#include <QString>
#include <QWidget>

class QSplitter;

namespace fathom::views {

class TimelineMinimap;
class TimelineSearchBar;
class TimelineView;

/// A trace's page in the Studio: the search bar, the minimap of the whole trace, and under them a vertical splitter
/// whose first widget is the timeline view (panels, such as a slice's details, go below it). The page wires them:
/// the minimap follows the view's range and moves it, the search's matches are outlined in the view and the current
/// match is revealed (zoomed and scrolled to). Ctrl+F anywhere in the page focuses the search field.
class TimelinePage : public QWidget {
  Q_OBJECT

public:
  explicit TimelinePage(QWidget* parent = nullptr);
  ~TimelinePage() override;

  /// Loads the trace at `path` (`.json`, `.json.gz`) off the GUI thread; the view shows progress and errors, and
  /// emits loaded() or loadFailed().
  void open(const QString& path);
  /// The path given to open(), empty before.
  QString path() const { return m_path; }

  TimelineView* view() const { return m_view; }
  TimelineSearchBar* searchBar() const { return m_search; }
  TimelineMinimap* minimap() const { return m_minimap; }
  /// The vertical splitter: the view at index 0; add panels after it.
  QSplitter* splitter() const { return m_splitter; }

  /// Focuses the search field (Ctrl+F).
  void focusSearch();
  /// Makes `slice` visible: expands its process and lane, scrolls its row on screen, and when it is not inside the
  /// visible range, centres the range on it (widened to show it whole when it is longer).
  void reveal(trace::SliceRef slice);

protected:
  bool event(QEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

private:
  void indexChanged();

  QString m_path;
  TimelineSearchBar* m_search = nullptr;
  TimelineMinimap* m_minimap = nullptr;
  QSplitter* m_splitter = nullptr;
  TimelineView* m_view = nullptr;
};

}  // namespace fathom::views
