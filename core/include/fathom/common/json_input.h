// SPDX-License-Identifier: Apache-2.0
// JSON that came from outside (checkpoint manifests and indexes, agent specs, saved plans, Hugging Face config.json):
// whole numbers and quoting values in messages.
// - nlohmann's get<int>() is a plain cast: a double 4.9e19 becomes undefined behaviour, an unsigned 2^40 becomes 0 and
//   2^32 + 2 becomes 2. jsonInteger() takes a value only when the number is exactly representable.
// - nlohmann's dump() throws type_error 316 for a string that is not UTF-8, so a message that quotes a bad value with
//   it throws the wrong exception; quotedJson() never throws for the value and is safe for a terminal.
#pragma once

#include <fathom/common/checked_number.h>
#include <fathom/common/terminal_text.h>

#include <nlohmann/json.hpp>

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>

namespace fathom {

/// `value` as `T` when it is a JSON number holding a whole value in T's range: an integer, or a floating-point
/// number that is one (a writer may print 8.0e+9). std::nullopt for anything else: another type, a fraction, a value
/// out of range. Never undefined behaviour.
template <std::integral T, typename Json>
requires(!std::same_as<T, bool>) std::optional<T> jsonInteger(const Json& value) {
  if (value.is_number_unsigned()) {
    return narrowed<T>(value.template get<std::uint64_t>());
  }
  if (value.is_number_integer()) {
    return narrowed<T>(value.template get<std::int64_t>());
  }
  if (value.is_number_float()) {
    return narrowed<T>(value.template get<double>());
  }
  return std::nullopt;
}

/// `value` as compact JSON for a message: bytes that are not UTF-8 replaced (U+FFFD), control characters escaped by
/// terminalSafe().
template <typename Json> std::string quotedJson(const Json& value) {
  return terminalSafe(value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

}  // namespace fathom
