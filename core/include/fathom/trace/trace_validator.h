// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::trace {

/// How severe a broken rule is: an Error means some viewer drops, misplaces or refuses data; a Warning is legal
/// but worth knowing (it may be slow, ambiguous or differ from what Fathom writes).
enum class TraceIssueLevel : std::uint8_t { Error, Warning };

/// One rule the validator applies, for docs and `fathom trace validate --rules`.
struct TraceRule {
  std::string_view id;           ///< e.g. "nesting"
  TraceIssueLevel level;         ///< the level its findings get
  std::string_view description;  ///< what it checks, one sentence
  std::string_view source;       ///< which loader imposes it (docs/traces.md cites the code)
};

/// One finding.
struct TraceIssue {
  std::string rule;              ///< TraceRule::id
  std::string message;           ///< English, self-contained
  std::int64_t eventIndex = -1;  ///< the event's index in traceEvents; -1 for the file as a whole
  std::string excerpt;           ///< the start of the event's text (at most 160 bytes); empty for the file
  std::int64_t byteOffset = -1;  ///< the event's byte offset in the (uncompressed) text; -1 for the file
};

/// What the validator found.
struct TraceValidationReport {
  std::string file;                                    ///< the path validated
  std::vector<TraceIssue> errors;                      ///< at most TraceValidatorOptions::maxIssuesPerRule per rule
  std::vector<TraceIssue> warnings;                    ///< the same
  std::uint64_t errorCount = 0;                        ///< all errors, also those not kept in `errors`
  std::uint64_t warningCount = 0;                      ///< all warnings
  std::map<std::string, std::uint64_t> issuesPerRule;  ///< errors and warnings per rule id
  std::uint64_t events = 0;                            ///< elements of traceEvents read
  std::map<std::string, std::uint64_t> phases;         ///< events per `ph`
  std::map<std::string, std::uint64_t> categories;     ///< events per `cat` (events without one are not counted)
  /// No error (warnings allowed).
  bool valid() const { return errorCount == 0; }
};

struct TraceValidatorOptions {
  /// Findings kept per rule (all are counted); bounds the report's memory on a badly broken file.
  std::size_t maxIssuesPerRule = 20;
  /// Apply Holistic Trace Analysis's rules (object form, an int distributedInfo.rank). Off for plain Chrome traces.
  bool requireDistributedInfo = true;
  /// The "size" rule's limits: chrome://tracing fails on ~256 MiB of JSON (V8's string limit) and struggles with
  /// ~1M events (docs/traces.md, "Size limits").
  std::uint64_t chromeMaxBytes = std::uint64_t{256} << 20;  ///< uncompressed JSON bytes
  std::uint64_t chromeMaxEvents = 1'000'000;                ///< events
  /// Called every `progressEvery` events with the count so far.
  std::function<void(std::uint64_t)> onProgress;
  std::uint64_t progressEvery = 10'000'000;  ///< >= 1
};

/// Checks a Chrome/Kineto JSON trace (`.json` or `.json.gz`) against the rules Perfetto, chrome://tracing and
/// Holistic Trace Analysis apply when they load one (rules(); docs/traces.md, "Validate"). It reads independently
/// of the writer: each event is checked by a strict JSON checker (RFC 8259 grammar, escapes, well-formed UTF-8),
/// then read member by member, and timestamps are converted to nanoseconds the way Perfetto does (integers times
/// 1000; doubles rounded as current Perfetto does, and truncated as older versions did).
///
/// Streaming: memory grows only with what the rules need: 24 bytes per complete event (X) and 16 per flow point,
/// because rows must be sorted by time to check nesting as Perfetto does (events need not be ordered in a file),
/// the open flows, and the CUDA runtime correlation ids. A file that is not JSON, or is truncated, yields one
/// "json" error and the checks stop there.
class TraceValidator {
public:
  explicit TraceValidator(TraceValidatorOptions options = {});

  /// Validates one file. Never throws for problems in the file (they are findings); throws StorageError only when
  /// the file cannot be opened.
  TraceValidationReport validate(const std::filesystem::path& path) const;

  /// Every rule, in the order docs/traces.md lists them.
  static std::span<const TraceRule> rules();

private:
  TraceValidatorOptions m_options;
};

}  // namespace fathom::trace
