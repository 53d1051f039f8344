// SPDX-License-Identifier: Apache-2.0
// The CPU side's link to GPU activity: external correlation ids pushed around every operator and collective while
// a GPU tracer runs. The Profiler installs the tracer's push/pop here; with none installed both are no-ops.
#pragma once

#include <cstdint>

namespace fathom::profile::detail {

using CorrelationPush = void (*)(std::uint64_t externalId);
using CorrelationPop = void (*)();

/// Installs (or, with nullptrs, removes) the functions push/popGpuCorrelation forward to.
void setGpuCorrelationHooks(CorrelationPush push, CorrelationPop pop);
void pushGpuCorrelation(std::uint64_t externalId);
void popGpuCorrelation();

/// While a collective is being issued on this thread (between the Comm layer's begin and its issue returning),
/// operators inside it (c10d's record_param_comms, copies) push no id of their own: the kernels NCCL launches
/// then link to the collective, which knows its kind and bytes.
void enterCollectiveIssue();
void leaveCollectiveIssue();
bool inCollectiveIssue();

}  // namespace fathom::profile::detail
