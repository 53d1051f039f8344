// SPDX-License-Identifier: Apache-2.0
#include <fathom/runtime/process_state.h>

#include <fathom/common/error.h>
#include <fathom/runtime/cuda_probe.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace fathom::runtime {
namespace {

/// One integer taken from the first variable of a list that holds a non-negative value.
struct EnvInt {
  std::optional<long long> value;
  std::string source;  ///< the variable it came from
};

std::string trimmed(const std::string& text) {
  auto begin = std::find_if_not(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); });
  auto end = std::find_if_not(text.rbegin(), text.rend(), [](unsigned char c) { return std::isspace(c); }).base();
  return begin < end ? std::string(begin, end) : std::string();
}

/// Python's int() on an environment value, minus the exotic forms (underscores, other bases). An empty value
/// counts as unset; anything else that is not an integer is a ConfigError naming the variable.
std::optional<long long> parseInt(const std::string& name, const std::string& raw) {
  const std::string text = trimmed(raw);
  if (text.empty()) {
    return std::nullopt;
  }
  const char* first = text.data() + (text[0] == '+' ? 1 : 0);
  const char* last = text.data() + text.size();
  long long value = 0;
  const auto [end, ec] = std::from_chars(first, last, value);
  FATHOM_CHECK(ec == std::errc() && end == last, ConfigError, name, "=", raw, " is not an integer");
  return value;
}

/// Accelerate's get_int_from_env: the first variable set to a value >= 0 wins; negative values are skipped.
EnvInt firstInt(const EnvLookup& env, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (auto raw = env(name)) {
      if (auto value = parseInt(name, *raw); value && *value >= 0) {
        return {value, name};
      }
    }
  }
  return {};
}

/// Accelerate's str_to_bool: y/yes/t/true/on/1 and n/no/f/false/off/0, case-insensitive; unset or empty = false.
bool flagFromEnv(const EnvLookup& env, const char* name) {
  const auto raw = env(name);
  if (!raw) {
    return false;
  }
  std::string text = trimmed(*raw);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  if (text.empty() || text == "n" || text == "no" || text == "f" || text == "false" || text == "off" || text == "0") {
    return false;
  }
  FATHOM_CHECK(text == "y" || text == "yes" || text == "t" || text == "true" || text == "on" || text == "1",
               ConfigError, name, "=", *raw, " is not a boolean (use true/false, yes/no, on/off or 1/0)");
  return true;
}

Device parseDevice(const std::string& name, const std::string& raw, int cudaCount) {
  const std::string text = trimmed(raw);
  if (text == "cpu") {
    return {};
  }
  if (text == "cuda") {
    return {Device::Kind::Cuda, -1};
  }
  if (text.rfind("cuda:", 0) == 0) {
    const auto index = parseInt(name, text.substr(5));
    FATHOM_CHECK(index && *index >= 0 && *index < std::max(cudaCount, 1), ConfigError, name, "=", raw,
                 " names a CUDA device that does not exist (", cudaCount, " visible)");
    return {Device::Kind::Cuda, static_cast<int>(*index)};
  }
  throw ConfigError(detail::concat(name, "=", raw, " is not a device (use cpu, cuda or cuda:N)"));
}

int cudaDevices(const ProcessStateOptions& options) {
  if (options.cudaDeviceCount) {
    return *options.cudaDeviceCount;
  }
  return static_cast<int>(probeCuda().devices.size());
}

}  // namespace

const char* toString(DistributedType type) {
  // The table's names are string literals, so data() is NUL-terminated.
  return config::kDistributedTypes.toString(type).data();
}

std::optional<DistributedType> distributedTypeFromString(std::string_view text) {
  const auto type = config::kDistributedTypes.find(text);
  if (type == DistributedType::No || type == DistributedType::MultiCpu || type == DistributedType::MultiGpu ||
      type == DistributedType::Fsdp || type == DistributedType::DeepSpeed || type == DistributedType::MegatronLm) {
    return type;
  }
  return std::nullopt;
}

std::string Device::toString() const {
  if (kind == Kind::Cpu) {
    return "cpu";
  }
  return index < 0 ? std::string("cuda") : "cuda:" + std::to_string(index);
}

ProcessState ProcessState::fromEnvironment(const ProcessStateOptions& options) {
  return fromVariables(
      [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
      },
      options);
}

ProcessState ProcessState::fromVariables(const EnvLookup& env, const ProcessStateOptions& options) {
  ProcessState s;
  const EnvInt rank =
      firstInt(env, {"RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID"});
  const EnvInt world =
      firstInt(env, {"WORLD_SIZE", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE", "SLURM_NTASKS"});
  const EnvInt localRank = firstInt(env, {"LOCAL_RANK", "MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK",
                                          "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"});
  const EnvInt localWorld = firstInt(env, {"LOCAL_WORLD_SIZE", "MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE",
                                           "MV2_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE"});

  constexpr long long kMaxWorld = 1 << 24;
  const long long worldSize = world.value.value_or(1);
  FATHOM_CHECK(worldSize >= 1 && worldSize <= kMaxWorld, ConfigError, world.source, "=", worldSize,
               " is not a valid world size (must be between 1 and ", kMaxWorld, ")");
  const long long rankValue = rank.value.value_or(0);
  FATHOM_CHECK(rankValue < worldSize, ConfigError, rank.source, "=", rankValue, " is out of range: ",
               world.source.empty() ? std::string("the default world size 1")
                                    : world.source + "=" + std::to_string(worldSize),
               " allows ranks 0..", worldSize - 1);
  // Without a local world size the run is taken to be on one machine (every rank local).
  const long long localWorldSize = localWorld.value.value_or(worldSize);
  FATHOM_CHECK(localWorldSize >= 1 && localWorldSize <= worldSize, ConfigError, localWorld.source, "=", localWorldSize,
               " is not a valid local world size with a world size of ", worldSize);
  const long long localRankValue = localRank.value.value_or(0);
  FATHOM_CHECK(localRankValue < localWorldSize, ConfigError, localRank.source, "=", localRankValue,
               " is out of range: the local world size is ", localWorldSize,
               localWorld.source.empty() ? std::string() : " (" + localWorld.source + ")");

  s.m_processIndex = static_cast<int>(rankValue);
  s.m_numProcesses = static_cast<int>(worldSize);
  s.m_localProcessIndex = static_cast<int>(localRankValue);
  s.m_localNumProcesses = static_cast<int>(localWorldSize);
  s.m_rankSource = rank.source;
  s.m_worldSizeSource = world.source;
  s.m_debug = flagFromEnv(env, "ACCELERATE_DEBUG_MODE");

  if (auto addr = env("MASTER_ADDR"); addr && !trimmed(*addr).empty()) {
    s.m_masterAddr = trimmed(*addr);
  }
  if (auto raw = env("MASTER_PORT")) {
    if (auto port = parseInt("MASTER_PORT", *raw)) {
      FATHOM_CHECK(*port >= 1 && *port <= 65535, ConfigError, "MASTER_PORT=", *raw, " is not a port number (1..65535)");
      s.m_masterPort = static_cast<std::uint16_t>(*port);
    }
  }

  // Accelerate's PartialState._prepare_backend: a launcher-set local rank plus a GPU means MULTI_GPU; otherwise a
  // local rank or a world of more than one means MULTI_CPU.
  const bool cpu = options.cpu || flagFromEnv(env, "ACCELERATE_USE_CPU");
  const int cudaCount = cpu ? 0 : cudaDevices(options);
  const bool launched = localRank.value.has_value() || worldSize > 1;
  const bool onGpu = !cpu && cudaCount > 0 && localRank.value.has_value();
  if (onGpu) {
    s.m_type = DistributedType::MultiGpu;
  } else if (launched) {
    s.m_type = DistributedType::MultiCpu;
  }
  // AcceleratorState: DeepSpeed first, then FSDP, then Megatron-LM (which wins over FSDP when both are set).
  // Fathom implements all three over Gloo as well, so unlike Accelerate they also apply to MULTI_CPU.
  const bool useDeepSpeed = flagFromEnv(env, "ACCELERATE_USE_DEEPSPEED");
  const bool useFsdp = flagFromEnv(env, "ACCELERATE_USE_FSDP");
  const bool useMegatron = flagFromEnv(env, "ACCELERATE_USE_MEGATRON_LM");
  if (s.m_type != DistributedType::No) {
    if (useDeepSpeed) {
      s.m_type = DistributedType::DeepSpeed;
    } else if (useMegatron) {
      s.m_type = DistributedType::MegatronLm;
    } else if (useFsdp) {
      s.m_type = DistributedType::Fsdp;
    }
  }

  if (auto forced = env("ACCELERATE_TORCH_DEVICE"); forced && !trimmed(*forced).empty()) {
    s.m_device = parseDevice("ACCELERATE_TORCH_DEVICE", *forced, cudaCount);
  } else if (onGpu) {
    FATHOM_CHECK(s.m_localProcessIndex < cudaCount, ConfigError, localRank.source, "=", s.m_localProcessIndex,
                 " has no CUDA device: only ", cudaCount, " visible (check CUDA_VISIBLE_DEVICES and --num_processes)");
    s.m_device = {Device::Kind::Cuda, s.m_localProcessIndex};
  } else if (s.m_type == DistributedType::No && cudaCount > 0) {
    s.m_device = {Device::Kind::Cuda, -1};
  }

  // Accelerate's check for CPU multi-node runs: other machines cannot find rank 0 without MASTER_ADDR.
  const bool hasAddr = env("MASTER_ADDR").has_value();
  FATHOM_CHECK(hasAddr || s.m_type == DistributedType::No || localWorldSize == worldSize, ConfigError,
               "Tried to launch on distributed with multinode (world size ", worldSize, ", local world size ",
               localWorldSize, "), but MASTER_ADDR was not set: export rank 0's host name as MASTER_ADDR");
  return s;
}

bool ProcessState::isMainProcess() const {
  return m_type == DistributedType::MegatronLm ? isLastProcess() : m_processIndex == 0;
}

bool ProcessState::isLocalMainProcess() const {
  return m_type == DistributedType::MegatronLm ? isLastProcess() : m_localProcessIndex == 0;
}

std::unique_ptr<ProcessGroup> ProcessState::joinProcessGroup(const JoinOptions& options) const {
  ProcessGroupOptions group;
  group.backend = options.backend.value_or(m_device.kind == Device::Kind::Cuda ? CommBackend::Nccl : CommBackend::Gloo);
  group.rank = m_processIndex;
  group.worldSize = m_numProcesses;
  group.masterAddr = m_masterAddr;
  group.masterPort = m_masterPort;
  group.storeRole = options.storeRole;
  group.timeout = options.timeout;
  return ProcessGroup::create(group);
}

std::string ProcessState::describe() const {
  const char* backend = m_type == DistributedType::No         ? ""
                        : m_device.kind == Device::Kind::Cuda ? "  Backend: nccl"
                                                              : "  Backend: gloo";
  return detail::concat("Distributed environment: ", toString(m_type), backend, "\nNum processes: ", m_numProcesses,
                        "\nProcess index: ", m_processIndex, "\nLocal process index: ", m_localProcessIndex,
                        "\nDevice: ", m_device.toString(), "\n");
}

}  // namespace fathom::runtime
