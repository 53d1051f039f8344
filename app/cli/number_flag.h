// SPDX-License-Identifier: Apache-2.0
// Whole-number flags checked as text, before CLI11 converts them: a value that does not fit the flag's variable
// (--num_processes 4294967298 into an int) or its range is refused naming the flag, the value and the allowed range,
// instead of CLI11's "Could not convert" (or, for a variable wide enough, a silent wrap later on).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <limits>

namespace fathom::cli {

/// A CLI11 validator: the text is a whole number (an optional sign and digits; 1e9 style too, when whole) in
/// [low, high]. Otherwise "<value> is out of range (allowed <low>..<high>)" or "'<value>' is not a whole number";
/// CLI11 prefixes the flag ("--num_processes: ...").
CLI::Validator wholeNumberIn(std::int64_t low, std::int64_t high);

/// wholeNumberIn() over T's range: what a flag bound to a T variable can hold.
template <typename T> CLI::Validator fitsIn() {
  return wholeNumberIn(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
}

}  // namespace fathom::cli
