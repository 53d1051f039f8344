// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/launch/slurm_allocation.h>

#include <cstdlib>

namespace fathom::launch {

SlurmAllocation SlurmAllocation::current(const SlurmClient& client) {
  const char* job = std::getenv("SLURM_JOB_ID");
  FATHOM_CHECK(job != nullptr && *job != '\0', ConfigError,
               "--slurm: not inside a SLURM allocation (SLURM_JOB_ID is not set): run it under salloc or in an sbatch "
               "script, or give --nodes N to submit a job");
  const char* list = std::getenv("SLURM_JOB_NODELIST");
  FATHOM_CHECK(list != nullptr && *list != '\0', ConfigError, "--slurm: SLURM_JOB_ID is ", job,
               " but SLURM_JOB_NODELIST is not set: cannot tell the allocation's nodes");
  return SlurmAllocation{job, client.hostnames(list)};
}

}  // namespace fathom::launch
