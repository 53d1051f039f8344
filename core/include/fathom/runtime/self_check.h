// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/runtime/process_state.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace fathom::runtime {

/// How `fathom test` checks a group.
struct SelfCheckOptions {
  /// std::nullopt = the state's default (NCCL on a CUDA device, Gloo otherwise).
  std::optional<CommBackend> backend;
  /// Applies to the rendezvous and to each collective.
  std::chrono::milliseconds timeout = std::chrono::seconds(60);
};

/// What one rank found. `steps` lists the checks that passed, in order ("rendezvous 12 ms", ...);
/// `failure` is empty when everything passed, else it says which check failed on this rank and why.
struct SelfCheckReport {
  std::vector<std::string> steps;  ///< passed checks with their duration, in order
  std::string failure;             ///< empty, or "<check> failed: <reason>"
  /// Every check passed.
  bool ok() const { return failure.empty(); }
};

/// The distributed self-check behind `fathom test` (Accelerate's `accelerate test`), run by every rank of a
/// launched group: rendezvous, the process state agrees with the group (every rank 0..N-1 present once),
/// all-reduce (sum and max), broadcast from the last rank, barrier, and an all-gather of tensors of a different
/// length on each rank. Never throws for a failed check or a communication error: both end up in `failure`.
SelfCheckReport runSelfCheck(const ProcessState& state, const SelfCheckOptions& options = {});

}  // namespace fathom::runtime
