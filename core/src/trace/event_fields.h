// SPDX-License-Identifier: Apache-2.0
// The fields every reader of a trace relies on (ph, ts, dur), read and checked in one place, so the summary, the merge,
// the timeline index, the range export and `fathom trace export` accept and refuse the same events
// (docs/traces.md, "What the readers accept").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fathom::trace {
class TraceEventView;
class TraceReader;
}  // namespace fathom::trace

namespace fathom::trace::detail {

/// An event's phase and times, in exact nanoseconds (parseMicros).
struct EventTimes {
  char phase = '\0';               ///< the first character of `ph`
  std::optional<std::int64_t> ts;  ///< absent only on metadata (M) events without a ts
  std::int64_t dur = 0;            ///< X events' dur (>= 0); 0 for the other phases
};

/// What the rules expect, in words (the validator's findings say the same).
inline constexpr std::string_view kExpectedPhase = "a phase string such as \"X\"";
inline constexpr std::string_view kExpectedMicros = "a JSON number of microseconds";
inline constexpr std::string_view kExpectedDuration = "a JSON number of microseconds >= 0";

/// One field that breaks the readers' rules.
struct EventFieldProblem {
  std::string_view field;     ///< "ph", "ts" or "dur"
  std::string_view expected;  ///< what the rule wants, in words
  std::string_view found;     ///< the raw value text (a view into the event's text); empty when absent
};

/// Reads `event`'s phase and times into `out`. The rules, the loaders' where they agree and Fathom's where they do
/// not (a value Perfetto coerces or drops would make every number Fathom computes from it wrong, so it is refused):
/// - `ph`: a non-empty string (Perfetto and HTA drop an event without one);
/// - `ts`: a JSON number of microseconds, on every event but metadata (M), where it may be absent. A string
///   ("12.5"), which Perfetto coerces and JSON.parse-based tools do not, is refused;
/// - `dur` (X events): a JSON number of microseconds >= 0 (Perfetto and HTA drop X events without one).
/// Returns the first broken rule, or nothing. Costs what reading ph, ts and dur costs: the fast path of every reader.
std::optional<EventFieldProblem> readEventTimes(const TraceEventView& event, EventTimes& out);

/// "\"ts\" is \"12.5\": expected a JSON number of microseconds" (the found text cut to 40 bytes; "has no \"ts\"" when
/// absent).
std::string describe(const EventFieldProblem& problem);

/// Parses the reader's current event into `event` (TraceEventView::parse) and reads its times with readEventTimes.
/// Throws StorageError naming the file, the event's index, the byte offset and line, the field and what was
/// expected: "run.json: event #3: \"dur\" is -5.000: expected a JSON number of microseconds >= 0 at byte 812 (line
/// 5)".
EventTimes readCheckedEvent(const TraceReader& reader, TraceEventView& event);

}  // namespace fathom::trace::detail
