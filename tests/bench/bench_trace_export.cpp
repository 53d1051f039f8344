// SPDX-License-Identifier: Apache-2.0
// Trace export speed and memory (issue 8): ChromeTraceWriter writes N synthetic events, generated on the fly so the
// input takes no memory, to .json and .json.gz; events/s is the median of RUNS runs. Each operation's peak RSS
// growth (VmHWM after it minus VmRSS before it) shows whether memory grows with the event count: for the writer
// it is the same at 1M and 4M events. Then the tools on the written files: reading (scan only), validating,
// summarizing and merging two ranks.
//
//   bench_trace_export [--events 1000000,4000000] [--runs 5] [--dir /tmp]
// Target: >= 1,000,000 events/s uncompressed on the 2-core development machine. docs/traces.md has the numbers.
#include "bench_memory.h"

#include <fathom/trace/chrome_trace_writer.h>
#include <fathom/trace/trace_merge.h>
#include <fathom/trace/trace_reader.h>
#include <fathom/trace/trace_summary.h>
#include <fathom/trace/trace_validator.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <malloc.h>
#include <unistd.h>

using namespace fathom::trace;
namespace fs = std::filesystem;

namespace {

using fathom::bench::PeakGrowth;

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Writes `events` typical events: ATen ops with three args (External id, Input Dims, Input type), one after the
/// other on one thread, and a ProfilerStep#N around every 999 of them. Returns the seconds it took.
double writeTrace(const fs::path& file, std::uint64_t events, int rank) {
  static constexpr std::array<std::string_view, 6> kNames = {"aten::linear",     "aten::addmm", "aten::relu",
                                                             "aten::layer_norm", "aten::add_",  "aten::mm"};
  static constexpr std::array<std::string_view, 3> kDims = {"[[32, 128], [128, 512], [512]]", "[[32, 512]]",
                                                            "[[32, 128], [128, 128]]"};
  TraceHeader header;
  header.baseTimeNs = 1'000'000'000;
  header.baseTimeUnixNs = 1'700'000'000'000'000'000 + rank * 1'000;
  header.distributed = {.backend = "gloo", .rank = rank, .worldSize = 2};
  header.traceName = file.filename().string();
  const auto start = std::chrono::steady_clock::now();
  ChromeTraceWriter writer(file, header);
  writer.writeProcessName(4242, "rank " + std::to_string(rank));
  writer.writeThreadName(4242, 4242, "main");
  std::int64_t t = header.baseTimeNs;
  std::string step;  // reused: no allocation per event
  for (std::uint64_t i = 1; i < events; ++i) {
    if (i % 1000 == 0) {  // the step around the last 999 ops: from the first one's start to the last one's end
      step.assign("ProfilerStep#");
      char digits[24];
      step.append(digits, std::to_chars(digits, digits + sizeof digits, i / 1000).ptr);
      writer.write({.category = TraceCategory::UserAnnotation,
                    .name = step,
                    .startNs = t - 999'000,
                    .durationNs = 998'850,
                    .pid = 4242,
                    .tid = 4242});
      continue;
    }
    const TraceArg args[] = {TraceArg::integer("External id", static_cast<std::int64_t>(i)),
                             TraceArg::json("Input Dims", kDims[i % kDims.size()]),
                             TraceArg::string("Input type", "float")};
    writer.write({.category = TraceCategory::CpuOp,
                  .name = kNames[i % kNames.size()],
                  .startNs = t,
                  .durationNs = 850,
                  .pid = 4242,
                  .tid = 4242,
                  .args = args});
    t += 1000;
  }
  writer.finish();
  return seconds(start);
}

struct Row {
  std::string what;
  std::uint64_t events = 0;
  double eventsPerSecond = 0;
  double megabytes = 0;
  long rssGrowthKiB = 0;
};

std::vector<std::uint64_t> parseCounts(const char* text) {
  std::vector<std::uint64_t> out;
  for (const char* p = text; *p;) {
    out.push_back(std::strtoull(p, const_cast<char**>(&p), 10));
    p += *p == ',' ? 1 : 0;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::uint64_t> counts{1'000'000, 4'000'000};
  int runs = 5;
  fs::path dir = fs::temp_directory_path();
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--events") == 0) {
      counts = parseCounts(argv[i + 1]);
    } else if (std::strcmp(argv[i], "--runs") == 0) {
      runs = std::max(1, std::atoi(argv[i + 1]));
    } else if (std::strcmp(argv[i], "--dir") == 0) {
      dir = argv[i + 1];
    }
  }
  dir /= "fathom-bench-trace-" + std::to_string(::getpid());
  fs::create_directories(dir);
  std::vector<Row> rows;
  for (const std::uint64_t n : counts) {
    for (const char* extension : {".json", ".json.gz"}) {
      const fs::path file = dir / ("rank0" + std::string(extension));
      std::vector<double> rates;
      const PeakGrowth peak;
      for (int r = 0; r < runs; ++r) {
        const double s = writeTrace(file, n, 0);
        rates.push_back(static_cast<double>(n) / s);
        std::fprintf(stderr, "write %s %llu events: %.3f s (%.0f events/s)\n", extension,
                     static_cast<unsigned long long>(n), s, rates.back());
      }
      rows.push_back({std::string("write ") + extension, n, median(rates),
                      static_cast<double>(fs::file_size(file)) / 1e6, peak.kib()});
    }
    // The tools, once each, on this size's files (the .json.gz one is still there; write the .json ones again).
    const fs::path json0 = dir / "rank0.json";
    const fs::path json1 = dir / "rank1.json";
    writeTrace(json0, n, 0);
    writeTrace(json1, n, 1);
    auto timed = [&](const std::string& what, std::uint64_t events, auto&& fn) {
      const PeakGrowth peak;
      const auto start = std::chrono::steady_clock::now();
      fn();
      const double s = seconds(start);
      std::fprintf(stderr, "%s %llu events: %.3f s\n", what.c_str(), static_cast<unsigned long long>(events), s);
      rows.push_back({what, events, static_cast<double>(events) / s, 0, peak.kib()});
    };
    timed("read .json (scan)", n, [&] {
      TraceReader reader(json0);
      while (reader.next()) {
      }
    });
    timed("read .json.gz (scan)", n, [&] {
      TraceReader reader(dir / "rank0.json.gz");
      while (reader.next()) {
      }
    });
    timed("validate .json", n, [&] {
      const TraceValidationReport report = TraceValidator().validate(json0);
      if (!report.valid()) {
        std::fprintf(stderr, "unexpected: %s\n", report.errors.front().message.c_str());
        std::exit(1);
      }
    });
    timed("summary .json", n, [&] { summarizeTrace(json0); });
    timed("merge 2 ranks -> .json", 2 * n, [&] {
      const std::vector<fs::path> inputs{json0, json1};
      mergeTraces(inputs, dir / "merged.json");
    });
    for (const char* name : {"rank0.json", "rank1.json", "rank0.json.gz", "merged.json"}) {
      fs::remove(dir / name);
    }
  }
  fs::remove_all(dir);

  std::printf("| operation | events | events/s | file (MB) | peak RSS growth (MiB) |\n|---|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %llu | %.2fM | %s | %.1f |\n", r.what.c_str(), static_cast<unsigned long long>(r.events),
                r.eventsPerSecond / 1e6, r.megabytes > 0 ? std::to_string(static_cast<int>(r.megabytes)).c_str() : "",
                static_cast<double>(r.rssGrowthKiB) / 1024.0);
  }
  std::printf(
      "\nWrites: median of %d runs. Peak RSS growth: the peak resident set during the operation minus the resident "
      "set before it (VmHWM reset through /proc/self/clear_refs).\nReproduce: cmake --preset default "
      "-DFATHOM_BUILD_BENCHMARKS=ON && cmake --build build/default --target bench_trace_export && "
      "build/default/bench/bench_trace_export --runs %d\n",
      runs, runs);
  return 0;
}
