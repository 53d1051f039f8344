// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/data/shard_plan.h>

#include <string>

namespace fathom::data {

/// One JSON object (no trailing newline): the request's settings, total_batch_size, remainder and
/// "ranks": [{"rank": 0, "num_batches": 2, "batches": [[0, 1], [6, 7]]}, ...]. `fathom shard --json` prints it.
std::string formatShardPlanJson(const ShardPlan& plan);

/// A readable table, one row per batch step and one column per rank ("-" where a rank has no batch), under a
/// line stating the settings and the remainder. Ends with a newline.
std::string formatShardPlanText(const ShardPlan& plan);

}  // namespace fathom::data
