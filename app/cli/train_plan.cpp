// SPDX-License-Identifier: Apache-2.0
#include "train_plan.h"

#include "hardware_choice.h"
#include "train_loop.h"

#include <fathom/common/error.h>
#include <fathom/config/config_reader.h>
#include <fathom/config/run_spec.h>
#include <fathom/launch/launch_config.h>
#include <fathom/launch/worker_environment.h>
#include <fathom/models/model_factory.h>
#include <fathom/models/model_introspection.h>
#include <fathom/plan/hardware.h>
#include <fathom/plan/plan_file.h>
#include <fathom/plan/predict.h>

#include <fathom/store/records.h>

#include <nlohmann/json.hpp>

#include <torch/cuda.h>

#include <algorithm>
#include <filesystem>
#include <map>

namespace fathom::cli {
namespace {

/// Sets the plan's strategy from what `fathom train` resolved, as `fathom plan`'s sharding flags adjust a plan
/// (plan_flags.cpp); a run the flags left alone keeps the launcher's strategy.
void applySharding(const train::AcceleratorOptions& accelerator, plan::Plan& p) {
  if (accelerator.fsdp) {
    const parallel::FsdpOptions& f = *accelerator.fsdp;
    p.strategy = plan::Strategy::Fsdp;
    p.fsdpSharding = f.shardingStrategy;
    p.fsdpWrap = f.autoWrapPolicy;
    p.fsdpMinNumParams = f.minNumParams;
    p.offloadParams = p.offloadOptimizer = f.offloadParams;
  } else if (accelerator.deepspeed) {
    const parallel::ZeroOptions& z = *accelerator.deepspeed;
    p.strategy = z.stage == 1 ? plan::Strategy::Zero1 : z.stage == 2 ? plan::Strategy::Zero2 : plan::Strategy::Zero3;
    p.zeroBucketElements = z.reduceBucketSize;
    p.offloadOptimizer = z.offloadOptimizer != parallel::OffloadDevice::None;
    p.offloadParams = z.offloadParams != parallel::OffloadDevice::None;
  }
}

}  // namespace

bool isTrainCommand(const std::vector<std::string>& command) {
  return command.size() >= 2 && std::filesystem::path(command[0]).filename() == "fathom" && command[1] == "train";
}

std::string defaultRunHardware(bool onCpu, int numMachines) {
  if (numMachines <= 1) {
    for (const plan::UserHardwareProfile& profile : plan::userHardwareProfiles()) {
      if (profile.name == plan::kThisMachineProfile && profile.error.empty() &&
          (plan::loadHardware(profile.path.string()).device == plan::DeviceKind::Cpu) == onCpu) {
        return plan::kThisMachineProfile;
      }
    }
  }
  return onCpu ? "cpu-host" : "h100-sxm-80gb";
}

std::vector<std::string> launchedCommand(const store::RunInfo& run) {
  FATHOM_CHECK(run.configFormat == "json", ConfigError, "run ", run.id.value,
               " was not recorded by `fathom launch`: its command is unknown");
  const nlohmann::json config = nlohmann::json::parse(run.configText, nullptr, /*allow_exceptions=*/false);
  FATHOM_CHECK(config.is_object() && config.contains("command") && config["command"].is_array(), ConfigError, "run ",
               run.id.value, ": its launch configuration names no command");
  return config["command"].get<std::vector<std::string>>();
}

TrainRunInputs trainRunInputs(const std::vector<std::string>& command, std::string_view runSpecYaml) {
  FATHOM_CHECK(isTrainCommand(command), ConfigError,
               "the planner knows `fathom train` with a built-in model; the run's program is ",
               command.empty() ? std::string("unknown") : command[0]);
  FATHOM_CHECK(!runSpecYaml.empty(), ConfigError,
               "the run has no run specification (it was recorded before schema version 6)");
  const config::RunSpec spec = config::runSpecFromConfig(config::parseConfig(runSpecYaml, "run_spec").config);

  // The variables the launcher gives every worker (rank 0's; the sharding variables are the same for all).
  const launch::LaunchOptions launch = launch::launchOptionsFromRunSpec(spec);
  std::map<std::string, std::string> variables;
  for (auto& [name, value] : launch::workerVariables(launch, launch::WorkerSlot{0, 29500, 0}, std::nullopt)) {
    variables[name] = value;
  }
  const TrainOptions train =
      parseTrainArguments(std::vector<std::string>(command.begin() + 2, command.end()),
                          [&variables](const std::string& name) -> std::optional<std::string> {
                            const auto it = variables.find(name);
                            return it != variables.end() ? std::optional<std::string>(it->second) : std::nullopt;
                          });
  const auto names = models::builtinModelNames();
  FATHOM_CHECK(std::find(names.begin(), names.end(), train.model.name) != names.end(), ConfigError,
               "fathom train: unknown model '", train.model.name, "'");

  plan::PlanInputs in = plan::planFromRunSpec(spec);
  plan::Plan& p = in.plan;
  applySharding(train.accelerator, p);
  if (train.accelerator.mixedPrecision) {
    p.precision = *train.accelerator.mixedPrecision;
  }
  if (!spec.gradientAccumulationSteps && train.accelerator.gradientAccumulationSteps) {
    p.gradAccum = *train.accelerator.gradientAccumulationSteps;
  }
  p.microBatch = static_cast<int>(train.accelerator.dataLoader.splitBatches ? train.batchSize / std::max(1, p.numGpus)
                                                                            : train.batchSize);
  // A GPT sample is block_size tokens; an MLP's regression sample is one row, a "token" of 6·P FLOPs.
  p.seqLen = train.model.isGpt() ? models::resolveGptOptions(train.model).blockSize : 1;
  // The threads the launcher gave each worker (OMP_NUM_THREADS, when it set one): a calibrated profile's rates
  // depend on them.
  if (const auto it = variables.find("OMP_NUM_THREADS"); it != variables.end()) {
    p.cpuThreadsPerProcess = std::stoi(it->second);
  }
  p.optimizer = train.optimizer == "sgd" ? plan::Optimizer::Sgd : plan::Optimizer::AdamW;

  const bool onCpu = spec.useCpu || train.accelerator.cpu || !torch::cuda::is_available();
  return {models::introspectModel(train.model), p,
          !in.hardware.empty() ? in.hardware : defaultRunHardware(onCpu, spec.numMachines)};
}

plan::PredictionReport predictTrainRun(const TrainRunInputs& run, const plan::HardwareSpec& hardware) {
  return plan::predictionReport(run.model, hardware, run.plan, plan::predict(run.model, hardware, run.plan));
}

plan::PredictionReport predictTrainRun(const std::vector<std::string>& command, std::string_view runSpecYaml,
                                       const std::string& hardware, const std::string& workspaceFlag) {
  const TrainRunInputs run = trainRunInputs(command, runSpecYaml);
  return predictTrainRun(run,
                         chooseHardware(!hardware.empty() ? hardware : run.hardware, workspaceFlag, run.plan).spec);
}

}  // namespace fathom::cli
