// SPDX-License-Identifier: Apache-2.0
// A strict JSON checker (RFC 8259) for TraceValidator: one value, nothing after it, numbers and literals by the
// grammar, strings without raw control characters, with valid escapes and well-formed UTF-8. It builds nothing, so
// it checks millions of events a second; what JSON.parse or Perfetto's tokenizer would refuse, it refuses. In the
// same pass it can hand out the top-level object's members (TraceEventView::parseStrict), so the validator scans
// each event once.
#pragma once

#include "fathom/trace/trace_event_view.h"

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace fathom::trace::detail {

/// Where and why a text is not JSON.
struct JsonProblem {
  std::size_t offset = 0;  ///< of the offending byte in the text
  const char* what = "";   ///< a short English reason
};

/// Nothing when `text` is exactly one well-formed JSON value (surrounding white space allowed). With `members`, also
/// the members of that value when it is an object, in text order (raw keys without their quotes, raw values); the
/// vector is cleared first and left empty when the value is not an object or the text is not JSON.
std::optional<JsonProblem> checkJson(std::string_view text, std::vector<TraceEventView::Member>* members = nullptr);

}  // namespace fathom::trace::detail
