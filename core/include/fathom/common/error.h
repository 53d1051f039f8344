// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace fathom {

/// Base of every exception Fathom's core throws. Messages are English, self-contained, and name the value
/// that was wrong; the Studio maps error types to translated headlines and shows the message as detail.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Bad user input: a configuration value, a flag, a file.
class ConfigError : public Error {
public:
  using Error::Error;
};

/// A collective, rendezvous or process-group failure (timeouts included).
class CommError : public Error {
public:
  using Error::Error;
};

/// The SQLite workspace or a file on disk could not be read or written.
class StorageError : public Error {
public:
  using Error::Error;
};

/// CUPTI or the CPU profiler failed.
class ProfilerError : public Error {
public:
  using Error::Error;
};

/// A broken invariant inside Fathom itself (a bug, never bad input).
class InternalError : public Error {
public:
  using Error::Error;
};

namespace detail {
template <typename... Parts> std::string concat(Parts&&... parts) {
  std::ostringstream out;
  (out << ... << std::forward<Parts>(parts));
  return out.str();
}
[[noreturn]] void throwInternal(const char* file, int line, const char* condition, const std::string& message);
}  // namespace detail

}  // namespace fathom

/// Checks user-facing input at the front door: FATHOM_CHECK(n >= 1, ConfigError, "num_processes must be >= 1, got ",
/// n).
#define FATHOM_CHECK(cond, ErrorType, ...)                                                                             \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      throw ::fathom::ErrorType(::fathom::detail::concat(__VA_ARGS__));                                                \
    }                                                                                                                  \
  } while (false)

/// Checks Fathom's own invariants; a failure is a bug and says where it happened.
#define FATHOM_ASSERT(cond, ...)                                                                                       \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      ::fathom::detail::throwInternal(__FILE__, __LINE__, #cond, ::fathom::detail::concat("" __VA_ARGS__));            \
    }                                                                                                                  \
  } while (false)
