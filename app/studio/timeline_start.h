// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/timeline_index.h>
#include <fathom/trace/trace_summary.h>

#include <QString>

#include <optional>

namespace fathom::views {
class TimelineView;
}

namespace fathom::studio {

/// Where a trace opened from the command line starts: `fathom-studio TRACE --range … --select … --area …`. For scripts
/// and screenshots, and for users who open a trace at the step they care about. Times are microseconds on the trace's
/// own clock, as `fathom trace summary --from/--to` takes them, so a range found with the CLI opens as it is.
struct TimelineStart {
  QString range;  ///< the visible range: "FROM,TO" (µs) or "step:N" (ProfilerStep#N of the lowest rank that has it)
  /// An ECMAScript regex: the first slice in time whose name matches (the first in --range with one) is selected, its
  /// details and flows shown; without --range the view shows it with the slices its flows link.
  QString select;
  QString area;  ///< an area selection: "FROM,TO[,RANK]" or "step:N[,RANK]", over RANK's lanes (every lane without)

  bool empty() const { return range.isEmpty() && select.isEmpty() && area.isEmpty(); }
};

/// A range text resolved against a trace.
struct StartRange {
  trace::TimeRange range;   ///< ns on the index's clock (ts × 1000)
  std::optional<int> rank;  ///< the area's RANK
};

/// Checks the form of `start`'s texts (not the trace): an error naming the flag and the value, or an empty string.
QString checkTimelineStart(const TimelineStart& start);

/// Resolves `text` (a --range or --area value; `flag` names it in errors) against `index`. Throws ConfigError naming
/// the flag and the value for a malformed text, a step the trace lacks or an empty range.
StartRange resolveStartRange(const trace::TimelineIndex& index, const QString& text, const char* flag, bool allowRank);

/// Applies `start` to `view` once its trace is loaded (at once when it is), then sets the view's dynamic property
/// kStartAppliedProperty. What depends on the trace and fails (no step N, no slice matching) is printed to stderr
/// naming the flag; the rest still applies.
void applyTimelineStartWhenLoaded(views::TimelineView* view, const TimelineStart& start);

inline constexpr const char* kStartAppliedProperty = "fathomTimelineStartApplied";

}  // namespace fathom::studio
