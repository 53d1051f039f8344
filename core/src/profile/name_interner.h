// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

namespace fathom::profile::detail {

/// Append-only set of strings whose views stay valid for the life of the process. GpuActivity::name points here,
/// so decoded records stay plain values that outlive the tracer that produced them. Growth is bounded by the
/// distinct names a program has (its kernels, its API functions, a few dozen copy names), not by the record count.
/// Thread-safe.
class NameInterner {
public:
  /// The process-wide instance (never destroyed: views into it may be read during static destruction).
  static NameInterner& global();

  /// A view of a stored copy of `text`; the same view for equal texts.
  std::string_view intern(std::string_view text);
  /// Number of distinct names stored.
  std::size_t size() const;

private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
  };
  // unordered_set keeps its nodes in place on rehash, so a stored std::string (and its characters, SSO included)
  // never moves: the views handed out stay valid. Transparent lookup: a hit allocates nothing.
  mutable std::mutex m_mutex;
  std::unordered_set<std::string, Hash, std::equal_to<>> m_names;
};

}  // namespace fathom::profile::detail
