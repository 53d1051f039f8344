// SPDX-License-Identifier: Apache-2.0
// exportTraceRange on a generated 8-rank trace (tests/support/trace_generator.h): the time and peak memory of cutting
// one step of every rank, one step of one rank, half the trace and all of it (what `fathom trace export --from --to`
// and the Studio's "Export Range" cost), each run twice.
//   bench_trace_range_export [--events 1000000] [--dir DIR] [--file TRACE]
// With --file the ranges are fractions of that trace's span instead (its TimelineIndex gives the span).
#include "trace_generator.h"

#include <fathom/trace/timeline_index.h>
#include <fathom/trace/trace_range_export.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <malloc.h>
#include <string>
#include <vector>

namespace {

/// Resets the peak resident set to the current one (Linux: "5" to /proc/self/clear_refs).
void resetPeakRss() {
  ::malloc_trim(0);  // return the freed heap first (the index's, the previous export's)
  std::ofstream("/proc/self/clear_refs") << "5";
}

/// Peak resident set (VmHWM) in MiB.
long peakRssMiB() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("VmHWM:")) {
      return std::stol(line.substr(6)) / 1024;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  using namespace fathom::trace;
  std::uint64_t events = 1'000'000;
  fs::path dir = fs::temp_directory_path();
  fs::path file;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--events") {
      events = std::stoull(argv[i + 1]);
    } else if (arg == "--dir") {
      dir = argv[i + 1];
    } else if (arg == "--file") {
      file = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: %s [--events N] [--dir DIR] [--file TRACE]\n", argv[0]);
      return 2;
    }
  }
  try {
    if (file.empty()) {
      file = dir / "bench_trace_range_export.json";
      fathom::test::generateTrace(file, {.events = events, .ranks = 8});
    }
    std::int64_t lo = 0;
    std::int64_t span = 0;
    std::int64_t step = 0;
    std::uint64_t count = 0;
    {  // the span and the step length, then the index is released: the peak RSS below is the export's
      const std::optional<TimelineIndex> index = TimelineIndex::load(file);
      lo = index->data().startNs;
      span = index->data().endNs - lo;
      const auto perRank = static_cast<std::int64_t>(index->steps().size() / 8 + 1);
      step = index->steps().empty() ? span / 50 : span / perRank;
      count = index->data().events;
    }
    struct Case {
      const char* name;
      TraceRangeExportOptions options;
      const char* out;
    };
    const std::vector<Case> cases = {
        {"one step, every rank", {.range = TimeRange{lo + span / 3, lo + span / 3 + step}}, "step.json"},
        {"one step, rank 3", {.range = TimeRange{lo + span / 3, lo + span / 3 + step}, .rank = 3}, "step_r3.json"},
        {"half the trace", {.range = TimeRange{lo, lo + span / 2}}, "half.json"},
        {"all of it", {.range = TimeRange{lo, lo + span + 1}}, "all.json"},
        {"one step -> .json.gz", {.range = TimeRange{lo + span / 3, lo + span / 3 + step}}, "step.json.gz"},
    };
    std::printf("%s: %llu events, %llu bytes\n| export | written | seconds (2 runs) | input events/s | peak RSS MiB |\n"
                "|---|---:|---:|---:|---:|\n",
                file.string().c_str(), static_cast<unsigned long long>(count),
                static_cast<unsigned long long>(fs::file_size(file)));
    for (const Case& c : cases) {
      double seconds[2] = {0, 0};
      TraceRangeExportResult result;
      resetPeakRss();
      for (double& s : seconds) {
        const auto t0 = std::chrono::steady_clock::now();
        result = exportTraceRange(file, dir / c.out, c.options);
        s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      std::printf("| %s | %llu | %.2f / %.2f | %.2fM | %ld |\n", c.name,
                  static_cast<unsigned long long>(result.eventsWritten), seconds[0], seconds[1],
                  static_cast<double>(result.eventsRead) / std::min(seconds[0], seconds[1]) / 1e6, peakRssMiB());
      fs::remove(dir / c.out);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_trace_range_export: %s\n", e.what());
    return 1;
  }
  return 0;
}
