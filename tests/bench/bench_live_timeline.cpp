// SPDX-License-Identifier: Apache-2.0
// The live timeline's cost (issue 19): replays a run's stored trace chunks in the order they landed in the workspace
// and, after each arrival, rebuilds what the Studio's Timeline tab rebuilds (RunTraceFeed: loadTracesTimeline over
// the entry's stored traces so far): the whole run (every per-rank trace of every window) or, with --window, the
// window the chunk belongs to. Prints one line per arrival (traces, stored and indexed bytes, slices, prefix or
// whole, merge and load times) and the mean and max. The workspace is read with sqlite3 directly: the chunk
// boundaries are what a live view sees, and Workspace::traceData only gives whole traces.
//
//   bench_live_timeline WORKSPACE [--run ID] [--window]
#include <fathom/trace/trace_file_names.h>
#include <fathom/trace/traces_timeline.h>

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace fathom::trace;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_live_timeline WORKSPACE [--run ID] [--window]\n");
    return 2;
  }
  long long run = 0;
  bool perWindow = false;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--run") == 0 && i + 1 < argc) {
      run = std::atoll(argv[++i]);
    } else if (std::strcmp(argv[i], "--window") == 0) {
      perWindow = true;
    }
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  const char* sql = run > 0 ? "SELECT name, rank, data FROM trace_chunks WHERE run_id = ? ORDER BY id"
                            : "SELECT name, rank, data FROM trace_chunks WHERE run_id = (SELECT MAX(run_id) FROM "
                              "trace_chunks) ORDER BY id";
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &s, nullptr);
  if (run > 0) {
    sqlite3_bind_int64(s, 1, run);
  }
  std::map<std::pair<std::string, int>, std::string> stored;  // what has landed so far, per (name, rank)
  double total = 0;
  double worst = 0;
  int arrivals = 0;
  while (sqlite3_step(s) == SQLITE_ROW) {
    const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    const int rank = sqlite3_column_int(s, 1);
    stored[{name, rank}].append(static_cast<const char*>(sqlite3_column_blob(s, 2)),
                                static_cast<std::size_t>(sqlite3_column_bytes(s, 2)));
    const StoredTraceName arrived = parseStoredTraceName(name);
    if (!arrived.profile || arrived.merged) {
      continue;  // the entries rebuild from per-rank traces
    }
    std::vector<TraceBytes> inputs;
    std::size_t bytes = 0;
    for (const auto& [key, data] : stored) {
      const StoredTraceName n = parseStoredTraceName(key.first);
      if (n.profile && !n.merged && (!perWindow || n.group == arrived.group)) {
        inputs.push_back({key.first, data});
        bytes += data.size();
      }
    }
    TracesTimelineStats stats;
    const std::optional<TimelineIndex> index = loadTracesTimeline(std::move(inputs), {}, &stats);
    const double ms = (stats.mergeSeconds + stats.loadSeconds) * 1e3;
    total += ms;
    worst = std::max(worst, ms);
    ++arrivals;
    std::printf("arrival %3d  %-36s rank %d: %2zu traces, %7.2f MB stored, %7.2f MB indexed, %8llu slices, %s  "
                "merge %7.1f ms + load %7.1f ms = %7.1f ms\n",
                arrivals, name.c_str(), rank, stats.inputs, static_cast<double>(bytes) / 1e6,
                static_cast<double>(stats.indexedBytes) / 1e6,
                static_cast<unsigned long long>(index ? index->sliceCount() : 0), stats.truncated ? "prefix" : "whole ",
                stats.mergeSeconds * 1e3, stats.loadSeconds * 1e3, ms);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  if (arrivals > 0) {
    std::printf("%d arrivals: rebuild mean %.1f ms, max %.1f ms\n", arrivals, total / arrivals, worst);
  }
  return 0;
}
