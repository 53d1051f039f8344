// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/trace/trace_input.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>

namespace fathom::trace {

/// How copyTrace writes its output.
struct TraceCopyOptions {
  /// Compress the output with gzip. Unset: when the output's name ends with ".gz".
  std::optional<bool> gzip;
  /// Called every `progressEvery` events of the check with the count so far.
  std::function<void(std::uint64_t)> onProgress;
  std::uint64_t progressEvery = 10'000'000;  ///< >= 1
};

/// What copyTrace did.
struct TraceCopyResult {
  std::uint64_t events = 0;        ///< events the input holds (all checked)
  std::uint64_t bytesWritten = 0;  ///< bytes of the output file
  bool gzip = false;               ///< the output is gzip-compressed
};

/// Reads every event of a trace with the checks every reader applies (the JSON text, a complete file, and
/// `ph`/`ts`/`dur` as docs/traces.md "What the readers accept" says) and returns how many it holds. Throws
/// StorageError naming the input, the event, the byte and what is wrong; a truncated input says "truncated".
std::uint64_t checkTraceEvents(TraceInput input, const TraceCopyOptions& options = {});

/// Writes the trace `open()` yields to `output`, gzip-compressed or not (TraceCopyOptions::gzip), after reading all
/// of it with checkTraceEvents: a trace that is truncated, malformed or breaks the readers' rules is refused with a
/// StorageError, and nothing is written. The output goes through TraceFileSink (fathom::AtomicFile:
/// "<output>.partial", fsync, rename), so an error at any point, a full disk included, leaves a previous `output`
/// exactly as it was. `open` is called twice (once to check, once to copy): the text is copied as it is, only
/// (de)compressed, so what was checked is what is written.
TraceCopyResult copyTrace(const std::function<TraceInput()>& open, const std::filesystem::path& output,
                          const TraceCopyOptions& options = {});

}  // namespace fathom::trace
