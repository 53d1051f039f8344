// SPDX-License-Identifier: Apache-2.0
// The timeline's core (issue 19): TimelineIndex load time and bytes per event, and the per-frame query cost of an
// automated sweep at 1920 pixels (fit -> zoom in to the deepest level -> pan across -> zoom out), on traces written
// by the generator (tests/support/trace_generator.h: 8 ranks, nested CPU ops, kernels on two streams, ac2g flows,
// collectives, memory counters, ProfilerStep spans).
//
// A frame is what a view does to draw every lane: mergeForPixels for every depth of every lane and
// mergeCounterForPixels for every counter series (all 8 ranks, the worst case: a view shows fewer). Frame times are
// reported as p50/p99/max. Memory: the index's own accounting (memoryBytes) and the resident-set growth (peak during
// the load, and after it with freed memory handed back).
//
//   bench_timeline_index [--events 1000000] [--ten-million] [--gzip] [--dir /tmp] [--keep]
//   bench_timeline_index --file TRACE [--file TRACE ...]   (existing traces instead of generated ones)
// Goals (issue 19): 10M events in <= 120 bytes per event; frames <= 16 ms. docs/traces.md has the numbers.
#include "bench_memory.h"
#include "trace_generator.h"
#include "zoom_sweep.h"

#include <fathom/trace/timeline_index.h>
#include <fathom/trace/timeline_queries.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

using namespace fathom::trace;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

struct Sweep {
  std::vector<double> frameMs;
  std::size_t maxRects = 0;
};

/// Draws every lane's every depth and every counter series over [t0, t1) at `pixels`; returns the rectangles and
/// counter columns.
std::size_t frame(const TimelineIndex& index, TimeRange r, std::uint32_t pixels, std::vector<MergedSlice>& scratch,
                  std::vector<CounterPixel>& columns) {
  std::size_t rects = 0;
  for (const TimelineLane& lane : index.lanes()) {
    for (std::uint32_t d = 0; d < lane.depthCount(); ++d) {
      mergeForPixels(lane, d, r, pixels, scratch);
      rects += scratch.size();
    }
  }
  for (const TimelineCounter& counter : index.counters()) {
    mergeCounterForPixels(counter, r, pixels, columns);
    rects += columns.size();
  }
  return rects;
}

Sweep sweep(const TimelineIndex& index, std::uint32_t pixels) {
  Sweep s;
  std::vector<MergedSlice> scratch;
  std::vector<CounterPixel> columns;
  auto draw = [&](std::int64_t a, std::int64_t b) {
    const Clock::time_point t = Clock::now();
    const std::size_t rects = frame(index, {a, b}, pixels, scratch, columns);
    s.frameMs.push_back(msSince(t));
    s.maxRects = std::max(s.maxRects, rects);
  };
  fathom::bench::zoomPanSweep(index.data().startNs, index.data().endNs + 1, draw);
  return s;
}

/// Loads `path` and runs the sweep and the click queries on it.
void measure(const fs::path& path) {
  fathom::bench::PeakGrowth memory;
  Clock::time_point t = Clock::now();
  std::optional<TimelineIndex> index = TimelineIndex::load(path);
  const double loadMs = msSince(t);
  const long peakKiB = memory.kib();
  const long afterKiB = memory.nowKiB();
  const double n = static_cast<double>(index->data().events);
  std::printf("load: %.0f ms (%.2f M events/s); index %.1f bytes/event (%.1f MiB); RSS after load %.1f bytes/event, "
              "peak during load %.1f bytes/event; %zu lanes, %llu slices\n",
              loadMs, n / loadMs / 1000.0, static_cast<double>(index->memoryBytes()) / n,
              static_cast<double>(index->memoryBytes()) / 1048576.0, static_cast<double>(afterKiB) * 1024.0 / n,
              static_cast<double>(peakKiB) * 1024.0 / n, index->lanes().size(),
              static_cast<unsigned long long>(index->sliceCount()));

  const Sweep s = sweep(*index, 1920);
  std::printf("sweep at 1920 px, all %zu lanes and depths and %zu counter series per frame: %zu frames, p50 %.3f ms, "
              "p99 %.3f ms, max %.3f ms; at most %zu rectangles and counter columns a frame\n",
              index->lanes().size(), index->counters().size(), s.frameMs.size(),
              fathom::bench::percentile(s.frameMs, 0.5), fathom::bench::percentile(s.frameMs, 0.99),
              *std::max_element(s.frameMs.begin(), s.frameMs.end()), s.maxRects);

  // Clicks and panels: a hit test, a search, an area over one step of one rank and over everything.
  std::uint32_t busiest = 0;  // the lane with the most slices
  for (std::uint32_t l = 0; l < index->lanes().size(); ++l) {
    busiest = index->lane(l).sliceCount() > index->lane(busiest).sliceCount() ? l : busiest;
  }
  const TimelineLane& lane = index->lane(busiest);
  t = Clock::now();
  std::size_t hits = 0;
  for (int i = 0; i < 10'000; ++i) {
    const std::int64_t at = index->data().startNs + (index->data().endNs - index->data().startNs) / 10'000 * i;
    hits += sliceAt(lane, std::min(2u, lane.depthCount() - 1), at, 1000).has_value() ? 1 : 0;
  }
  const double hitUs = msSince(t) * 1000.0 / 10'000.0;
  t = Clock::now();
  const SearchResult found = searchSlices(*index, {.pattern = "aten::addmm"});
  const double searchMs = msSince(t);
  t = Clock::now();
  const SearchResult regex = searchSlices(*index, {.pattern = "^nccl.*AllReduce", .regex = true});
  const double regexMs = msSince(t);
  // One step (or, without steps, the middle 1 % of the trace) on the busiest lane's process.
  const std::int64_t middle = index->data().startNs + (index->data().endNs - index->data().startNs) / 2;
  TimeRange stepRange{middle, middle + (index->data().endNs - index->data().startNs) / 100 + 1};
  if (!index->steps().empty()) {
    const TimelineStep& step = index->steps()[index->steps().size() / 2];
    const TimelineLane& stepLane = index->lane(step.slice.lane);
    stepRange = {stepLane.start[step.slice.index], stepLane.end[step.slice.index] + 1};
  }
  std::vector<std::uint32_t> rankLanes = index->processes()[lane.process].lanes;
  t = Clock::now();
  const AreaAggregation area = aggregateArea(*index, stepRange, rankLanes);
  const double areaStepMs = msSince(t);
  std::vector<std::uint32_t> all(index->lanes().size());
  for (std::uint32_t l = 0; l < all.size(); ++l) {
    all[l] = l;
  }
  t = Clock::now();
  const AreaAggregation everything = aggregateArea(*index, {index->data().startNs, index->data().endNs + 1}, all);
  const double areaAllMs = msSince(t);
  std::printf("hit test %.2f us (%zu hits); search substring %.1f ms (%zu matches), regex %.1f ms (%zu); area of one "
              "step on one rank %.1f ms (%zu names), of everything %.1f ms (%zu ranks)\n\n",
              hitUs, hits, searchMs, found.total, regexMs, regex.total, areaStepMs, area.byName.size(), areaAllMs,
              everything.ranks.size());
  std::fflush(stdout);
}

void run(const fs::path& dir, std::uint64_t events, bool gzip, bool keep) {
  const fs::path path = dir / ("bench_timeline_" + std::to_string(events) + (gzip ? ".json.gz" : ".json"));
  const Clock::time_point t = Clock::now();
  const fathom::test::GeneratedTrace generated = fathom::test::generateTrace(path, {.events = events});
  std::printf("generated %s: %llu events (%llu slices, %llu flows, %llu counters), %.1f MB in %.1f s\n", path.c_str(),
              static_cast<unsigned long long>(generated.events), static_cast<unsigned long long>(generated.slices),
              static_cast<unsigned long long>(generated.flows), static_cast<unsigned long long>(generated.counters),
              static_cast<double>(generated.bytes) / 1e6, msSince(t) / 1000.0);
  std::fflush(stdout);
  measure(path);
  if (!keep) {
    fs::remove(path);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t events = 1'000'000;
  bool tenMillion = false;
  bool gzip = false;
  bool keep = false;
  fs::path dir = fs::temp_directory_path();
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--events" && i + 1 < argc) {
      events = std::stoull(argv[++i]);
    } else if (arg == "--ten-million") {
      tenMillion = true;
    } else if (arg == "--gzip") {
      gzip = true;
    } else if (arg == "--keep") {
      keep = true;
    } else if (arg == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (arg == "--file" && i + 1 < argc) {
      files.emplace_back(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--events N] [--ten-million] [--gzip] [--dir DIR] [--keep] [--file TRACE]...\n",
                   argv[0]);
      return 2;
    }
  }
  if (!files.empty()) {  // given traces (a real profiled run, say) instead of generated ones
    for (const fs::path& file : files) {
      std::printf("%s\n", file.c_str());
      measure(file);
    }
    return 0;
  }
  run(dir, events, gzip, keep);
  if (tenMillion) {
    run(dir, 10'000'000, gzip, keep);
  }
  return 0;
}
