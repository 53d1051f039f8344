// SPDX-License-Identifier: Apache-2.0
// The per-row part of TraceValidator: complete events (slices) and flow binding points per (pid, tid), checked
// once all are in, because a file need not list events in time order (Perfetto sorts before it nests).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace fathom::trace::detail {

/// How JSON microseconds became nanoseconds: current Perfetto rounds, older Perfetto truncated.
enum class NsConversion : std::uint8_t { Rounded, Truncated };

class SliceTimeline {
public:
  /// A slice [start, end] in rounded nanoseconds; `startCut`/`endCut` are how many ns truncation takes off its
  /// start and end (0..2). 24 bytes, so event indices are 32-bit.
  struct Slice {
    std::int64_t start;
    std::int64_t end;
    std::uint32_t event;
    std::uint8_t startCut;
    std::uint8_t endCut;
    std::int64_t startIn(NsConversion c) const { return c == NsConversion::Rounded ? start : start - startCut; }
    std::int64_t endIn(NsConversion c) const { return c == NsConversion::Rounded ? end : end - endCut; }
  };
  struct Point {
    std::int64_t ts;
    std::uint64_t event;
  };
  using RowKey = std::pair<std::int64_t, std::int64_t>;  ///< (pid, tid)

  /// A complete event on row (pid, tid); `event` is its index in traceEvents.
  void addSlice(std::int64_t pid, std::int64_t tid, const Slice& slice);
  /// A flow point that must lie inside a slice of its row (rounded ns): start/step flows and ends with "bp":"e".
  void addBindingPoint(std::int64_t pid, std::int64_t tid, std::int64_t ts, std::uint64_t event);

  /// Reports each slice that overlaps an earlier-starting slice of its row without nesting in it, with the slice
  /// it crosses, under `conversion`. Ties in start sort the longer slice first, as the outer one. Sorts the rows.
  void forEachOverlap(NsConversion conversion,
                      const std::function<void(const RowKey&, const Slice&, const Slice& other)>& report);
  /// Reports each binding point with no slice of its row where start <= ts <= end (rounded ns). Sorts the rows.
  void forEachUnboundPoint(const std::function<void(const RowKey&, const Point&)>& report);

private:
  struct Row {
    std::vector<Slice> slices;
    std::vector<Point> points;
  };
  void sortSlices(NsConversion conversion);

  std::map<RowKey, Row> m_rows;
};

}  // namespace fathom::trace::detail
