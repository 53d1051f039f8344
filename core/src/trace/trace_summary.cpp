// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_summary.h"

#include "event_fields.h"
#include "fathom/common/error.h"
#include "fathom/trace/trace_event_view.h"
#include "fathom/trace/trace_merge.h"
#include "fathom/trace/trace_reader.h"
#include "trace_summarizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace fathom::trace {
namespace {

/// Feeds one event to the summarizer: complete events with the few args it reads, `Memory` counters and
/// `[memory]` instants. `times` were checked by readCheckedEvent (X events have ts and dur >= 0, every other phase
/// but M a ts). `args` and `thread` are scratch space reused across events.
void add(detail::TraceSummarizer& summarizer, const TraceEventView& e, const detail::EventTimes& times,
         TraceEventView& args, std::string& thread) {
  const char phase = times.phase;
  if (phase == 'X') {
    const std::string_view name = e.string("name").value_or("");
    const std::string_view cat = detail::summaryCategory(e, name);
    detail::SummaryArgs facts;
    if (detail::summaryReadsArgs(cat, name) && args.parse(e.raw("args"))) {
      facts = detail::summaryArgsOf(args);
    }
    thread.assign(e.raw("pid"));
    thread += '/';
    thread += e.raw("tid");
    summarizer.addComplete(cat, name, *times.ts, *times.ts + times.dur, thread, facts);
  } else if (phase == 'C' || phase == 'i' || phase == 'I') {
    const std::string_view wanted = phase == 'C' ? "Memory" : "[memory]";
    if (e.string("name") != wanted || !args.parse(e.raw("args"))) {
      return;
    }
    if (phase == 'C') {
      summarizer.addMemoryCounter(*times.ts, args);
    } else {
      summarizer.addMemoryInstant(*times.ts, args);
    }
  }
}

std::string joined(const std::vector<int>& ranks) {
  std::string out;
  for (const int r : ranks) {
    out += (out.empty() ? "" : ", ") + std::to_string(r);
  }
  return out;
}

}  // namespace

TraceSummary summarizeTrace(const std::filesystem::path& path, const TraceSummaryOptions& options) {
  FATHOM_CHECK(options.progressEvery >= 1, ConfigError, "TraceSummaryOptions::progressEvery must be >= 1");
  TraceReader reader(path);
  // A merged trace interleaves every rank's rows; summed together its steps, self times and overlap would describe
  // no rank, so it is summarized one rank at a time.
  const std::vector<int> ranks = detail::mergedRanks(reader.metadata());
  if (!ranks.empty()) {
    FATHOM_CHECK(options.rank.has_value(), ConfigError, path.string(), " is a merged trace of ranks ", joined(ranks),
                 ": choose one with --rank R (or summarize that rank's own file)");
    FATHOM_CHECK(std::find(ranks.begin(), ranks.end(), *options.rank) != ranks.end(), ConfigError, "--rank ",
                 *options.rank, ": ", path.string(), " is a merged trace of ranks ", joined(ranks));
  }
  FATHOM_CHECK(!options.range || options.range->startNs < options.range->endNs, ConfigError,
               "TraceSummaryOptions::range must not be empty, got [", options.range ? options.range->startNs : 0, ", ",
               options.range ? options.range->endNs : 0, ")");
  std::optional<detail::Interval> clip;
  if (options.range) {
    clip = detail::Interval{options.range->startNs, options.range->endNs};
  }
  detail::TraceSummarizer summarizer(clip);
  TraceEventView event;
  TraceEventView args;
  std::string thread;
  std::uint64_t summarized = 0;
  while (reader.next()) {
    // Every event is checked, also those of other ranks: a file with broken events is refused, not half read.
    const detail::EventTimes times = detail::readCheckedEvent(reader, event);
    if (!ranks.empty()) {
      const std::optional<std::int64_t> pid = event.integer("pid");
      if (!pid || mergedRankOf(*pid) != *options.rank) {
        continue;
      }
    }
    add(summarizer, event, times, args, thread);
    ++summarized;
    if (options.onProgress && reader.eventCount() % options.progressEvery == 0) {
      options.onProgress(reader.eventCount());
    }
  }
  TraceSummary summary = summarizer.finish(options.top);
  summary.file = path.string();
  summary.events = summarized;
  if (!ranks.empty()) {
    summary.rank = options.rank;
  } else {
    summary.rank = detail::fileRank(reader.metadata());  // complete now: distributedInfo may follow traceEvents
    FATHOM_CHECK(!options.rank || summary.rank == options.rank, ConfigError, "--rank ", *options.rank, ": ",
                 path.string(), " holds ", summary.rank ? "rank " + std::to_string(*summary.rank) : "no rank", " only");
  }
  return summary;
}

}  // namespace fathom::trace
