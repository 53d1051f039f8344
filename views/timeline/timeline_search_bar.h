// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/timeline_queries.h>

#include <QList>
#include <QString>
#include <QWidget>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QLineEdit;
class QThread;
class QTimer;
class QToolButton;

namespace fathom::views {

/// The timeline's search: a pattern field with regex and case toggles, the "n of M" match count, Previous and Next.
/// Typing searches (after a short pause) with trace::searchSlices over the whole index; Enter goes to the next match,
/// Shift+Enter to the previous (Enter right after typing searches at once and goes to the first). An invalid regex
/// shows the index's ConfigError message in place of the count.
///
/// A search over an index of more than Options::asyncSlices slices runs on a thread of its own; its result comes back
/// as a queued call tagged with the search's number, so a result superseded by newer typing is dropped.
class TimelineSearchBar : public QWidget {
  Q_OBJECT

public:
  struct Options {
    int debounceMs = 200;                 ///< the pause after typing before the search runs
    std::uint64_t asyncSlices = 200'000;  ///< larger indices are searched off the GUI thread
  };

  explicit TimelineSearchBar(QWidget* parent = nullptr);
  explicit TimelineSearchBar(const Options& options, QWidget* parent = nullptr);
  ~TimelineSearchBar() override;

  /// The index searched (nullptr: none); clears the matches.
  void setIndex(std::shared_ptr<const trace::TimelineIndex> index);

  QString pattern() const;
  void setPattern(const QString& pattern);
  bool isRegex() const;
  void setRegex(bool regex);
  bool isCaseSensitive() const;
  void setCaseSensitive(bool caseSensitive);

  /// Searches now (not waiting for the pause); searchFinished() follows, at once or from the search's thread.
  void search();
  bool isSearching() const { return m_searching; }
  /// The last search's matches in time order (trace::SearchResult::matches), nullptr before any or after an error.
  std::shared_ptr<const std::vector<trace::SliceRef>> matches() const { return m_matches; }
  /// All matches, also beyond those kept (SearchResult::total).
  std::size_t totalMatches() const { return m_total; }
  /// The current match's position in matches(), -1 when none.
  int currentIndex() const { return m_current; }
  std::optional<trace::SliceRef> currentMatch() const;
  /// The invalid pattern's message, empty otherwise.
  QString errorMessage() const { return m_error; }
  /// What the count label shows ("3 of 120", "No matches", the error).
  QString statusText() const;
  QLineEdit* patternField() const { return m_field; }

public slots:
  void next();
  void previous();
  /// Focuses the pattern field and selects its text (Ctrl+F).
  void focusPattern();

signals:
  /// A search finished: matches() and totalMatches() are new (also after an error: errorMessage()).
  void searchFinished();
  void matchesChanged();
  /// The current match changed (next, previous, or cleared by a new search).
  void currentMatchChanged();

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void schedule();
  void finish(quint64 number, std::shared_ptr<const std::vector<trace::SliceRef>> matches, std::size_t total,
              const QString& error);
  void step(int delta);
  void updateStatus();

  Options m_options;
  std::shared_ptr<const trace::TimelineIndex> m_index;
  QLineEdit* m_field = nullptr;
  QToolButton* m_regex = nullptr;
  QToolButton* m_case = nullptr;
  QLabel* m_status = nullptr;
  QToolButton* m_previous = nullptr;
  QToolButton* m_next = nullptr;
  QTimer* m_debounce = nullptr;

  std::shared_ptr<const std::vector<trace::SliceRef>> m_matches;
  std::size_t m_total = 0;
  int m_current = -1;
  QString m_error;
  quint64 m_number = 0;      ///< the latest search's number; older results are dropped
  bool m_searching = false;  ///< the latest search runs on its thread
  int m_pendingStep = 0;     ///< a step asked for while the search ran (Enter right after typing)
  bool m_stale = false;      ///< the pattern or toggles changed since the last search
  QList<QThread*> m_threads;
};

}  // namespace fathom::views
