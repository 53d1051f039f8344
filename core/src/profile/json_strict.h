// SPDX-License-Identifier: Apache-2.0
// A strict JSON checker (RFC 8259) for TraceValidator: one value, nothing after it, numbers and literals by the
// grammar, strings without raw control characters, with valid escapes and well-formed UTF-8. It builds nothing, so
// it checks millions of events a second; what JSON.parse or Perfetto's tokenizer would refuse, it refuses.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace fathom::profile::detail {

/// Where and why a text is not JSON.
struct JsonProblem {
  std::size_t offset = 0;  ///< of the offending byte in the text
  const char* what = "";   ///< a short English reason
};

/// Nothing when `text` is exactly one well-formed JSON value (surrounding white space allowed).
std::optional<JsonProblem> checkJson(std::string_view text);

}  // namespace fathom::profile::detail
