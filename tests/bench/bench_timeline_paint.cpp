// SPDX-License-Identifier: Apache-2.0
// The Studio's trace timeline painting (issue 19): TimelineView's paint time (TimelineView::lastPaint(), the whole
// paintEvent) over an automated sweep at 1920 x 1080 (fit -> zoom in to a 20 µs window -> pan across -> zoom out, as
// bench_timeline_index sweeps the bare queries), on generated 8-rank traces (tests/support/trace_generator.h), on the
// offscreen platform. Three passes: the top of the rows, the rows scrolled to the middle with a lane pinned, and the
// middle again with a search's matches outlined (aten::, about a third of the slices). Frames are p50/p99/max.
//
//   bench_timeline_paint [--events 1000000] [--ten-million] [--dir /tmp] [--keep] [--file TRACE ...]
// Goal (issue 19): every frame <= 16 ms, at 10M events too. docs/traces.md has the numbers.
#include "timeline/timeline_minimap.h"
#include "timeline/timeline_view.h"
#include "trace_generator.h"
#include "zoom_sweep.h"

#include <fathom/trace/timeline_index.h>
#include <fathom/trace/timeline_queries.h>

#include <QApplication>
#include <QScrollBar>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

using namespace fathom::trace;
using fathom::views::TimelineLayout;
using fathom::views::TimelineView;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

/// CPU time of this thread: on a shared machine, what a frame costs without the time it waited for a core.
double threadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Sweep {
  std::vector<double> frameMs;
  std::vector<double> cpuMs;
  int maxRows = 0;
  int maxRectangles = 0;
  int maxOutlines = 0;
};

Sweep sweep(TimelineView& view) {
  Sweep s;
  const TimelineIndex& index = *view.index();
  auto draw = [&](std::int64_t a, std::int64_t b) {
    view.setVisibleRange({a, b});
    const double cpu = threadCpuMs();
    view.viewport()->repaint();  // paints now, offscreen
    s.cpuMs.push_back(threadCpuMs() - cpu);
    const TimelineView::PaintStats& stats = view.lastPaint();
    s.frameMs.push_back(stats.milliseconds);
    s.maxRows = std::max(s.maxRows, stats.rows);
    s.maxRectangles = std::max(s.maxRectangles, stats.rectangles);
    s.maxOutlines = std::max(s.maxOutlines, stats.matchOutlines);
  };
  fathom::bench::zoomPanSweep(index.data().startNs, index.data().endNs, draw);
  return s;
}

void report(const char* pass, const Sweep& s) {
  std::printf("  %-34s %zu frames: paint p50 %5.2f, p99 %5.2f, max %5.2f ms (CPU p50 %5.2f, p99 %5.2f, max %5.2f ms); "
              "at most %d rows, %d rectangles, %d outlines a frame\n",
              pass, s.frameMs.size(), fathom::bench::percentile(s.frameMs, 0.5),
              fathom::bench::percentile(s.frameMs, 0.99), *std::max_element(s.frameMs.begin(), s.frameMs.end()),
              fathom::bench::percentile(s.cpuMs, 0.5), fathom::bench::percentile(s.cpuMs, 0.99),
              *std::max_element(s.cpuMs.begin(), s.cpuMs.end()), s.maxRows, s.maxRectangles, s.maxOutlines);
  std::fflush(stdout);
}

void measure(const fs::path& path) {
  Clock::time_point t = Clock::now();
  std::optional<TimelineIndex> loaded = TimelineIndex::load(path);
  const double loadMs = msSince(t);
  auto index = std::make_shared<const TimelineIndex>(std::move(*loaded));
  std::printf("%s: %llu events, %llu slices, %zu lanes, loaded in %.0f ms\n", path.c_str(),
              static_cast<unsigned long long>(index->data().events),
              static_cast<unsigned long long>(index->sliceCount()), index->lanes().size(), loadMs);

  TimelineView view;
  view.resize(1920 + 200 + 40, 1080);
  view.show();
  QApplication::processEvents();
  view.resize(view.width() + 1920 - view.plotWidth(), 1080);  // a plot exactly 1920 px wide
  QApplication::processEvents();
  view.setIndex(index);
  std::printf("  plot %d x %d px, %d rows' content height\n", view.plotWidth(), view.viewport()->height(),
              view.layout().contentHeight());
  report("top of the rows", sweep(view));

  // The minimap's density strip: computed once per width, in one pass over the outermost slices.
  fathom::views::TimelineMinimap minimap;
  minimap.resize(1920 + 200, 36);
  minimap.setIndex(index);
  t = Clock::now();
  const std::size_t columns = minimap.density().size();
  std::printf("  minimap density over %zu px: %.1f ms\n", columns, msSince(t));

  // The middle of the rows, with the busiest lane pinned (it is painted in every frame on top of the others).
  std::uint32_t busiest = 0;
  for (std::uint32_t l = 0; l < index->lanes().size(); ++l)
    busiest = index->lane(l).sliceCount() > index->lane(busiest).sliceCount() ? l : busiest;
  view.changeLayout([busiest](TimelineLayout& l) { l.setLanePinned(busiest, true); });
  view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum() / 2);
  report("middle of the rows, a lane pinned", sweep(view));

  t = Clock::now();
  SearchResult found = searchSlices(*index, {.pattern = "aten::"});
  const double searchMs = msSince(t);
  view.setSearchMatches(std::make_shared<const std::vector<SliceRef>>(std::move(found.matches)));
  std::printf("  search aten:: %.0f ms, %zu matches\n", searchMs, found.total);
  report("same, the matches outlined", sweep(view));
  std::printf("\n");
}

void run(const fs::path& dir, std::uint64_t events, bool keep) {
  const fs::path path = dir / ("bench_timeline_paint_" + std::to_string(events) + ".json");
  const Clock::time_point t = Clock::now();
  const fathom::test::GeneratedTrace generated = fathom::test::generateTrace(path, {.events = events});
  std::printf("generated %llu events in %.1f s\n", static_cast<unsigned long long>(generated.events),
              msSince(t) / 1000.0);
  measure(path);
  if (!keep)
    fs::remove(path);
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM",
          qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
  QApplication app(argc, argv);
  std::uint64_t events = 1'000'000;
  bool tenMillion = false;
  bool keep = false;
  fs::path dir = fs::temp_directory_path();
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--events" && i + 1 < argc) {
      events = std::stoull(argv[++i]);
    } else if (arg == "--ten-million") {
      tenMillion = true;
    } else if (arg == "--keep") {
      keep = true;
    } else if (arg == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (arg == "--file" && i + 1 < argc) {
      files.emplace_back(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--events N] [--ten-million] [--dir DIR] [--keep] [--file TRACE]...\n", argv[0]);
      return 2;
    }
  }
  if (!files.empty()) {
    for (const fs::path& file : files)
      measure(file);
    return 0;
  }
  if (!tenMillion || events != 1'000'000)
    run(dir, events, keep);
  if (tenMillion)
    run(dir, 10'000'000, keep);
  return 0;
}
