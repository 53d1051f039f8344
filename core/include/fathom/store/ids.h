// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <compare>
#include <cstdint>

namespace fathom::store {

/// A row id of one workspace table. Distinct types per table (heaptrack's Index<Base>), so a metric id cannot be
/// passed where a run id is expected. Ids only grow: "everything newer than id N" is a valid cursor.
template <typename Tag> struct Id {
  std::int64_t value = 0;

  constexpr Id() = default;
  constexpr explicit Id(std::int64_t v) : value(v) {}
  friend constexpr auto operator<=>(const Id&, const Id&) = default;
};

using RunId = Id<struct RunTag>;
using MetricId = Id<struct MetricTag>;
using EventId = Id<struct EventTag>;
using ArtifactId = Id<struct ArtifactTag>;
using PlanId = Id<struct PlanTag>;
using AlertId = Id<struct AlertTag>;
using DeviceMapId = Id<struct DeviceMapTag>;
using HardwareFitId = Id<struct HardwareFitTag>;

}  // namespace fathom::store
