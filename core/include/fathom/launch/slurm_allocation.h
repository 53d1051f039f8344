// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/launch/slurm_client.h>

#include <string>
#include <vector>

namespace fathom::launch {

/// The SLURM allocation this process runs in (inside `salloc`, an `sbatch` script or `srun`): `fathom launch --slurm`
/// runs one agent on each of its nodes.
struct SlurmAllocation {
  std::string jobId;               ///< SLURM_JOB_ID
  std::vector<std::string> nodes;  ///< SLURM_JOB_NODELIST expanded, in SLURM's order (the first hosts the rendezvous)

  /// Reads SLURM_JOB_ID and SLURM_JOB_NODELIST and expands the list with `scontrol show hostnames`. Throws
  /// ConfigError outside an allocation (no SLURM_JOB_ID), naming --slurm and what to do instead.
  static SlurmAllocation current(const SlurmClient& client);
};

}  // namespace fathom::launch
