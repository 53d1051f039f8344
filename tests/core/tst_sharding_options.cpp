// SPDX-License-Identifier: Apache-2.0
// FSDP and ZeRO options: Accelerate's spellings (names in any case, legacy 1-based integers), validation, the
// FSDP_* / ACCELERATE_DEEPSPEED_* variables `fathom launch` sets, and how the Accelerator picks a strategy from
// explicit options and ACCELERATE_USE_FSDP / ACCELERATE_USE_DEEPSPEED.
#include <fathom/common/error.h>
#include <fathom/launch/launch_options.h>
#include <fathom/launch/worker_environment.h>
#include <fathom/parallel/fsdp_options.h>
#include <fathom/parallel/zero_options.h>
#include <fathom/plan/training_plan.h>
#include <fathom/train/accelerator_options.h>

#include "error_helpers.h"

#include <QTest>

#include <map>
#include <string>

namespace fp = fathom::parallel;
namespace ft = fathom::train;
using fathom::test::contains;
using fathom::test::messageOf;
using Strategy = fp::FsdpShardingStrategy;

namespace {

fathom::runtime::EnvLookup envOf(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const std::string& name) -> std::optional<std::string> {
    const auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

}  // namespace

class TestShardingOptions : public QObject {
  Q_OBJECT

private slots:
  void shardingStrategyNamesAndLegacyIntegers() {
    QVERIFY(fp::parseFsdpShardingStrategy("FULL_SHARD") == Strategy::FullShard);
    QVERIFY(fp::parseFsdpShardingStrategy("shard_grad_op") == Strategy::ShardGradOp);
    QVERIFY(fp::parseFsdpShardingStrategy("No_Shard") == Strategy::NoShard);
    QVERIFY(fp::parseFsdpShardingStrategy("hybrid-shard") == Strategy::HybridShard);
    // torch.distributed.fsdp.ShardingStrategy values, as Accelerate's older configs store them.
    QVERIFY(fp::parseFsdpShardingStrategy("1") == Strategy::FullShard);
    QVERIFY(fp::parseFsdpShardingStrategy("2") == Strategy::ShardGradOp);
    QVERIFY(fp::parseFsdpShardingStrategy("3") == Strategy::NoShard);
    QVERIFY(fp::parseFsdpShardingStrategy("4") == Strategy::HybridShard);
    // torch's _HYBRID_SHARD_ZERO2 = 5; Accelerate spells it HYBRID_SHARD_ZERO2.
    QVERIFY(fp::parseFsdpShardingStrategy("5") == Strategy::HybridShardZero2);
    QVERIFY(fp::parseFsdpShardingStrategy("hybrid_shard_zero2") == Strategy::HybridShardZero2);
    QVERIFY(fp::parseFsdpShardingStrategy("_HYBRID_SHARD_ZERO2") == Strategy::HybridShardZero2);
    const std::string bad = messageOf([] { fp::parseFsdpShardingStrategy("FULL"); });
    QVERIFY2(contains(bad, "'FULL'") && contains(bad, "SHARD_GRAD_OP") && contains(bad, "HYBRID_SHARD_ZERO2"),
             bad.c_str());
    QVERIFY(contains(messageOf([] { fp::parseFsdpShardingStrategy("0"); }), "'0'"));
    QVERIFY(contains(messageOf([] { fp::parseFsdpShardingStrategy("6"); }), "'6'"));
    for (Strategy s : {Strategy::FullShard, Strategy::ShardGradOp, Strategy::NoShard, Strategy::HybridShard,
                       Strategy::HybridShardZero2}) {
      QVERIFY(fp::parseFsdpShardingStrategy(fp::fsdpShardingName(s)) == s);
      // The planner's spelling of the same value parses back to it too (plan::FsdpSharding is the same enum).
      QVERIFY(fathom::plan::parseFsdpSharding(fathom::plan::toString(s)) == s);
      QVERIFY(fathom::plan::parseFsdpSharding(fp::fsdpShardingName(s)) == s);
    }
    QCOMPARE(fp::fsdpShardingName(Strategy::ShardGradOp), std::string_view("SHARD_GRAD_OP"));
    QCOMPARE(fp::fsdpShardingName(Strategy::HybridShardZero2), std::string_view("HYBRID_SHARD_ZERO2"));
    QVERIFY(fathom::plan::parseFsdpSharding("5") == Strategy::HybridShardZero2);
  }

  void wrapPrefetchAndStateDictSpellings() {
    QVERIFY(fp::parseFsdpWrapPolicy("transformer_based_wrap") == fp::FsdpWrapPolicy::TransformerBased);
    QVERIFY(fp::parseFsdpWrapPolicy("SIZE_BASED_WRAP") == fp::FsdpWrapPolicy::SizeBased);
    QVERIFY(fp::parseFsdpWrapPolicy("No_Wrap") == fp::FsdpWrapPolicy::NoWrap);
    QVERIFY(contains(messageOf([] { fp::parseFsdpWrapPolicy("1"); }), "'1'"));  // no integer form in Accelerate

    QVERIFY(fp::parseFsdpBackwardPrefetch("backward_pre") == fp::FsdpBackwardPrefetch::BackwardPre);
    QVERIFY(fp::parseFsdpBackwardPrefetch("BACKWARD_POST") == fp::FsdpBackwardPrefetch::BackwardPost);
    QVERIFY(fp::parseFsdpBackwardPrefetch("NO_PREFETCH") == fp::FsdpBackwardPrefetch::NoPrefetch);
    QVERIFY(fp::parseFsdpBackwardPrefetch("1") == fp::FsdpBackwardPrefetch::BackwardPre);
    QVERIFY(fp::parseFsdpBackwardPrefetch("2") == fp::FsdpBackwardPrefetch::BackwardPost);
    QVERIFY(contains(messageOf([] { fp::parseFsdpBackwardPrefetch("3"); }), "'3'"));

    QVERIFY(fp::parseFsdpStateDictType("full_state_dict") == fp::FsdpStateDictType::FullStateDict);
    QVERIFY(fp::parseFsdpStateDictType("SHARDED_STATE_DICT") == fp::FsdpStateDictType::ShardedStateDict);
    QVERIFY(fp::parseFsdpStateDictType("1") == fp::FsdpStateDictType::FullStateDict);
    QVERIFY(fp::parseFsdpStateDictType("3") == fp::FsdpStateDictType::ShardedStateDict);
    const std::string local = messageOf([] { fp::parseFsdpStateDictType("LOCAL_STATE_DICT"); });
    QVERIFY2(contains(local, "LOCAL_STATE_DICT") && contains(local, "not supported"), local.c_str());
    QVERIFY(contains(messageOf([] { fp::parseFsdpStateDictType("2"); }), "LOCAL_STATE_DICT"));

    for (auto p : {fp::FsdpWrapPolicy::TransformerBased, fp::FsdpWrapPolicy::SizeBased, fp::FsdpWrapPolicy::NoWrap}) {
      QVERIFY(fp::parseFsdpWrapPolicy(fp::toString(p)) == p);
    }
    for (auto p : {fp::FsdpBackwardPrefetch::BackwardPre, fp::FsdpBackwardPrefetch::BackwardPost,
                   fp::FsdpBackwardPrefetch::NoPrefetch}) {
      QVERIFY(fp::parseFsdpBackwardPrefetch(fp::toString(p)) == p);
    }
    QCOMPARE(fp::toString(fp::FsdpStateDictType::ShardedStateDict), std::string_view("SHARDED_STATE_DICT"));
  }

  void fsdpValidation() {
    fp::validate(fp::FsdpOptions{});
    QVERIFY(contains(messageOf([] { fp::validate(fp::FsdpOptions{.limitAllGathers = 0}); }), "got 0"));
    QVERIFY(contains(messageOf([] { fp::validate(fp::FsdpOptions{.minNumParams = -1}); }), "fsdp_min_num_params"));
    QVERIFY(contains(messageOf([] { fp::validate(fp::FsdpOptions{.shardGroupSize = -2}); }), "got -2"));
  }

  void fsdpFromTheLaunchersVariables() {
    // Exactly what `fathom launch --use_fsdp` sets by default (launch_options.cpp's table).
    fathom::launch::LaunchOptions launch{.command = {"true"}, .numProcesses = 2, .useFsdp = true};
    launch.fsdp = {{"fsdp_sharding_strategy", "SHARD_GRAD_OP"},
                   {"fsdp_auto_wrap_policy", "SIZE_BASED_WRAP"},
                   {"fsdp_min_num_params", "2000"},
                   {"fsdp_backward_prefetch", "BACKWARD_POST"},
                   {"fsdp_state_dict_type", "SHARDED_STATE_DICT"},
                   {"fsdp_offload_params", "True"},
                   {"fsdp_forward_prefetch", "true"},
                   {"fsdp_transformer_layer_cls_to_wrap", "Block, MyLayer"}};
    const auto vars =
        fathom::launch::workerVariables(launch, {.localRank = 0, .masterPort = 1234, .restartCount = 0}, std::nullopt);
    const std::map<std::string, std::string> env(vars.begin(), vars.end());
    const fp::FsdpOptions o = fp::fsdpOptionsFromEnvironment(envOf(env));
    QVERIFY(o.shardingStrategy == Strategy::ShardGradOp);  // FSDP_RESHARD_AFTER_FORWARD=true does not override it
    QVERIFY(o.autoWrapPolicy == fp::FsdpWrapPolicy::SizeBased);
    QCOMPARE(o.minNumParams, std::int64_t{2000});
    QVERIFY(o.backwardPrefetch == fp::FsdpBackwardPrefetch::BackwardPost);
    QVERIFY(o.stateDictType == fp::FsdpStateDictType::ShardedStateDict);
    QVERIFY(o.offloadParams);
    QVERIFY(o.forwardPrefetch);
    QVERIFY(o.syncModuleStates);
    QCOMPARE(o.transformerLayerClsToWrap, (std::vector<std::string>{"Block", "MyLayer"}));

    const fp::FsdpOptions defaults = fp::fsdpOptionsFromEnvironment(envOf({}));
    QVERIFY(defaults.shardingStrategy == Strategy::FullShard);
    QCOMPARE(defaults.minNumParams, std::int64_t{100'000'000});
    QVERIFY(defaults.transformerLayerClsToWrap.empty());
    // The base is kept where no variable speaks.
    const fp::FsdpOptions based =
        fp::fsdpOptionsFromEnvironment(envOf({{"FSDP_SYNC_MODULE_STATES", "false"}}), {.shardGroupSize = 2});
    QCOMPARE(based.shardGroupSize, 2);
    QVERIFY(!based.syncModuleStates);
  }

  void fsdpReshardAfterForward() {
    // FSDP1 spelling: a strategy, used when FSDP_SHARDING_STRATEGY is absent.
    QVERIFY(fp::fsdpOptionsFromEnvironment(envOf({{"FSDP_RESHARD_AFTER_FORWARD", "NO_SHARD"}})).shardingStrategy ==
            Strategy::NoShard);
    QVERIFY(fp::fsdpOptionsFromEnvironment(envOf({{"FSDP_RESHARD_AFTER_FORWARD", "2"}})).shardingStrategy ==
            Strategy::ShardGradOp);
    QVERIFY(fp::fsdpOptionsFromEnvironment(
                envOf({{"FSDP_SHARDING_STRATEGY", "HYBRID_SHARD"}, {"FSDP_RESHARD_AFTER_FORWARD", "NO_SHARD"}}))
                .shardingStrategy == Strategy::HybridShard);
    // FSDP2 spelling: false keeps parameters gathered after forward (SHARD_GRAD_OP; HYBRID_SHARD_ZERO2 for a
    // hybrid run); true changes nothing.
    QVERIFY(fp::fsdpOptionsFromEnvironment(envOf({{"FSDP_RESHARD_AFTER_FORWARD", "false"}})).shardingStrategy ==
            Strategy::ShardGradOp);
    QVERIFY(fp::fsdpOptionsFromEnvironment(
                envOf({{"FSDP_SHARDING_STRATEGY", "HYBRID_SHARD"}, {"FSDP_RESHARD_AFTER_FORWARD", "false"}}))
                .shardingStrategy == Strategy::HybridShardZero2);
    QVERIFY(fp::fsdpOptionsFromEnvironment(envOf({{"FSDP_SHARDING_STRATEGY", "5"}})).shardingStrategy ==
            Strategy::HybridShardZero2);
    QVERIFY(fp::fsdpOptionsFromEnvironment(
                envOf({{"FSDP_SHARDING_STRATEGY", "NO_SHARD"}, {"FSDP_RESHARD_AFTER_FORWARD", "true"}}))
                .shardingStrategy == Strategy::NoShard);
  }

  void fsdpBadVariablesNameTheVariable() {
    const auto bad = [](const char* variable, const char* value) {
      return messageOf([&] { fp::fsdpOptionsFromEnvironment(envOf({{variable, value}})); });
    };
    std::string m = bad("FSDP_SHARDING_STRATEGY", "FULLY");
    QVERIFY2(contains(m, "FSDP_SHARDING_STRATEGY") && contains(m, "'FULLY'"), m.c_str());
    m = bad("FSDP_OFFLOAD_PARAMS", "maybe");
    QVERIFY2(contains(m, "FSDP_OFFLOAD_PARAMS='maybe'"), m.c_str());
    m = bad("FSDP_MIN_NUM_PARAMS", "1e8");
    QVERIFY2(contains(m, "FSDP_MIN_NUM_PARAMS='1e8'"), m.c_str());
    m = bad("FSDP_MIN_NUM_PARAMS", "-5");
    QVERIFY2(contains(m, "FSDP_MIN_NUM_PARAMS='-5'"), m.c_str());
    m = bad("FSDP_AUTO_WRAP_POLICY", "LAMBDA");
    QVERIFY2(contains(m, "FSDP_AUTO_WRAP_POLICY") && contains(m, "'LAMBDA'"), m.c_str());
    m = bad("FSDP_BACKWARD_PREFETCH", "EARLY");
    QVERIFY2(contains(m, "FSDP_BACKWARD_PREFETCH"), m.c_str());
    m = bad("FSDP_STATE_DICT_TYPE", "LOCAL_STATE_DICT");
    QVERIFY2(contains(m, "FSDP_STATE_DICT_TYPE"), m.c_str());
    m = bad("FSDP_RESHARD_AFTER_FORWARD", "sometimes");
    QVERIFY2(contains(m, "FSDP_RESHARD_AFTER_FORWARD"), m.c_str());
  }

  void zeroSpellingsAndValidation() {
    QVERIFY(fp::parseOffloadDevice("CPU") == fp::OffloadDevice::Cpu);
    QVERIFY(fp::parseOffloadDevice("none") == fp::OffloadDevice::None);
    QVERIFY(fp::parseOffloadDevice("NVMe") == fp::OffloadDevice::Nvme);
    QVERIFY(contains(messageOf([] { fp::parseOffloadDevice("gpu"); }), "'gpu'"));
    QCOMPARE(fp::toString(fp::OffloadDevice::Cpu), std::string_view("cpu"));

    fp::validate(fp::ZeroOptions{});
    QVERIFY(contains(messageOf([] { fp::validate(fp::ZeroOptions{.stage = 0}); }), "got 0"));
    QVERIFY(contains(messageOf([] { fp::validate(fp::ZeroOptions{.stage = 4}); }), "got 4"));
    QVERIFY(contains(messageOf([] { fp::validate(fp::ZeroOptions{.reduceBucketSize = 0}); }), "reduce_bucket_size"));
    QVERIFY(
        contains(messageOf([] { fp::validate(fp::ZeroOptions{.allgatherBucketSize = -1}); }), "allgather_bucket_size"));
    const std::string m =
        messageOf([] { fp::validate(fp::ZeroOptions{.stage = 2, .offloadParams = fp::OffloadDevice::Cpu}); });
    QVERIFY2(contains(m, "offload_param_device cpu") && contains(m, "zero_stage 2"), m.c_str());
    fp::validate(fp::ZeroOptions{.stage = 3, .offloadParams = fp::OffloadDevice::Cpu});
  }

  void zeroFromTheLaunchersVariables() {
    fathom::launch::LaunchOptions launch{.command = {"true"}, .numProcesses = 2, .useDeepSpeed = true};
    launch.zeroStage = 3;
    launch.offloadOptimizerDevice = "CPU";  // as given; the launcher writes it lower-case
    launch.offloadParamDevice = "cpu";
    const auto vars =
        fathom::launch::workerVariables(launch, {.localRank = 1, .masterPort = 1234, .restartCount = 0}, std::nullopt);
    const std::map<std::string, std::string> env(vars.begin(), vars.end());
    QCOMPARE(env.at("ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE"), std::string("cpu"));
    const fp::ZeroOptions o = fp::zeroOptionsFromEnvironment(envOf(env));
    QCOMPARE(o.stage, 3);
    QVERIFY(o.offloadOptimizer == fp::OffloadDevice::Cpu);
    QVERIFY(o.offloadParams == fp::OffloadDevice::Cpu);
    QCOMPARE(fp::zeroOptionsFromEnvironment(envOf({})).stage, 2);  // DeepSpeed's default
    QCOMPARE(fp::zeroOptionsFromEnvironment(envOf({}), {.stage = 1, .reduceBucketSize = 7}).reduceBucketSize,
             std::int64_t{7});

    std::string m = messageOf([] {
      fp::zeroOptionsFromEnvironment(envOf({{"ACCELERATE_DEEPSPEED_ZERO_STAGE", "0"}}));
    });
    QVERIFY2(contains(m, "ACCELERATE_DEEPSPEED_ZERO_STAGE=0"), m.c_str());
    m = messageOf([] { fp::zeroOptionsFromEnvironment(envOf({{"ACCELERATE_DEEPSPEED_ZERO_STAGE", "two"}})); });
    QVERIFY2(contains(m, "ACCELERATE_DEEPSPEED_ZERO_STAGE='two'"), m.c_str());
    m = messageOf([] {
      fp::zeroOptionsFromEnvironment(envOf({{"ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE", "disk"}}));
    });
    QVERIFY2(contains(m, "ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE") && contains(m, "'disk'"), m.c_str());
    m = messageOf([] {
      fp::zeroOptionsFromEnvironment(
          envOf({{"ACCELERATE_DEEPSPEED_ZERO_STAGE", "2"}, {"ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE", "cpu"}}));
    });
    QVERIFY2(contains(m, "zero_stage 2"), m.c_str());
  }

  void acceleratorResolvesTheShardingStrategy() {
    // Nothing set: DDP.
    auto r = ft::resolveAcceleratorOptions({}, envOf({}));
    QVERIFY(!r.fsdp && !r.zero);
    // The launcher's variables.
    r = ft::resolveAcceleratorOptions(
        {}, envOf({{"ACCELERATE_USE_FSDP", "true"}, {"FSDP_SHARDING_STRATEGY", "2"}, {"FSDP_MIN_NUM_PARAMS", "10"}}));
    QVERIFY(r.fsdp && !r.zero);
    QVERIFY(r.fsdp->shardingStrategy == Strategy::ShardGradOp);
    QCOMPARE(r.fsdp->minNumParams, std::int64_t{10});
    r = ft::resolveAcceleratorOptions(
        {}, envOf({{"ACCELERATE_USE_DEEPSPEED", "True"}, {"ACCELERATE_DEEPSPEED_ZERO_STAGE", "1"}}));
    QVERIFY(r.zero && !r.fsdp);
    QCOMPARE(r.zero->stage, 1);
    // FSDP_* variables without ACCELERATE_USE_FSDP change nothing; ACCELERATE_USE_FSDP=false is off.
    QVERIFY(!ft::resolveAcceleratorOptions({}, envOf({{"FSDP_SHARDING_STRATEGY", "FULL_SHARD"}})).fsdp);
    QVERIFY(!ft::resolveAcceleratorOptions({}, envOf({{"ACCELERATE_USE_FSDP", "false"}})).fsdp);
    // Explicit options win over the environment, whatever it selects.
    r = ft::resolveAcceleratorOptions({.fsdp = fp::FsdpOptions{.shardingStrategy = Strategy::NoShard}},
                                      envOf({{"ACCELERATE_USE_DEEPSPEED", "true"}}));
    QVERIFY(r.fsdp && !r.zero);
    QVERIFY(r.fsdp->shardingStrategy == Strategy::NoShard);
    r = ft::resolveAcceleratorOptions({.deepspeed = fp::ZeroOptions{.stage = 3}},
                                      envOf({{"ACCELERATE_USE_FSDP", "true"}, {"FSDP_SHARDING_STRATEGY", "bad"}}));
    QVERIFY(r.zero && !r.fsdp);
    QCOMPARE(r.zero->stage, 3);

    std::string m = messageOf([] {
      ft::resolveAcceleratorOptions({}, envOf({{"ACCELERATE_USE_FSDP", "true"}, {"ACCELERATE_USE_DEEPSPEED", "1"}}));
    });
    QVERIFY2(contains(m, "ACCELERATE_USE_FSDP") && contains(m, "ACCELERATE_USE_DEEPSPEED"), m.c_str());
    m = messageOf(
        [] { ft::resolveAcceleratorOptions({.fsdp = fp::FsdpOptions{}, .deepspeed = fp::ZeroOptions{}}, envOf({})); });
    QVERIFY2(contains(m, "fsdp and deepspeed"), m.c_str());
    m = messageOf([] { ft::resolveAcceleratorOptions({}, envOf({{"ACCELERATE_USE_FSDP", "perhaps"}})); });
    QVERIFY2(contains(m, "ACCELERATE_USE_FSDP='perhaps'"), m.c_str());
    // Explicit options are validated too.
    m = messageOf([] { ft::resolveAcceleratorOptions({.deepspeed = fp::ZeroOptions{.stage = 5}}, envOf({})); });
    QVERIFY2(contains(m, "got 5"), m.c_str());
    m = messageOf([] {
      ft::resolveAcceleratorOptions({}, envOf({{"ACCELERATE_USE_FSDP", "true"}, {"FSDP_STATE_DICT_TYPE", "2"}}));
    });
    QVERIFY2(contains(m, "FSDP_STATE_DICT_TYPE"), m.c_str());
  }
};

QTEST_GUILESS_MAIN(TestShardingOptions)
#include "tst_sharding_options.moc"
