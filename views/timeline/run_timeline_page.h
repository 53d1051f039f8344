// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/timeline_index.h>

#include <QList>
#include <QString>
#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QTreeWidget;

namespace fathom::views {

class TimelinePage;
class TimelineView;

/// One entry of a run's Timeline page: the whole run (every window of every rank on one clock), one window's ranks
/// together, or one stored trace (one rank's file). The controller makes them from the workspace's trace list
/// (studio::RunTraceFeed::entriesOf); the page only words them.
struct RunTraceEntry {
  enum class Kind { WholeRun, Group, Trace };
  Kind kind = Kind::Trace;
  QString key;        ///< stable while the run goes on: what the page keeps selected and asks the controller for
  QString parentKey;  ///< the group a Trace belongs to; empty for the top level
  QString name;       ///< Trace: the stored name; Group: a window's group ("window_1", "" for one window) or a name
  std::optional<int> window;  ///< the window of a Group or Trace, when the profiler's names say
  int rank = 0;               ///< Trace: its rank
  int ranks = 0;              ///< WholeRun, Group: distinct ranks
  int windows = 0;            ///< WholeRun: windows
  qint64 bytes = 0;           ///< stored bytes (all of the entry's traces)
  qint64 chunks = 0;          ///< stored chunks

  bool operator==(const RunTraceEntry&) const = default;
};

/// What building the shown timeline took, for the status line (trace::TracesTimelineStats in the GUI's units).
struct RunTimelineLoad {
  int traces = 0;             ///< stored traces indexed (merged when several)
  int skipped = 0;            ///< left out: their header had not arrived yet
  qint64 storedBytes = 0;     ///< their bytes as stored
  bool stillWriting = false;  ///< some trace was a prefix of one still being written
  double milliseconds = 0;    ///< reading, merging and indexing, off the GUI thread
};

/// The Timeline page of a run (issue 19): the run's stored traces in a list (the whole run, each window with all its
/// ranks, each rank's own trace) beside a TimelineView. Choosing an entry asks the controller for its timeline
/// (entryChosen); the controller loads it off the GUI thread and hands it to showTimeline(). While the run goes on the
/// controller hands newer timelines of the same entry as its traces grow: the view keeps the user's zoom and scroll
/// (TimelineView::updateIndex), following the end only when it showed the whole trace.
class RunTimelinePage : public QWidget {
  Q_OBJECT

public:
  explicit RunTimelinePage(QWidget* parent = nullptr);

  /// The run's entries, in display order (Trace entries after their group). Keeps the chosen entry; when none is
  /// chosen yet and the page is visible, chooses the first.
  void setEntries(const QList<RunTraceEntry>& entries);
  const QList<RunTraceEntry>& entries() const { return m_entries; }
  /// The entry shown (or being loaded); empty before one is chosen.
  QString currentKey() const { return m_current; }
  /// Chooses an entry (as a click does); emits entryChosen when it changes.
  void choose(const QString& key);
  /// A timeline for `key`: shown when `key` is the current entry (a newer one of the entry shown keeps the user's
  /// place), dropped otherwise.
  void showTimeline(const QString& key, std::shared_ptr<const trace::TimelineIndex> index, const RunTimelineLoad& load);
  /// Loading `key`'s timeline failed (shown when it is the current entry; a timeline already shown stays).
  void showError(const QString& key, const QString& message);
  /// Whether the run is live (the status line says so).
  void setLive(bool live);

  TimelineView* view() const { return m_view; }
  TimelinePage* timelinePage() const { return m_timeline; }
  QTreeWidget* list() const { return m_list; }
  /// The status line's text (what was loaded, how long it took).
  QString statusText() const;
  /// Timelines shown for the current entry since it was chosen (the first, then each live update).
  int updates() const { return m_updates; }

  /// The words of an entry as the list shows them.
  static QString titleOf(const RunTraceEntry& entry);

signals:
  void entryChosen(const QString& key);

protected:
  void showEvent(QShowEvent* event) override;

private:
  void rebuildList();
  void updateStatus();

  QList<RunTraceEntry> m_entries;
  QString m_current;
  QString m_shownKey;  ///< the entry whose timeline the view holds
  RunTimelineLoad m_load;
  QString m_error;
  bool m_live = false;
  int m_updates = 0;
  QTreeWidget* m_list = nullptr;
  TimelinePage* m_timeline = nullptr;
  TimelineView* m_view = nullptr;  ///< m_timeline's
  QLabel* m_status = nullptr;
};

}  // namespace fathom::views
