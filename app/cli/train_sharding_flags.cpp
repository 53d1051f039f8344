// SPDX-License-Identifier: Apache-2.0
#include "train_sharding_flags.h"

#include "bool_flag.h"
#include "flag_choices.h"

#include <fathom/common/error.h>
#include <fathom/config/config_schema.h>
#include <fathom/parallel/fsdp_options.h>
#include <fathom/parallel/zero_options.h>
#include <fathom/plan/training_plan.h>

#include <algorithm>
#include <sstream>

namespace fathom::cli {
namespace {

// "--fsdp_min_num_params,--fsdp-min-num-params".
std::string names(const std::string& flag) {
  std::string dashed = flag;
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  return "--" + flag + ",--" + dashed;
}

bool given(const CLI::Option* option) {
  return option != nullptr && option->count() > 0;
}

std::string givenNames(const std::vector<CLI::Option*>& options) {
  std::string out;
  for (const CLI::Option* o : options) {
    if (given(o)) {
      out += (out.empty() ? "" : ", ") + o->get_name();
    }
  }
  return out;
}

bool envTrue(const runtime::EnvLookup& env, const char* variable) {
  const auto value = env(variable);
  return value && !value->empty() && config::parseBool(*value).value_or(false);
}

/// Runs `parse` and prefixes a ConfigError with the flag.
template <typename F> auto forFlag(const char* flag, F&& parse) {
  try {
    return parse();
  } catch (const ConfigError& e) {
    throw ConfigError(detail::concat(flag, ": ", e.what()));
  }
}

std::vector<std::string> classNames(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) {
      out.push_back(item);
    }
  }
  return out;
}

}  // namespace

void TrainShardingFlags::add(CLI::App* cmd) {
  m_strategy = cmd->add_option("--strategy", strategy,
                               choices(plan::kStrategies) +
                                   " (default ddp: or what `fathom launch --use_fsdp/--use_deepspeed` selected)");
  m_strategy->capture_default_str();
  m_fsdpOptions = {
      cmd->add_option(names("fsdp_sharding_strategy"), fsdpShardingStrategy,
                      choices(config::kFsdpShardingStrategies) + " (or torch's numbers)"),
      cmd->add_option(names("fsdp_auto_wrap_policy"), fsdpAutoWrapPolicy, choices(config::kFsdpWrapPolicies)),
      cmd->add_option(names("fsdp_transformer_layer_cls_to_wrap"), fsdpTransformerLayerClsToWrap,
                      "Comma-separated block class names (default: the model's block type)"),
      cmd->add_option(names("fsdp_min_num_params"), fsdpMinNumParams,
                      "SIZE_BASED_WRAP: a block with fewer parameters stays in the root unit (default 1e8)"),
      cmd->add_option(names("fsdp_backward_prefetch"), fsdpBackwardPrefetch, choices(config::kFsdpBackwardPrefetches)),
      cmd->add_option(names("fsdp_forward_prefetch"), fsdpForwardPrefetch, "true: prefetch the next unit in forward"),
      cmd->add_option(names("fsdp_offload_params"), fsdpOffloadParams,
                      "true: shards, gradients and the optimizer step on the CPU"),
      cmd->add_option(names("fsdp_state_dict_type"), fsdpStateDictType, choices(config::kFsdpStateDictTypes)),
      cmd->add_option(names("fsdp_sync_module_states"), fsdpSyncModuleStates,
                      "true: broadcast rank 0's weights before sharding (default true)"),
      cmd->add_option(names("fsdp_hybrid_group_size"), fsdpHybridGroupSize,
                      "HYBRID_SHARD, HYBRID_SHARD_ZERO2: ranks per shard group (Fathom's; default LOCAL_WORLD_SIZE)"),
  };
  m_zeroOptions = {
      cmd->add_option(names("zero_reduce_bucket_size"), zeroReduceBucketSize,
                      "ZeRO reduce_bucket_size in elements (default 5e8)"),
      cmd->add_option(names("offload_optimizer_device"), offloadOptimizerDevice,
                      "ZeRO: " + choices(config::kOffloadDevices)),
      cmd->add_option(names("offload_param_device"), offloadParamDevice, "ZeRO-3: " + choices(config::kOffloadDevices)),
  };
}

void TrainShardingFlags::apply(train::AcceleratorOptions& accelerator, const runtime::EnvLookup& env) const {
  const plan::Strategy chosen = forFlag("--strategy", [&] { return plan::parseStrategy(strategy); });
  const std::string fsdpGiven = givenNames(m_fsdpOptions);
  const std::string zeroGiven = givenNames(m_zeroOptions);
  bool useFsdp = chosen == plan::Strategy::Fsdp;
  bool useZero = chosen == plan::Strategy::Zero1 || chosen == plan::Strategy::Zero2 || chosen == plan::Strategy::Zero3;
  if (chosen == plan::Strategy::Ddp) {
    // The launcher decides (Accelerate): flags may only adjust the strategy it selected.
    useFsdp = !fsdpGiven.empty();
    useZero = !zeroGiven.empty();
    FATHOM_CHECK(!useFsdp || envTrue(env, "ACCELERATE_USE_FSDP"), ConfigError, fsdpGiven,
                 " given without --strategy fsdp (and the launcher did not select FSDP)");
    FATHOM_CHECK(!useZero || envTrue(env, "ACCELERATE_USE_DEEPSPEED"), ConfigError, zeroGiven,
                 " given without --strategy zero1/zero2/zero3 (and the launcher did not select DeepSpeed)");
  }
  FATHOM_CHECK(!useFsdp || zeroGiven.empty(), ConfigError, zeroGiven,
               " apply to ZeRO, not FSDP (FSDP offloads with --fsdp_offload_params)");
  FATHOM_CHECK(!useZero || fsdpGiven.empty(), ConfigError, fsdpGiven, " apply to --strategy fsdp, not ZeRO");

  if (useFsdp) {
    parallel::FsdpOptions o = parallel::fsdpOptionsFromEnvironment(env);
    const auto& f = m_fsdpOptions;
    if (given(f[0]))
      o.shardingStrategy = forFlag("--fsdp_sharding_strategy",
                                   [&] { return parallel::parseFsdpShardingStrategy(fsdpShardingStrategy); });
    if (given(f[1]))
      o.autoWrapPolicy =
          forFlag("--fsdp_auto_wrap_policy", [&] { return parallel::parseFsdpWrapPolicy(fsdpAutoWrapPolicy); });
    if (given(f[2]))
      o.transformerLayerClsToWrap = classNames(fsdpTransformerLayerClsToWrap);
    if (given(f[3])) {
      FATHOM_CHECK(fsdpMinNumParams >= 0, ConfigError, "--fsdp_min_num_params must be >= 0, got ", fsdpMinNumParams);
      o.minNumParams = fsdpMinNumParams;
    }
    if (given(f[4]))
      o.backwardPrefetch = forFlag("--fsdp_backward_prefetch",
                                   [&] { return parallel::parseFsdpBackwardPrefetch(fsdpBackwardPrefetch); });
    if (given(f[5]))
      o.forwardPrefetch = boolFlag("--fsdp_forward_prefetch", fsdpForwardPrefetch);
    if (given(f[6]))
      o.offloadParams = boolFlag("--fsdp_offload_params", fsdpOffloadParams);
    if (given(f[7]))
      o.stateDictType =
          forFlag("--fsdp_state_dict_type", [&] { return parallel::parseFsdpStateDictType(fsdpStateDictType); });
    if (given(f[8]))
      o.syncModuleStates = boolFlag("--fsdp_sync_module_states", fsdpSyncModuleStates);
    if (given(f[9])) {
      FATHOM_CHECK(fsdpHybridGroupSize >= 1, ConfigError, "--fsdp_hybrid_group_size must be >= 1, got ",
                   fsdpHybridGroupSize);
      o.shardGroupSize = fsdpHybridGroupSize;
    }
    parallel::validate(o);
    accelerator.fsdp = o;
  }
  if (useZero) {
    // --strategy zeroN fixes the stage; the launcher's ACCELERATE_DEEPSPEED_ZERO_STAGE is then not read.
    parallel::ZeroOptions base;
    runtime::EnvLookup zeroEnv = env;
    if (chosen != plan::Strategy::Ddp) {
      base.stage = chosen == plan::Strategy::Zero1 ? 1 : chosen == plan::Strategy::Zero2 ? 2 : 3;
      zeroEnv = [&env](const std::string& name) -> std::optional<std::string> {
        return name == "ACCELERATE_DEEPSPEED_ZERO_STAGE" ? std::nullopt : env(name);
      };
    }
    parallel::ZeroOptions o = parallel::zeroOptionsFromEnvironment(zeroEnv, base);
    const auto& z = m_zeroOptions;
    if (given(z[0])) {
      FATHOM_CHECK(zeroReduceBucketSize >= 1, ConfigError, "--zero_reduce_bucket_size must be >= 1 element, got ",
                   zeroReduceBucketSize);
      o.reduceBucketSize = zeroReduceBucketSize;
      o.allgatherBucketSize = zeroReduceBucketSize;
    }
    if (given(z[1]))
      o.offloadOptimizer =
          forFlag("--offload_optimizer_device", [&] { return parallel::parseOffloadDevice(offloadOptimizerDevice); });
    if (given(z[2]))
      o.offloadParams =
          forFlag("--offload_param_device", [&] { return parallel::parseOffloadDevice(offloadParamDevice); });
    forFlag("--strategy", [&] { parallel::validate(o); });
    accelerator.deepspeed = o;
  }
}

}  // namespace fathom::cli
