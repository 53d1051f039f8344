// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fathom::profile::detail {

/// The profiler's interned names: ATen op and span names (by id, in CpuEvent::nameId) and CUPTI's kernel, API and
/// copy names (by view, in GpuActivity::name). Append-only: ids and views stay valid for the life of the process,
/// so recorded events and decoded GPU records stay plain values that outlive the session or tracer that made them.
/// Growth is bounded by the distinct names a program has (its ops, kernels and API functions), not by the event
/// count. Thread-safe.
class InternedNames {
public:
  /// The process-wide table (never destroyed: views into it may be read during static destruction).
  static InternedNames& instance();

  /// Id of `name` (interned on first use). A thread-local pointer cache makes repeats of the same literal cheap.
  std::uint32_t id(const char* name);
  std::uint32_t id(std::string_view name);
  /// The name of `id`; valid for the life of the process.
  std::string_view name(std::uint32_t id) const;
  /// A view of the stored copy of `text`: the same view for equal texts.
  std::string_view intern(std::string_view text);
  /// Number of distinct names stored.
  std::size_t size() const;

private:
  std::pair<std::uint32_t, const std::string*> insert(std::string_view name);

  mutable std::mutex m_mutex;
  std::deque<std::string> m_names;  ///< a deque: the strings (SSO characters included) never move as it grows
  std::unordered_map<std::string_view, std::uint32_t> m_ids;  ///< views into m_names
};

}  // namespace fathom::profile::detail
