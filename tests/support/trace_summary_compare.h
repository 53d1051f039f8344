// SPDX-License-Identifier: Apache-2.0
// Field-by-field QCOMPARE of two TraceSummary values, for tests that check that two ways of computing "the summary of
// a range" agree (the CLI's and the timeline's area aggregation; an original trace's and its range export's).
#pragma once

#include <fathom/trace/trace_summary.h>

#include <QTest>

namespace fathom::test {

inline void compareBreakdown(const trace::TimeBreakdown& a, const trace::TimeBreakdown& b) {
  QCOMPARE(a.spanNs, b.spanNs);
  QCOMPARE(a.computeNs, b.computeNs);
  QCOMPARE(a.communicationNs, b.communicationNs);
  QCOMPARE(a.dataLoadingNs, b.dataLoadingNs);
  QCOMPARE(a.memoryNs, b.memoryNs);
  QCOMPARE(a.idleNs, b.idleNs);
  QCOMPARE(a.overlapNs, b.overlapNs);
}

inline void compareOps(const std::vector<trace::OpStats>& a, const std::vector<trace::OpStats>& b) {
  QCOMPARE(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    QCOMPARE(a[i].name, b[i].name);
    QCOMPARE(a[i].count, b[i].count);
    QCOMPARE(a[i].totalNs, b[i].totalNs);
    QCOMPARE(a[i].selfNs, b[i].selfNs);
    QCOMPARE(a[i].maxNs, b[i].maxNs);
  }
}

/// What two summaries must share: every number but `file`, `events` (a count of the file's elements) and `rank`,
/// and the memory peaks only when `memory` (the timeline's area aggregation leaves them out).
inline void compareSummaries(const trace::TraceSummary& expected, const trace::TraceSummary& actual,
                             bool memory = false) {
  QCOMPARE(static_cast<int>(actual.timeline), static_cast<int>(expected.timeline));
  QCOMPARE(actual.traceSpanNs, expected.traceSpanNs);
  QCOMPARE(actual.steps.size(), expected.steps.size());
  for (std::size_t i = 0; i < expected.steps.size(); ++i) {
    QCOMPARE(actual.steps[i].step, expected.steps[i].step);
    QCOMPARE(actual.steps[i].startNs, expected.steps[i].startNs);
    compareBreakdown(actual.steps[i].time, expected.steps[i].time);
  }
  compareBreakdown(actual.total, expected.total);
  compareOps(actual.topOps, expected.topOps);
  compareOps(actual.topKernels, expected.topKernels);
  compareOps(actual.spans, expected.spans);
  QCOMPARE(actual.collectives.size(), expected.collectives.size());
  for (std::size_t i = 0; i < expected.collectives.size(); ++i) {
    QCOMPARE(actual.collectives[i].kind, expected.collectives[i].kind);
    QCOMPARE(actual.collectives[i].count, expected.collectives[i].count);
    QCOMPARE(actual.collectives[i].totalNs, expected.collectives[i].totalNs);
    QCOMPARE(actual.collectives[i].bytes, expected.collectives[i].bytes);
  }
  if (memory) {
    QCOMPARE(actual.memory.size(), expected.memory.size());
    for (std::size_t i = 0; i < expected.memory.size(); ++i) {
      QCOMPARE(actual.memory[i].category, expected.memory[i].category);
      QCOMPARE(actual.memory[i].peakBytes, expected.memory[i].peakBytes);
    }
  }
}

}  // namespace fathom::test
