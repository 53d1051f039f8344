// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/plan_vs_actual.h>
#include <fathom/store/ids.h>

#include <vector>

namespace fathom::store {

class Workspace;

/// What each rank of `run` measured, as plan vs actual compares it (plan::MeasuredRank), from the run's metrics
/// alone: the last memory/device/<category>_bytes sample of each model state, the highest
/// profile/memory/<device>/peak_activations_bytes and peak_total_bytes, the comm/<kind>/count and bytes of the last
/// step that logged any, and 1 / the last steps_per_second. One entry per rank the run recorded (ranks table) or
/// logged a metric from, by rank. Reads the run even while it is live (what is committed so far).
std::vector<plan::MeasuredRank> measuredRanks(const Workspace& workspace, RunId run);

}  // namespace fathom::store
