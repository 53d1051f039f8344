// SPDX-License-Identifier: Apache-2.0
#include "timeline/run_timeline_page.h"

#include "common/formatting.h"
#include "timeline/timeline_page.h"
#include "timeline/timeline_view.h"

#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <utility>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

constexpr int kKeyRole = Qt::UserRole;

}  // namespace

RunTimelinePage::RunTimelinePage(QWidget* parent) : QWidget(parent) {
  setObjectName(u"runTimelinePage"_s);
  m_list = new QTreeWidget(this);
  m_list->setObjectName(u"runTraceList"_s);
  m_list->setColumnCount(2);
  m_list->setHeaderLabels({tr("Trace"), tr("Size")});
  m_list->setRootIsDecorated(true);
  m_list->setUniformRowHeights(true);
  m_list->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  m_list->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  m_list->header()->setStretchLastSection(false);
  m_list->setMinimumWidth(160);
  connect(m_list, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (item != nullptr)
      choose(item->data(0, kKeyRole).toString());
  });

  // The timeline with its search, minimap, selection panels and exports (TimelinePage); it follows the view's index,
  // so updateIndex() below keeps them current too.
  m_timeline = new TimelinePage(this);
  m_timeline->setObjectName(u"runTimelinePage"_s);
  m_view = m_timeline->view();
  m_view->setObjectName(u"runTimelineView"_s);
  m_status = new QLabel(this);
  m_status->setObjectName(u"runTimelineStatus"_s);
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* right = new QWidget(this);
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 0, 0, 0);
  rightLayout->addWidget(m_status);
  rightLayout->addWidget(m_timeline, 1);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(m_list);
  splitter->addWidget(right);
  splitter->setStretchFactor(0, 0);  // the list keeps its width; the timeline takes what the page gains
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({300, 900});  // room for "Whole run: 4 windows, all ranks" beside its size
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);
  updateStatus();
}

QString RunTimelinePage::titleOf(const RunTraceEntry& e) {
  switch (e.kind) {
  case RunTraceEntry::Kind::WholeRun: return tr("Whole run: %n window(s), all ranks", nullptr, e.windows);
  case RunTraceEntry::Kind::Group:
    if (e.window)
      return tr("Window %1: %n rank(s)", nullptr, e.ranks).arg(*e.window);
    if (e.name.isEmpty())
      return tr("All ranks (%n)", nullptr, e.ranks);
    return tr("%1: %n rank(s)", nullptr, e.ranks).arg(e.name);
  case RunTraceEntry::Kind::Trace:  // the file's name: its window is the group above it (the tooltip has it whole)
    return tr("Rank %1: %2").arg(e.rank).arg(e.name.section(u'/', -1));
  }
  return e.name;
}

void RunTimelinePage::setEntries(const QList<RunTraceEntry>& entries) {
  if (entries == m_entries)
    return;
  m_entries = entries;
  rebuildList();
  if (m_current.isEmpty() && isVisible() && !m_entries.isEmpty())
    choose(m_entries.front().key);
  updateStatus();
}

void RunTimelinePage::rebuildList() {
  const QSignalBlocker blocker(m_list);  // rebuilding is not the user choosing
  m_list->clear();
  QHash<QString, QTreeWidgetItem*> items;
  QTreeWidgetItem* current = nullptr;
  for (const RunTraceEntry& e : std::as_const(m_entries)) {
    QTreeWidgetItem* parent = items.value(e.parentKey);
    auto* item = parent != nullptr ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_list);
    item->setText(0, titleOf(e));
    item->setText(1, format::bytes(static_cast<double>(e.bytes)));
    item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
    item->setToolTip(
        0, e.kind == RunTraceEntry::Kind::Trace
               ? tr("%1 (rank %2): %n chunk(s) stored", nullptr, static_cast<int>(e.chunks)).arg(e.name).arg(e.rank)
               : tr("Shown merged on one clock, as `fathom trace merge` merges the files"));
    item->setData(0, kKeyRole, e.key);
    items.insert(e.key, item);
    if (e.key == m_current)
      current = item;
  }
  m_list->expandAll();
  if (current != nullptr)
    m_list->setCurrentItem(current);
}

void RunTimelinePage::choose(const QString& key) {
  if (key == m_current)
    return;
  m_current = key;
  m_error.clear();
  m_updates = 0;
  for (QTreeWidgetItemIterator it(m_list); *it; ++it) {
    if ((*it)->data(0, kKeyRole).toString() == key) {
      const QSignalBlocker blocker(m_list);
      m_list->setCurrentItem(*it);
    }
  }
  updateStatus();
  emit entryChosen(key);
}

void RunTimelinePage::showTimeline(const QString& key, std::shared_ptr<const trace::TimelineIndex> index,
                                   const RunTimelineLoad& load) {
  if (key != m_current || !index)
    return;
  if (m_shownKey == key) {
    m_view->updateIndex(std::move(index));  // the same entry, grown: the user's place is kept
  } else {
    m_view->setIndex(std::move(index));
    m_shownKey = key;
  }
  m_load = load;
  m_error.clear();
  ++m_updates;
  updateStatus();
}

void RunTimelinePage::showError(const QString& key, const QString& message) {
  if (key != m_current)
    return;
  m_error = message;
  updateStatus();
}

void RunTimelinePage::setLive(bool live) {
  if (live == m_live)
    return;
  m_live = live;
  updateStatus();
}

QString RunTimelinePage::statusText() const {
  return m_status->text();
}

void RunTimelinePage::updateStatus() {
  QString text;
  if (m_entries.isEmpty()) {
    text = m_live ? tr("No trace yet: the run's profiler stores each window's trace when the window ends.")
                  : tr("This run stored no trace. Profile a run (fathom train --profile) to see its timeline.");
  } else if (m_current.isEmpty()) {
    text = tr("Choose a trace.");
  } else if (m_shownKey != m_current || m_view->index() == nullptr) {
    text = tr("Loading…");
  } else {
    const trace::TimelineIndex& index = *m_view->index();
    text = tr("%1 slices from %n stored trace(s) (%2), read in %3 ms", nullptr, m_load.traces)
               .arg(QLocale().toString(static_cast<qulonglong>(index.sliceCount())))
               .arg(format::bytes(static_cast<double>(m_load.storedBytes)))
               .arg(QLocale().toString(m_load.milliseconds, 'f', 0));
    if (m_load.stillWriting)
      text += tr("; a trace is still being written: its complete events are shown");
    if (m_live)
      text += tr("; live: updates as the run stores traces");
  }
  if (!m_error.isEmpty())
    text += u'\n' + tr("Reading the trace failed: %1").arg(m_error);
  m_status->setText(text);
}

void RunTimelinePage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (m_current.isEmpty() && !m_entries.isEmpty())
    choose(m_entries.front().key);
}

}  // namespace fathom::views
