// SPDX-License-Identifier: Apache-2.0
// Checked narrowing and checked arithmetic for numbers that came from outside (configuration files, flags, plan
// inputs, JSON). Every conversion of a parsed number to a narrower type goes through narrowed() or checkedNarrow(),
// never through static_cast: a static_cast<int>(4294967298) is 2, and static_cast<std::int64_t>(1e30) is undefined
// behaviour (on x86, -9223372036854775808).
#pragma once

#include <fathom/common/error.h>

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace fathom {

/// `value` as `To` when it is exactly representable: an integer in To's range, or a finite, whole floating-point
/// number in To's range. Otherwise std::nullopt. Never undefined behaviour, whatever `value` is.
template <std::integral To, typename From>
requires std::is_arithmetic_v<From>
constexpr std::optional<To> narrowed(From value) noexcept {
  if constexpr (std::is_floating_point_v<From>) {
    // Compare in long double against the bounds as powers of two: max() + 1 is exact, max() itself may not be.
    const auto v = static_cast<long double>(value);
    constexpr auto low = static_cast<long double>(std::numeric_limits<To>::min());
    constexpr auto highPlusOne = static_cast<long double>(std::numeric_limits<To>::max() / 2 + 1) * 2.0L;
    if (!std::isfinite(v) || v != std::floor(v) || v < low || v >= highPlusOne) {
      return std::nullopt;
    }
    return static_cast<To>(value);
  } else if constexpr (std::is_same_v<From, bool>) {
    return static_cast<To>(value);
  } else {
    if (!std::in_range<To>(value)) {
      return std::nullopt;
    }
    return static_cast<To>(value);
  }
}

namespace detail {
/// The shortest text that reads back as `value` (4294967304, 1e+30, 9.223372036854776e+18): a message quotes the
/// number that was read, not a rounding of it to six digits.
template <typename T> std::string numberText(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    char buffer[64];
    const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return error == std::errc() ? std::string(buffer, end) : concat(value);
  } else {
    return std::to_string(value);
  }
}
}  // namespace detail

/// `value` as `To` when it is whole and lies in [low, high] (by default To's whole range), else ConfigError
/// "<what>: <value> is out of range (allowed <low>..<high>)". `what` names where the value came from: the file, line
/// and key ("run.yaml:3:16: key 'num_processes'"), or the flag ("--num_processes").
template <std::integral To, typename From>
requires std::is_arithmetic_v<From> To checkedNarrow(From value, std::string_view what,
                                                     To low = std::numeric_limits<To>::min(),
                                                     To high = std::numeric_limits<To>::max()) {
  const std::optional<To> v = narrowed<To>(value);
  if constexpr (std::is_floating_point_v<From>) {
    FATHOM_CHECK(!std::isfinite(value) || value == std::floor(value), ConfigError, what, ": ",
                 detail::numberText(value), " is not a whole number");
  }
  FATHOM_CHECK(v && *v >= low && *v <= high, ConfigError, what, ": ", detail::numberText(value),
               " is out of range (allowed ", std::to_string(low), "..", std::to_string(high), ")");
  return *v;
}

/// A 64-bit signed integer whose arithmetic reports overflow instead of wrapping: once an operation overflows, the
/// value stays "overflowed" through every later operation, so a formula is computed as written and checked once.
class CheckedInt64 {
public:
  constexpr CheckedInt64() = default;
  constexpr CheckedInt64(std::int64_t value) : m_value(value) {}  // NOLINT(google-explicit-constructor)

  /// The value, or std::nullopt when an operation on the way overflowed.
  constexpr std::optional<std::int64_t> value() const {
    return m_overflow ? std::nullopt : std::optional<std::int64_t>(m_value);
  }
  constexpr bool overflowed() const { return m_overflow; }

  friend constexpr CheckedInt64 operator+(CheckedInt64 a, CheckedInt64 b) {
    CheckedInt64 r;
    r.m_overflow = a.m_overflow || b.m_overflow || __builtin_add_overflow(a.m_value, b.m_value, &r.m_value);
    return r;
  }
  friend constexpr CheckedInt64 operator-(CheckedInt64 a, CheckedInt64 b) {
    CheckedInt64 r;
    r.m_overflow = a.m_overflow || b.m_overflow || __builtin_sub_overflow(a.m_value, b.m_value, &r.m_value);
    return r;
  }
  friend constexpr CheckedInt64 operator*(CheckedInt64 a, CheckedInt64 b) {
    CheckedInt64 r;
    r.m_overflow = a.m_overflow || b.m_overflow || __builtin_mul_overflow(a.m_value, b.m_value, &r.m_value);
    return r;
  }
  /// Division by zero counts as overflow (no value).
  friend constexpr CheckedInt64 operator/(CheckedInt64 a, CheckedInt64 b) {
    CheckedInt64 r;
    r.m_overflow = a.m_overflow || b.m_overflow || b.m_value == 0 ||
                   (a.m_value == std::numeric_limits<std::int64_t>::min() && b.m_value == -1);
    r.m_value = r.m_overflow ? 0 : a.m_value / b.m_value;
    return r;
  }
  CheckedInt64& operator+=(CheckedInt64 b) { return *this = *this + b; }
  CheckedInt64& operator*=(CheckedInt64 b) { return *this = *this * b; }

  /// The larger of two values (overflow if either overflowed).
  friend constexpr CheckedInt64 max(CheckedInt64 a, CheckedInt64 b) {
    CheckedInt64 r = a.m_value >= b.m_value ? a : b;
    r.m_overflow = a.m_overflow || b.m_overflow;
    return r;
  }

private:
  std::int64_t m_value = 0;
  bool m_overflow = false;
};

}  // namespace fathom
