// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/timeline_queries.h>

#include <QString>
#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace fathom::views {

class TimelineWorker;

/// The details of one slice of a timeline (issue 19, "Selection and analysis"): its name, category, start (since the
/// trace's start and on the trace's clock, in the file's microseconds), duration, self time and depth, its args as a
/// key/value tree (the event's JSON, re-read from the trace off the GUI thread: a scan for gzip), and the slices it is
/// linked to: its flows out and in, the GPU work it launched (a cpu_op: its kernels) or, for GPU work, its CPU
/// launcher and the op around that launch. Clicking a linked slice emits sliceActivated (the view selects and
/// reveals it: connectTimelinePanels).
///
/// Children for tests and scripts, by object name: QLabels "name", "category", "start", "traceClock", "duration",
/// "self", "depth", "lane"; QTreeWidgets "args" and "related" (top-level items are the groups; each linked slice is
/// a child item carrying its lane and index in kLaneRole / kIndexRole).
class SliceDetailsPanel : public QWidget {
  Q_OBJECT

public:
  static constexpr int kLaneRole = Qt::UserRole;
  static constexpr int kIndexRole = Qt::UserRole + 1;

  explicit SliceDetailsPanel(QWidget* parent = nullptr);
  ~SliceDetailsPanel() override;

  /// The trace whose slices it shows; clears the panel.
  void setIndex(std::shared_ptr<const trace::TimelineIndex> index);
  /// Shows `slice` (nullopt: nothing). The args arrive later (argsReady).
  void setSlice(std::optional<trace::SliceRef> slice);
  std::optional<trace::SliceRef> slice() const { return m_slice; }
  /// The details shown (without eventJson, which fills the args tree); nullopt when none.
  const std::optional<trace::SliceDetails>& details() const { return m_details; }
  /// The args of the slice shown are still being read.
  bool isReadingArgs() const;

signals:
  /// A linked slice was clicked.
  void sliceActivated(fathom::trace::SliceRef slice);
  /// The args tree of the slice shown is filled (or says why it cannot be).
  void argsReady();

private:
  void clear();
  void fillRelated();
  /// Adds a group of linked slices to the "related" tree (nothing when `slices` is empty).
  void addGroup(const QString& title, const std::vector<trace::SliceRef>& slices);
  QString describe(trace::SliceRef slice) const;
  /// Starts reading the args of the slice shown, off the GUI thread.
  void readArgs();

  std::shared_ptr<const trace::TimelineIndex> m_index;
  std::optional<trace::SliceRef> m_slice;
  std::optional<trace::SliceDetails> m_details;
  QLabel* m_name = nullptr;
  QLabel* m_category = nullptr;
  QLabel* m_start = nullptr;
  QLabel* m_traceClock = nullptr;
  QLabel* m_duration = nullptr;
  QLabel* m_self = nullptr;
  QLabel* m_depth = nullptr;
  QLabel* m_lane = nullptr;
  QTreeWidget* m_args = nullptr;
  QTreeWidget* m_related = nullptr;
  TimelineWorker* m_worker = nullptr;
};

}  // namespace fathom::views
