// SPDX-License-Identifier: Apache-2.0
#include "timeline/timeline_selection.h"

#include <fathom/trace/timeline_queries.h>

#include <algorithm>

namespace fathom::views {

SliceHighlight highlightFor(const trace::TimelineIndex& index, trace::SliceRef slice) {
  SliceHighlight h;
  h.slice = slice;
  const trace::SliceDetails details = trace::sliceDetails(index, slice, /*readArgs=*/false);
  h.launched = details.launched;
  const auto add = [&](const trace::TimelineFlow& flow) {
    if (h.arrows.size() < SliceHighlight::kMaxArrows)
      h.arrows.push_back(flow);
  };
  for (const trace::TimelineFlow& f : index.flowsFrom(slice))
    add(f);
  for (const trace::TimelineFlow& f : index.flowsTo(slice))
    add(f);
  // The launches inside it: every flow arriving at the work it launched that does not leave the slice itself (those
  // are above already), when they are few.
  std::vector<trace::TimelineFlow> inside;
  for (const trace::SliceRef& target : details.launched) {
    for (const trace::TimelineFlow& f : index.flowsTo(target))
      if (!(f.from == slice))
        inside.push_back(f);
    if (inside.size() > SliceHighlight::kMaxDescendantArrows)
      return h;
  }
  for (const trace::TimelineFlow& f : inside)
    add(f);
  return h;
}

}  // namespace fathom::views
