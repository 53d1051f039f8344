// SPDX-License-Identifier: Apache-2.0
#include "event_fields.h"

#include "fathom/common/error.h"
#include "fathom/trace/trace_event_view.h"
#include "fathom/trace/trace_reader.h"
#include "trace/trace_json.h"

namespace fathom::trace::detail {

std::optional<EventFieldProblem> readEventTimes(const TraceEventView& event, EventTimes& out) {
  const std::string_view ph = event.raw("ph");
  if (ph.size() < 3 || ph.front() != '"') {  // the shortest phase string is "X" with its quotes
    return EventFieldProblem{"ph", kExpectedPhase, ph};
  }
  out.phase = ph[1];
  const std::string_view ts = event.raw("ts");
  if (ts.empty()) {
    if (out.phase != 'M') {
      return EventFieldProblem{"ts", kExpectedMicros, ts};
    }
    out.ts.reset();
  } else {
    out.ts = parseMicros(ts);
    if (!out.ts) {
      return EventFieldProblem{"ts", kExpectedMicros, ts};
    }
  }
  out.dur = 0;
  if (out.phase == 'X') {
    const std::string_view dur = event.raw("dur");
    const std::optional<std::int64_t> ns = parseMicros(dur);
    if (!ns || *ns < 0) {
      return EventFieldProblem{"dur", kExpectedDuration, dur};
    }
    out.dur = *ns;
  }
  return std::nullopt;
}

std::string describe(const EventFieldProblem& p) {
  // Appended piece by piece: GCC 12 reports a false -Wrestrict on `"\"" + std::string(...)` chains.
  std::string text;
  if (p.found.empty()) {
    text.append("has no \"").append(p.field).append("\"");
  } else {
    constexpr std::size_t kShown = 40;
    text.append("\"").append(p.field).append("\" is ").append(p.found.substr(0, kShown));
    if (p.found.size() > kShown) {
      text.append("...");
    }
  }
  text.append(": expected ").append(p.expected);
  return text;
}

EventTimes readCheckedEvent(const TraceReader& reader, TraceEventView& event) {
  if (!event.parse(reader.event())) {
    throw StorageError(reader.describeInEvent(
        event.errorOffset(), "malformed event #" + std::to_string(reader.eventIndex()) + ": " + event.error()));
  }
  EventTimes times;
  if (const std::optional<EventFieldProblem> p = readEventTimes(event, times)) {
    const std::size_t offset = p->found.empty() ? 0 : static_cast<std::size_t>(p->found.data() - reader.event().data());
    throw StorageError(
        reader.describeInEvent(offset, "event #" + std::to_string(reader.eventIndex()) + ": " + describe(*p)));
  }
  return times;
}

}  // namespace fathom::trace::detail
