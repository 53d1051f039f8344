// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/run_spec.h>
#include <fathom/launch/host_list.h>
#include <fathom/launch/launch_options.h>

#include <vector>

namespace fathom::launch {

/// The launch options a run specification decides. The spec was built from the resolved configuration
/// (config::runSpecFromConfig(config::resolveConfig(...)), flag > environment > config file > default), so this only
/// translates: num_processes (unset, Accelerate's -1, keeps 1), num_machines, machine_rank, main_process_ip,
/// main_process_port, mixed_precision, use_cpu, debug, gpu_ids (CUDA_VISIBLE_DEVICES), distributed_type (FSDP /
/// DEEPSPEED / MEGATRON_LM switch the mode; NO, MULTI_CPU and MULTI_GPU need nothing; any other type is a
/// ConfigError), the fsdp_config keys that have an --fsdp_* flag, deepspeed_config.zero_stage and the offload devices,
/// gradient_accumulation_steps (only when given, because the variable overrides the program's own value; with
/// DeepSpeed also the deepspeed_config one), and the `fathom` section's trackers, project_dir, logging_dir and
/// profiler.* as FATHOM_* variables for the workers (`fathom train` reads them; docs/config.md).
/// ConfigError naming the key and its origin for a tracker Fathom does not implement, or a dynamo backend given on the
/// command line (LibTorch C++ has no torch.compile; from a file or the environment it is only a note).
/// Launcher-only settings (restarts, logs, tee, ...) keep their defaults: they are flags, not config keys.
LaunchOptions launchOptionsFromRunSpec(const config::RunSpec& spec);

/// The run specification as the launcher records it with the run (LaunchOptions::runSpec): Accelerate YAML with
/// every key written.
std::string recordedRunSpec(const config::RunSpec& spec);

/// Records a multi-node launch's real topology in `options.runSpec` (num_machines = `machines`, machine_rank 0,
/// num_processes the launch's total), so the run's configuration and the plan made from it (GPUs per node) say what
/// ran, whichever flags named the hosts.
void setMultiNodeTopology(LaunchOptions& options, config::RunSpec spec, int machines);

/// The hosts of a multi-node launch as a configuration names them: `fathom.hosts` (each as `ssh_user@host` when
/// `fathom.ssh_user` is set and the host names no user), else the DeepSpeed hostfile `fathom.hostfile`; empty when
/// it names neither. ConfigError for a host name that is not one (validateHostName) or a hostfile that cannot be
/// read.
std::vector<HostSlots> hostsFromRunSpec(const config::RunSpec& spec);

}  // namespace fathom::launch
