// SPDX-License-Identifier: Apache-2.0
// Writes realistic multi-rank Chrome/Kineto traces of any size for the timeline's tests and benchmarks
// (tests/bench/make_trace, bench_timeline_index, tst_timeline_index). Independent of Fathom's code (zlib only), so
// the reader and the index cannot vouch for themselves.
//
// Shape, per rank (the merged layout: pids rank * 1000 + i, distributedInfo.ranks lists them all):
// - pid R*1000 "rank R": the main thread (ProfilerStep#N > fathom::forward/backward/optimizer_step > aten ops nested
//   two deep > cudaLaunchKernel), a data loader span per step, Fathom's collectives row (fathom::all_reduce spans),
//   and `Memory` counters by category;
// - pid R*1000+1 "GPU R": stream 7 (compute kernels) and stream 13 (NCCL kernels), each kernel linked to its launch
//   by args.correlation and an `ac2g` flow (s on the launch, f with "bp":"e" on the kernel).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace fathom::test {

struct TraceGeneratorOptions {
  std::uint64_t events = 1'000'000;  ///< at least this many elements of traceEvents (metadata included)
  int ranks = 8;
  std::uint64_t seed = 1;
  int opsPerStep = 400;  ///< top-level ATen ops per step
  /// A straggler: this rank (its CPU and its streams) loses `slowRankDelayNs` before each step's backward, so it
  /// arrives last at the step's all-reduces, later with every step; -1: none.
  int slowRank = -1;
  std::int64_t slowRankDelayNs = 0;
};

/// What was written, for checks.
struct GeneratedTrace {
  std::uint64_t events = 0;
  std::uint64_t slices = 0;  ///< complete events
  std::uint64_t flows = 0;   ///< ac2g pairs
  std::uint64_t kernels = 0;
  std::uint64_t steps = 0;     ///< ProfilerStep spans over all ranks
  std::uint64_t counters = 0;  ///< Memory counter events
  std::uint64_t bytes = 0;     ///< bytes written (compressed when gzip)
};

/// Writes the trace to `path`, gzip-compressed (level 1) when the name ends with ".gz". Throws std::runtime_error
/// when the file cannot be written.
GeneratedTrace generateTrace(const std::filesystem::path& path, const TraceGeneratorOptions& options = {});

}  // namespace fathom::test
