// SPDX-License-Identifier: Apache-2.0
#include "run_trace_feed.h"

#include <fathom/common/error.h>
#include <fathom/store/workspace.h>
#include <fathom/trace/trace_file_names.h>
#include <fathom/trace/traces_timeline.h>

#include <QElapsedTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <map>
#include <set>
#include <tuple>

using namespace Qt::StringLiterals;

namespace fathom::studio {
namespace {

const QString kWholeRunKey = u"run"_s;

QString groupKey(const std::string& group) {
  return u"group:"_s + QString::fromStdString(group);
}

QString traceKey(const store::TraceSummary& t) {
  return u"trace:%1:"_s.arg(t.rank) + QString::fromStdString(t.name);
}

/// Groups in display order: the profiler's windows by number (a profile of one window first), then other names.
struct GroupOrder {
  bool operator()(const trace::StoredTraceName& a, const trace::StoredTraceName& b) const {
    return std::make_tuple(!a.profile, a.window.value_or(-1), a.group) <
           std::make_tuple(!b.profile, b.window.value_or(-1), b.group);
  }
};

using Groups = std::map<trace::StoredTraceName, std::vector<store::TraceSummary>, GroupOrder>;

/// The run's traces by group, the profiler's merged traces left out where the per-rank traces they merge are there.
Groups groupsOf(const std::vector<store::TraceSummary>& traces) {
  std::set<std::string> withRanks;  // groups holding per-rank profiler traces
  for (const store::TraceSummary& t : traces) {
    const trace::StoredTraceName n = trace::parseStoredTraceName(t.name);
    if (n.profile && !n.merged)
      withRanks.insert(n.group);
  }
  Groups groups;
  for (const store::TraceSummary& t : traces) {
    trace::StoredTraceName n = trace::parseStoredTraceName(t.name);
    if (n.merged && withRanks.count(n.group) > 0)
      continue;
    n.merged = false;  // one group per window, whatever its files
    groups[n].push_back(t);
  }
  for (auto& [name, members] : groups) {
    std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  }
  return groups;
}

bool isRunTrace(const store::TraceSummary& t) {
  const trace::StoredTraceName n = trace::parseStoredTraceName(t.name);
  return n.profile && !n.merged;
}

int distinctRanks(const std::vector<store::TraceSummary>& traces) {
  std::set<int> ranks;
  for (const store::TraceSummary& t : traces)
    ranks.insert(t.rank);
  return static_cast<int>(ranks.size());
}

bool sameTraces(const std::vector<store::TraceSummary>& a, const std::vector<store::TraceSummary>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.name == y.name && x.rank == y.rank && x.bytes == y.bytes;
  });
}

struct PollResult {
  bool ok = false;
  bool live = false;
  std::vector<store::TraceSummary> traces;
  QString error;
};

struct BuildResult {
  std::shared_ptr<const trace::TimelineIndex> index;
  std::vector<store::TraceSummary> read;  ///< what was read: bytes = the data's size
  views::RunTimelineLoad load;
  QString error;
};

store::Workspace openReadOnly(const QString& path) {
  const std::filesystem::path file(path.toStdString());
  return store::Workspace(file, store::Workspace::readerOptions(file));
}

}  // namespace

RunTraceFeed::RunTraceFeed(const QString& workspacePath, qint64 runId, QObject* parent)
    : QObject(parent), m_path(workspacePath), m_run(runId) {
  m_pool.setMaxThreadCount(2);  // one poll and one build at a time
  m_timer.setInterval(kPollMs);
  connect(&m_timer, &QTimer::timeout, this, &RunTraceFeed::poll);
  m_restTimer.setSingleShot(true);
  connect(&m_restTimer, &QTimer::timeout, this, &RunTraceFeed::maybeBuild);
}

RunTraceFeed::~RunTraceFeed() {
  // A job the pool has not started yet runs inside waitForFinished() on this thread, and Qt then calls its
  // continuation directly: m_stopped makes the continuations return before they emit, the cancel flag the build's
  // job before it reads anything.
  m_stopped = true;
  if (m_cancel)
    *m_cancel = true;
  m_pollWorker.waitForFinished();
  m_buildWorker.waitForFinished();
}

QList<views::RunTraceEntry> RunTraceFeed::entriesOf(const std::vector<store::TraceSummary>& traces) {
  QList<views::RunTraceEntry> out;
  const Groups groups = groupsOf(traces);
  std::vector<store::TraceSummary> run;
  std::set<int> windows;
  for (const auto& [name, members] : groups) {
    for (const store::TraceSummary& t : members) {
      if (isRunTrace(t)) {  // the profiler's per-rank traces (a merged file alone makes no whole run)
        windows.insert(name.window.value_or(-1));
        run.push_back(t);
      }
    }
  }
  // The whole run comes first whenever the profiler stored traces: chosen by default, it is the timeline that grows
  // as the run stores window after window (with one window it is that window, whose ranks it then lists).
  if (!windows.empty()) {
    views::RunTraceEntry whole;
    whole.kind = views::RunTraceEntry::Kind::WholeRun;
    whole.key = kWholeRunKey;
    whole.ranks = distinctRanks(run);
    whole.windows = static_cast<int>(windows.size());
    for (const store::TraceSummary& t : run) {
      whole.bytes += t.bytes;
      whole.chunks += t.chunks;
    }
    out.append(whole);
  }
  for (const auto& [name, members] : groups) {
    QString parent;
    if (name.profile && windows.size() == 1 && windows.count(name.window.value_or(-1)) > 0) {
      parent = kWholeRunKey;
    } else if (members.size() > 1) {
      views::RunTraceEntry group;
      group.kind = views::RunTraceEntry::Kind::Group;
      group.key = groupKey(name.group);
      group.name = QString::fromStdString(name.group);
      group.window = name.window;
      group.ranks = distinctRanks(members);
      for (const store::TraceSummary& t : members) {
        group.bytes += t.bytes;
        group.chunks += t.chunks;
      }
      out.append(group);
      parent = group.key;
    }
    for (const store::TraceSummary& t : members) {
      views::RunTraceEntry entry;
      entry.kind = views::RunTraceEntry::Kind::Trace;
      entry.key = traceKey(t);
      entry.parentKey = parent;
      entry.name = QString::fromStdString(t.name);
      entry.window = name.window;
      entry.rank = t.rank;
      entry.bytes = t.bytes;
      entry.chunks = t.chunks;
      out.append(entry);
    }
  }
  return out;
}

std::vector<store::TraceSummary> RunTraceFeed::tracesOf(const QString& key,
                                                        const std::vector<store::TraceSummary>& traces) {
  std::vector<store::TraceSummary> out;
  if (key == kWholeRunKey) {
    std::copy_if(traces.begin(), traces.end(), std::back_inserter(out), isRunTrace);
    return out;
  }
  for (const auto& [name, members] : groupsOf(traces)) {
    for (const store::TraceSummary& t : members) {
      if (key == groupKey(name.group) || key == traceKey(t))
        out.push_back(t);
    }
  }
  return out;
}

void RunTraceFeed::start() {
  m_stopped = false;
  m_timer.start();
  poll();
}

void RunTraceFeed::stop() {
  m_stopped = true;
  m_timer.stop();
}

void RunTraceFeed::choose(const QString& key) {
  m_key = key;
  maybeBuild();
}

void RunTraceFeed::poll() {
  if (m_polling || m_stopped)
    return;
  m_polling = true;
  auto worker = QtConcurrent::run(&m_pool, [path = m_path, run = m_run] {
    PollResult out;
    try {
      const store::Workspace ws = openReadOnly(path);
      // The status first: a run read as finished has stored every chunk before its list is read.
      const auto info = ws.run(store::RunId{run});
      FATHOM_CHECK(info.has_value(), ConfigError, "run ", run, " is not in the workspace (deleted?)");
      out.live = info->status == store::RunStatus::Running;
      out.traces = ws.traces(info->id);
      out.ok = true;
    } catch (const Error& e) {
      out.error = QString::fromUtf8(e.what());
    }
    return out;
  });
  m_pollWorker = QFuture<void>(worker);
  worker.then(this, [this](const PollResult& out) {
    m_polling = false;
    if (m_stopped)
      return;
    if (!out.ok) {
      stop();
      emit timelineFailed(m_key, out.error);
      return;
    }
    if (m_live != out.live) {
      m_live = out.live;
      emit liveChanged(out.live);
    }
    m_traces = out.traces;
    emit entriesChanged(entriesOf(m_traces));
    maybeBuild();
    if (!out.live)
      m_timer.stop();  // everything is stored: the list read after the end is the last one
  });
}

void RunTraceFeed::maybeBuild() {
  if (m_key.isEmpty() || m_building)
    return;  // a build running takes its traces' growth up when it ends (it calls maybeBuild again)
  const std::vector<store::TraceSummary> wanted = tracesOf(m_key, m_traces);
  if (wanted.empty() || (m_builtKey == m_key && sameTraces(wanted, m_built)))
    return;
  // A rebuild of the same entry waits kRestFactor times as long as the last one took, so that following a big run
  // takes at most 1 / (1 + kRestFactor) of a core from the training it shares the machine with.
  const qint64 rest = m_builtKey == m_key ? static_cast<qint64>(m_lastBuildMs * kRestFactor) : 0;
  if (m_sinceBuild.isValid() && m_sinceBuild.elapsed() < rest) {
    if (!m_restTimer.isActive())
      m_restTimer.start(static_cast<int>(rest - m_sinceBuild.elapsed()) + 1);
    return;
  }
  m_building = true;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  auto worker = QtConcurrent::run(&m_pool, [path = m_path, run = m_run, wanted, cancel = m_cancel] {
    BuildResult out;
    if (*cancel)
      return out;
    QElapsedTimer clock;
    clock.start();
    try {
      const store::Workspace ws = openReadOnly(path);
      std::vector<trace::TraceBytes> inputs;
      for (const store::TraceSummary& t : wanted) {
        std::string bytes = ws.traceData(store::RunId{run}, t.name, t.rank);
        store::TraceSummary read = t;
        read.bytes = static_cast<std::int64_t>(bytes.size());
        out.read.push_back(read);
        out.load.storedBytes += read.bytes;
        inputs.push_back({t.name, std::move(bytes)});
      }
      trace::TimelineLoadOptions options;
      options.cancel = cancel.get();
      trace::TracesTimelineStats stats;
      if (auto index = trace::loadTracesTimeline(std::move(inputs), options, &stats))
        out.index = std::make_shared<const trace::TimelineIndex>(std::move(*index));
      out.load.traces = static_cast<int>(stats.inputs - stats.skipped);
      out.load.skipped = static_cast<int>(stats.skipped);
      out.load.stillWriting = stats.truncated;
    } catch (const Error& e) {
      out.error = QString::fromUtf8(e.what());
    }
    out.load.milliseconds = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    return out;
  });
  m_buildWorker = QFuture<void>(worker);
  worker.then(this, [this, key = m_key](const BuildResult& out) {
    m_building = false;
    m_lastBuildMs = out.load.milliseconds;
    m_sinceBuild.start();
    if (m_stopped)
      return;
    m_builtKey = key;
    m_built = out.read;
    if (!out.error.isEmpty()) {
      emit timelineFailed(key, out.error);
    } else if (out.index) {
      ++m_builds;
      emit timelineReady(key, out.index, out.load);
    }
    maybeBuild();  // traces that grew while building, or another entry chosen meanwhile
  });
}

}  // namespace fathom::studio
