// SPDX-License-Identifier: Apache-2.0
// The workspace's collective metric keys (docs/workspace.md, "Collective metric keys"): a rank's Comm totals of one
// optimizer step by the kind the caller asked for, named with the planner's kinds (the Comm layer's CommKind carries
// the same names; parallel::toPlanKind), so a sample joins `fathom plan --json`'s communication.collectives on the
// kind: `comm/all_gather/bytes` is what the plan predicts as the bytes of its all_gather entries summed.
#pragma once

#include <fathom/plan/prediction.h>

#include <optional>
#include <string>
#include <string_view>

namespace fathom::plan {

/// What one collective metric counts.
enum class CollectiveMetric {
  Count,  ///< calls in the step
  Bytes,  ///< Σ bytes of those calls (plan::Collective's definition: the whole buffer)
};

/// "comm/all_reduce/count", "comm/reduce_scatter/bytes" (train::Accelerator::logCollectives writes them).
std::string collectiveMetricKey(CollectiveKind kind, CollectiveMetric metric);

/// The kind and measure a collective metric key names.
struct CollectiveMetricName {
  CollectiveKind kind;
  CollectiveMetric metric;
};
/// The name `key` spells; std::nullopt for any other key.
std::optional<CollectiveMetricName> parseCollectiveMetricKey(std::string_view key);

}  // namespace fathom::plan
