// SPDX-License-Identifier: Apache-2.0
#include "timeline_start.h"

#include "timeline/timeline_view.h"

#include <fathom/common/error.h>
#include <fathom/trace/timeline_queries.h>
#include <fathom/trace/trace_event_view.h>

#include <QStringList>
#include <QTextStream>

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>
#include <vector>

using namespace Qt::StringLiterals;

namespace fathom::studio {
namespace {

std::optional<std::int64_t> wholeNumber(const QString& text) {
  const std::string s = text.trimmed().toStdString();
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || error != std::errc() || end != s.data() + s.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

/// ProfilerStep#`number`'s span: of `rank` when given, else of the lowest rank that has it (steps are by rank, then
/// start; a trace without ranks has them as nullopt, which sorts first).
std::optional<trace::TimeRange> stepSpan(const trace::TimelineIndex& index, std::int64_t number,
                                         std::optional<int> rank) {
  for (const trace::TimelineStep& step : index.steps()) {
    if (step.number == number && (!rank || step.rank == rank)) {
      const trace::TimelineLane& lane = index.lane(step.slice.lane);
      return trace::TimeRange{lane.start[step.slice.index], lane.end[step.slice.index]};
    }
  }
  return std::nullopt;
}

/// The span of a slice (`details`) and of the slices its flows link (its launches' kernels, its launcher), with a tenth
/// of margin each side (at least 1 µs): a selection shown with its arrows on screen.
trace::TimeRange withLinked(const trace::TimelineIndex& index, const trace::SliceDetails& details) {
  trace::TimeRange span{details.startNs, details.startNs + details.durationNs};
  for (const std::vector<trace::SliceRef>* linked : {&details.launched, &details.flowsOut, &details.flowsIn}) {
    for (const trace::SliceRef& other : *linked) {
      const trace::TimelineLane& lane = index.lane(other.lane);
      span.startNs = std::min(span.startNs, lane.start[other.index]);
      span.endNs = std::max(span.endNs, lane.end[other.index]);
    }
  }
  const std::int64_t margin = std::max<std::int64_t>((span.endNs - span.startNs) / 10, 1'000);
  return {span.startNs - margin, span.endNs + margin};
}

void warn(const QString& message) {
  QTextStream(stderr) << "fathom-studio: " << message << Qt::endl;
}

}  // namespace

QString checkTimelineStart(const TimelineStart& start) {
  // The form only: one parse with an empty trace would need an index, so check the pieces here.
  for (const auto& [text, flag, allowRank] :
       {std::tuple(start.range, "--range", false), std::tuple(start.area, "--area", true)}) {
    if (text.isEmpty()) {
      continue;
    }
    const QStringList parts = text.split(u',');
    const bool step = parts[0].startsWith(u"step:"_s);
    const qsizetype rankAt = step ? 1 : 2;
    bool ok = parts.size() == rankAt || (allowRank && parts.size() == rankAt + 1);
    if (ok && step) {
      ok = wholeNumber(parts[0].mid(5)).has_value();
    } else if (ok) {
      ok = trace::microsToNanos(parts[0].trimmed().toStdString()) &&
           trace::microsToNanos(parts[1].trimmed().toStdString());
    }
    if (ok && parts.size() == rankAt + 1) {
      ok = wholeNumber(parts[rankAt]).has_value();
    }
    if (!ok) {
      return u"%1 %2: expected FROM,TO (microseconds on the trace's clock, as fathom trace summary --from/--to) or "
             u"step:N%3"_s.arg(QString::fromLatin1(flag), text, allowRank ? u", then optionally ,RANK"_s : QString());
    }
  }
  return QString();
}

StartRange resolveStartRange(const trace::TimelineIndex& index, const QString& text, const char* flag, bool allowRank) {
  const std::string shown = text.toStdString();
  const QStringList parts = text.split(u',');
  const bool step = parts[0].startsWith(u"step:"_s);
  const qsizetype rankAt = step ? 1 : 2;
  FATHOM_CHECK(parts.size() == rankAt || (allowRank && parts.size() == rankAt + 1), ConfigError, flag, " ", shown,
               ": expected FROM,TO or step:N", allowRank ? " (then optionally ,RANK)" : "");
  StartRange out;
  if (parts.size() == rankAt + 1) {
    const std::optional<std::int64_t> rank = wholeNumber(parts[rankAt]);
    FATHOM_CHECK(rank && *rank <= std::numeric_limits<int>::max(), ConfigError, flag, " ", shown,
                 ": RANK must be a whole number >= 0");
    out.rank = static_cast<int>(*rank);
  }
  if (step) {
    const std::optional<std::int64_t> number = wholeNumber(parts[0].mid(5));
    FATHOM_CHECK(number.has_value(), ConfigError, flag, " ", shown, ": N in step:N must be a whole number >= 0");
    const std::optional<trace::TimeRange> span = stepSpan(index, *number, out.rank);
    FATHOM_CHECK(span.has_value(), ConfigError, flag, " ", shown, ": the trace has no ProfilerStep#", *number,
                 out.rank ? " on rank " + std::to_string(*out.rank) : std::string());
    out.range = *span;
  } else {
    const std::optional<std::int64_t> from = trace::microsToNanos(parts[0].trimmed().toStdString());
    const std::optional<std::int64_t> to = trace::microsToNanos(parts[1].trimmed().toStdString());
    FATHOM_CHECK(from && to, ConfigError, flag, " ", shown,
                 ": expected microseconds, as the file's ts (e.g. 1500.250,1800)");
    out.range = trace::TimeRange{*from, *to};
  }
  FATHOM_CHECK(out.range.startNs < out.range.endNs, ConfigError, flag, " ", shown, ": the range is empty");
  return out;
}

namespace {

void apply(views::TimelineView* view, const TimelineStart& start) {
  const trace::TimelineIndex* index = view->index();
  if (index == nullptr) {
    return;  // the load failed: the view shows why
  }
  std::optional<trace::TimeRange> range;
  if (!start.range.isEmpty()) {
    try {
      range = resolveStartRange(*index, start.range, "--range", false).range;
      view->setVisibleRange(*range);
    } catch (const Error& e) {
      warn(QString::fromUtf8(e.what()));
    }
  }
  if (!start.select.isEmpty()) {
    try {
      trace::SearchOptions search;
      search.pattern = start.select.toStdString();
      search.regex = true;
      search.caseSensitive = true;
      const trace::SearchResult found = trace::searchSlices(*index, search);
      // The first match in time; with a --range, the first that starts in it (matches are sorted by start).
      const auto match = std::find_if(found.matches.begin(), found.matches.end(), [&](const trace::SliceRef& m) {
        return !range || index->lane(m.lane).start[m.index] >= range->startNs;
      });
      if (match == found.matches.end()) {
        warn(u"--select %1: no slice's name matches%2"_s.arg(start.select, range ? u" in --range"_s : QString()));
      } else {
        view->selectSlice(*match);
        if (!range) {
          view->revealSlice(*match);  // scrolls its row into view
          const trace::SliceDetails details = trace::sliceDetails(*index, *match, /*readArgs=*/false);
          view->setVisibleRange(withLinked(*index, details));
          // Then the row of the work it launched (or of its launcher), so that the arrow between them is on screen:
          // a rank's GPU rows follow its CPU rows, so both fit (the rows scroll only as far as needed).
          const std::vector<trace::SliceRef>& linked = details.launched.empty() ? details.flowsIn : details.launched;
          if (!linked.empty()) {
            view->ensureLaneVisible(linked.front().lane,
                                    index->lane(linked.front().lane).depthOf(linked.front().index));
          }
        }
      }
    } catch (const Error& e) {
      warn(QString::fromUtf8(e.what()));
    }
  }
  if (!start.area.isEmpty()) {
    try {
      const StartRange area = resolveStartRange(*index, start.area, "--area", true);
      std::vector<std::uint32_t> lanes;
      for (std::uint32_t lane = 0; lane < index->lanes().size(); ++lane) {
        const trace::TimelineProcess& process = index->processes()[index->lane(lane).process];
        if (!area.rank || process.rank == area.rank) {
          lanes.push_back(lane);
        }
      }
      if (lanes.empty()) {
        warn(u"--area %1: the trace has no lanes of rank %2"_s.arg(start.area).arg(*area.rank));
      } else {
        view->setAreaSelection(area.range, std::move(lanes));
      }
    } catch (const Error& e) {
      warn(QString::fromUtf8(e.what()));
    }
  }
}

}  // namespace

void applyTimelineStartWhenLoaded(views::TimelineView* view, const TimelineStart& start) {
  if (start.empty()) {
    view->setProperty(kStartAppliedProperty, true);
    return;
  }
  const auto run = [view, start] {
    apply(view, start);
    view->setProperty(kStartAppliedProperty, true);
  };
  if (view->index() != nullptr && !view->isLoading()) {
    run();
    return;
  }
  auto* once = new QObject(view);  // disconnects both after the first of loaded() / loadFailed()
  QObject::connect(view, &views::TimelineView::loaded, once, [run, once] {
    run();
    once->deleteLater();
  });
  QObject::connect(view, &views::TimelineView::loadFailed, once, [view, once] {
    view->setProperty(kStartAppliedProperty, true);
    once->deleteLater();
  });
}

}  // namespace fathom::studio
