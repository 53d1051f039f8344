// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/vocabulary.h>
#include <fathom/runtime/process_group.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace fathom::runtime {

/// Accelerate's `DistributedType` (config/vocabulary.h). A process's state is one of No, MultiCpu, MultiGpu, Fsdp,
/// DeepSpeed and MegatronLm; spelled as Accelerate spells it in YAML and in `accelerator.state` ("NO", ...).
using DistributedType = config::DistributedType;

/// "NO", "MULTI_CPU", "MULTI_GPU", "FSDP", "DEEPSPEED", "MEGATRON_LM".
const char* toString(DistributedType type);
/// The inverse of toString() for the types a process can be in; case-sensitive as Accelerate's enum. std::nullopt
/// for anything else.
std::optional<DistributedType> distributedTypeFromString(std::string_view text);

/// Where a worker's tensors live: the CPU, or one CUDA device.
struct Device {
  enum class Kind { Cpu, Cuda };
  Kind kind = Kind::Cpu;
  int index = -1;  ///< CUDA ordinal; -1 = "the current device" (Accelerate's torch.device("cuda")) or CPU
  /// "cpu", "cuda", "cuda:1", as torch.device prints them.
  std::string toString() const;
  /// Same kind and index.
  bool operator==(const Device&) const = default;
};

/// Reads one environment variable; std::nullopt when unset. Lets tests feed a fixed environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

/// How to read the state.
struct ProcessStateOptions {
  /// Accelerator(cpu=True): never pick a CUDA device. ACCELERATE_USE_CPU=true in the environment does the same.
  bool cpu = false;
  /// Number of visible CUDA devices; std::nullopt = ask the driver (probeCuda()). Tests pin it.
  std::optional<int> cudaDeviceCount;
};

/// How a worker joins the process group its launcher described.
struct JoinOptions {
  /// std::nullopt = NCCL when the device is CUDA, Gloo otherwise.
  std::optional<CommBackend> backend;
  /// Rendezvous and collective timeout (torch.distributed's default is 30 minutes).
  std::chrono::milliseconds timeout = std::chrono::minutes(30);
  /// RankZeroHosts is what torch.distributed's env:// does and what `fathom launch` expects.
  StoreRole storeRole = StoreRole::RankZeroHosts;
};

/// This process's place in a distributed run, read once from the environment the launcher set: Accelerate's
/// `PartialState` without the collectives. A value type: cheap to copy, immutable, Qt-free.
///
/// Each quantity is taken from the first variable of its list that is set to a non-negative integer
/// (Accelerate's `get_int_from_env`, which skips negative values such as LOCAL_RANK=-1):
///   rank             RANK, PMI_RANK, OMPI_COMM_WORLD_RANK, MV2_COMM_WORLD_RANK, SLURM_PROCID
///   world size       WORLD_SIZE, PMI_SIZE, OMPI_COMM_WORLD_SIZE, MV2_COMM_WORLD_SIZE, SLURM_NTASKS
///   local rank       LOCAL_RANK, MPI_LOCALRANKID, OMPI_COMM_WORLD_LOCAL_RANK, MV2_COMM_WORLD_LOCAL_RANK,
///                    SLURM_LOCALID
///   local world size LOCAL_WORLD_SIZE, MPI_LOCALNRANKS, OMPI_COMM_WORLD_LOCAL_SIZE, MV2_COMM_WORLD_LOCAL_SIZE,
///                    SLURM_NTASKS_PER_NODE
/// The SLURM names come last (Accelerate itself does not read them), so `srun fathom launch` and torchrun-style
/// variables win over the allocation's. A value that is not an integer, a world size of 0, or a rank outside the
/// world is a ConfigError naming the variable and its value.
class ProcessState {
public:
  /// Reads the process environment.
  static ProcessState fromEnvironment(const ProcessStateOptions& options = {});
  /// Reads through `env` (tests, or a launcher checking what it is about to set).
  static ProcessState fromVariables(const EnvLookup& env, const ProcessStateOptions& options = {});

  /// Global rank, 0-based (Accelerate's process_index).
  int processIndex() const { return m_processIndex; }
  /// Rank on this machine (local_process_index).
  int localProcessIndex() const { return m_localProcessIndex; }
  /// Total number of processes (num_processes).
  int numProcesses() const { return m_numProcesses; }
  /// Number of processes on this machine.
  int localNumProcesses() const { return m_localNumProcesses; }
  /// Process 0, except under MEGATRON_LM where Accelerate makes the last process the main one.
  bool isMainProcess() const;
  /// Local process 0 (the last process under MEGATRON_LM, as Accelerate).
  bool isLocalMainProcess() const;
  /// The process with the highest index.
  bool isLastProcess() const { return m_processIndex == m_numProcesses - 1; }
  /// distributedType() != No and more than one process.
  bool useDistributed() const { return m_type != DistributedType::No && m_numProcesses > 1; }
  /// Accelerate's distributed_type for this process (see the class comment for how it is derived).
  DistributedType distributedType() const { return m_type; }
  /// cuda:LOCAL_RANK for GPU types, cpu for MULTI_CPU; ACCELERATE_TORCH_DEVICE overrides.
  const Device& device() const { return m_device; }
  /// MASTER_ADDR, default 127.0.0.1.
  const std::string& masterAddr() const { return m_masterAddr; }
  /// MASTER_PORT, default 29500 (torch.distributed and Accelerate).
  std::uint16_t masterPort() const { return m_masterPort; }
  /// ACCELERATE_DEBUG_MODE.
  bool debug() const { return m_debug; }
  /// The variable the rank came from ("RANK", "SLURM_PROCID", ...), or empty when none was set.
  const std::string& rankSource() const { return m_rankSource; }
  /// The variable the world size came from, or empty.
  const std::string& worldSizeSource() const { return m_worldSizeSource; }

  /// Joins the group described by this state (rank, world, MASTER_ADDR:MASTER_PORT). Blocks for the rendezvous.
  /// Errors are ProcessGroup::create's: they name the rank, the address and what timed out.
  std::unique_ptr<ProcessGroup> joinProcessGroup(const JoinOptions& options = {}) const;

  /// Accelerate's PartialState repr: "Distributed environment: MULTI_CPU\nNum processes: 4\n...".
  std::string describe() const;

private:
  ProcessState() = default;

  int m_processIndex = 0;
  int m_localProcessIndex = 0;
  int m_numProcesses = 1;
  int m_localNumProcesses = 1;
  DistributedType m_type = DistributedType::No;
  Device m_device;
  std::string m_masterAddr = "127.0.0.1";
  std::uint16_t m_masterPort = 29500;
  bool m_debug = false;
  std::string m_rankSource;
  std::string m_worldSizeSource;
};

}  // namespace fathom::runtime
