// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/hardware.h>
#include <fathom/plan/prediction.h>

namespace fathom::plan {

/// Collective::purpose of the parameter all-gathers FSDP and ZeRO-3 issue in forward (the planned step draws them
/// at the forward; every other overlapped collective runs in backward: plan/planned_step.h).
inline constexpr const char* kForwardGatherPurpose = "parameters (forward)";

/// Bytes one rank sends for one call of `kind` on a `bytes`-sized buffer in a ring of `group` ranks:
/// all_reduce 2(N-1)/N·S, all_gather and reduce_scatter (N-1)/N·S, broadcast (N-1)/N·S (average), send_recv S.
double ringBytesSent(CollectiveKind kind, double bytes, int group);

/// Alpha-beta time of one call: ring all_reduce 2(N-1)α + 2(N-1)/N·S/B, tree all_reduce 2⌈log2 N⌉α + 2S/B (the
/// smaller is used, as NCCL picks), all_gather/reduce_scatter (N-1)α + (N-1)/N·S/B, broadcast (N-1)α + S/B,
/// send_recv α + S/B. Zero for a group of one.
double collectiveTime(CollectiveKind kind, double bytes, int group, const LinkSpec& link);

}  // namespace fathom::plan
