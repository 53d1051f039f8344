// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/timeline_index.h>

#include <QString>
#include <QWidget>

class QSplitter;
class QTabWidget;

namespace fathom::views {

class AreaPanel;
class SliceDetailsPanel;
class TimelineExport;
class TimelineMinimap;
class TimelineSearchBar;
class TimelineView;

/// A trace's page in the Studio: the search bar, the minimap of the whole trace, and under them a vertical splitter
/// whose first widget is the timeline view and whose second is the selection's panels: a tab widget with "Details"
/// (SliceDetailsPanel) and "Area" (AreaPanel), which turns to the tab of the latest selection. The page wires them:
/// the minimap follows the view's range and moves it, the search's matches are outlined in the view and the current
/// match is selected and revealed (as in Perfetto), the panels follow the selection (connectTimelinePanels), and the
/// view's exports (TimelineExport, its context menu) write the area selection when there is one, else the visible
/// range. Ctrl+F anywhere in the page focuses the search field. It follows the view's index (indexChanged), so a
/// live page may call view()->updateIndex().
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
  /// The vertical splitter: the view at index 0, the panels' tabs at index 1.
  QSplitter* splitter() const { return m_splitter; }
  /// The panels' tabs: kDetailsTab, kAreaTab.
  QTabWidget* panelTabs() const { return m_panels; }
  SliceDetailsPanel* detailsPanel() const { return m_details; }
  AreaPanel* areaPanel() const { return m_area; }
  TimelineExport* exporter() const { return m_export; }
  static constexpr int kDetailsTab = 0;
  static constexpr int kAreaTab = 1;

  /// Focuses the search field (Ctrl+F).
  void focusSearch();

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
  QTabWidget* m_panels = nullptr;
  SliceDetailsPanel* m_details = nullptr;
  AreaPanel* m_area = nullptr;
  TimelineExport* m_export = nullptr;
};

}  // namespace fathom::views
