// SPDX-License-Identifier: Apache-2.0
// The vocabulary's tables (config/vocabulary.h, plan/training_plan.h): each is consistent, the YAML schema's allowed
// values are exactly its names, the parsers of the engines, the planner and the precision code read the same
// spellings, and the trackers it calls supported are the ones the tracker registry implements.
#include "error_helpers.h"

#include <fathom/common/error.h>
#include <fathom/config/config_schema.h>
#include <fathom/config/vocabulary.h>
#include <fathom/parallel/fsdp_options.h>
#include <fathom/parallel/zero_options.h>
#include <fathom/plan/training_plan.h>
#include <fathom/precision/mixed_precision.h>
#include <fathom/runtime/process_state.h>
#include <fathom/telemetry/sqlite_tracker.h>
#include <fathom/track/tracker_registry.h>

#include <QTest>

#include <algorithm>
#include <cctype>
#include <set>

using namespace fathom;

namespace {

using fathom::test::messageOf;

std::string folded(std::string_view text, NameMatch match) {
  std::string out(text);
  if (match == NameMatch::Lenient) {
    for (char& c : out) {
      c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

/// Every value once, every spelling unique under the table's rule, every spelling read back as its value.
template <typename E, std::size_t N> void checkTable(const NameTable<E, N>& table) {
  std::set<E> values;
  std::set<std::string> spellings;
  for (const auto& entry : table.entries()) {
    QVERIFY2(values.insert(entry.value).second, std::string(entry.name).c_str());
    QVERIFY2(!entry.help.empty(), std::string(entry.name).c_str());
    QVERIFY2(spellings.insert(folded(entry.name, table.match())).second, std::string(entry.name).c_str());
    QVERIFY(table.parse(entry.name) == entry.value);
    QCOMPARE(table.toString(entry.value), entry.name);
    for (std::string_view alias : entry.aliases) {
      if (!alias.empty()) {
        QVERIFY2(spellings.insert(folded(alias, table.match())).second, std::string(alias).c_str());
        QVERIFY(table.parse(alias) == entry.value);
      }
    }
  }
  QVERIFY(!table.supportedNames().empty());
}

/// The schema's allowed values and legacy spellings of `path` are the table's.
template <typename E, std::size_t N> void checkSchemaKey(const char* path, const NameTable<E, N>& table) {
  const config::KeySpec* key = config::findKey(path);
  QVERIFY2(key != nullptr, path);
  QVERIFY2(key->allowed == table.names(), path);
  QVERIFY2(key->valueAliases == table.aliases(), path);
  QCOMPARE(key->caseInsensitive, table.match() == NameMatch::Lenient);
}

}  // namespace

class TestVocabulary : public QObject {
  Q_OBJECT

private slots:
  void everyTableIsConsistent() {
    checkTable(config::kDistributedTypes);
    checkTable(config::kFsdpShardingStrategies);
    checkTable(config::kFsdpWrapPolicies);
    checkTable(config::kFsdpBackwardPrefetches);
    checkTable(config::kFsdpStateDictTypes);
    checkTable(config::kZeroStages);
    checkTable(config::kOffloadDevices);
    checkTable(config::kMixedPrecisions);
    checkTable(config::kDynamoBackends);
    checkTable(config::kTrackers);
    checkTable(config::kLaunchers);
    checkTable(config::kProfilerActivities);
    checkTable(config::kHangActions);
    checkTable(plan::kStrategies);
    checkTable(plan::kMasterWeights);
    checkTable(plan::kOptimizers);
    checkTable(plan::kRecomputes);
    checkTable(plan::kBytesConventions);
    checkTable(plan::kGradSyncs);
  }

  void theSchemaTakesItsValuesFromTheTables() {
    checkSchemaKey("distributed_type", config::kDistributedTypes);
    checkSchemaKey("mixed_precision", config::kMixedPrecisions);
    checkSchemaKey("fsdp_config.fsdp_sharding_strategy", config::kFsdpShardingStrategies);
    checkSchemaKey("fsdp_config.fsdp_reshard_after_forward", config::kFsdpShardingStrategies);
    checkSchemaKey("fsdp_config.fsdp_auto_wrap_policy", config::kFsdpWrapPolicies);
    checkSchemaKey("fsdp_config.fsdp_backward_prefetch", config::kFsdpBackwardPrefetches);
    checkSchemaKey("fsdp_config.fsdp_state_dict_type", config::kFsdpStateDictTypes);
    checkSchemaKey("deepspeed_config.offload_optimizer_device", config::kOffloadDevices);
    checkSchemaKey("deepspeed_config.offload_param_device", config::kOffloadDevices);
    checkSchemaKey("dynamo_config.dynamo_backend", config::kDynamoBackends);
    checkSchemaKey("fathom.trackers", config::kTrackers);
    checkSchemaKey("fathom.launcher", config::kLaunchers);
    checkSchemaKey("fathom.profiler.activities", config::kProfilerActivities);
    checkSchemaKey("fathom.hang_action", config::kHangActions);
    checkSchemaKey("fathom.planner.master_weights", plan::kMasterWeights);
    checkSchemaKey("fathom.planner.optimizer", plan::kOptimizers);
    checkSchemaKey("fathom.planner.recompute", plan::kRecomputes);
    checkSchemaKey("fathom.planner.bytes_convention", plan::kBytesConventions);
    checkSchemaKey("fathom.planner.grad_sync", plan::kGradSyncs);
    QVERIFY(config::findKey("deepspeed_config.zero_stage")->allowed == config::kZeroStages.names());
    // Every spelling a table reads is one the file reads too (HYBRID_SHARD_ZERO2's torch name included).
    const config::KeySpec& sharding = *config::findKey("fsdp_config.fsdp_sharding_strategy");
    QCOMPARE(std::get<std::string>(config::parseValueText(sharding, "_HYBRID_SHARD_ZERO2", "t")),
             std::string("HYBRID_SHARD_ZERO2"));
    QCOMPARE(std::get<std::string>(config::parseValueText(sharding, "shard-grad-op", "t")),
             std::string("SHARD_GRAD_OP"));
  }

  // One enum per concept: the engines, the planner, the runtime and the precision code use the tables' types and
  // spellings.
  void everyLayerReadsTheSameSpellings() {
    for (const auto& e : config::kFsdpShardingStrategies.entries()) {
      QVERIFY(plan::parseFsdpSharding(e.name) == e.value);
      QCOMPARE(parallel::fsdpShardingName(e.value), e.name);
      if (e.supported) {
        QVERIFY(parallel::parseFsdpShardingStrategy(e.name) == e.value);
      } else {
        QVERIFY(messageOf([&] { parallel::parseFsdpShardingStrategy(e.name); }).find("not supported by Fathom") !=
                std::string::npos);
      }
    }
    for (const auto& e : config::kFsdpWrapPolicies.entries()) {
      QVERIFY(plan::parseFsdpWrap(e.name) == e.value);
      QVERIFY(parallel::parseFsdpWrapPolicy(e.name) == e.value);
    }
    for (const auto& e : config::kOffloadDevices.entries()) {
      QVERIFY(parallel::parseOffloadDevice(e.name) == e.value);
    }
    for (const auto& e : config::kMixedPrecisions.entries()) {
      QVERIFY(precision::parseMixedPrecision(e.name) == e.value);
      QCOMPARE(std::string_view(precision::toString(e.value)), e.name);
      QVERIFY(plan::parsePrecision(e.name) == e.value);
    }
    // The planner's fp32 is Accelerate's `no`.
    QVERIFY(plan::Precision::Fp32 == config::MixedPrecision::No);
    QVERIFY(plan::parsePrecision("fp32") == config::MixedPrecision::No);
    QCOMPARE(plan::toString(plan::Precision::Fp32), std::string_view("fp32"));
    QCOMPARE(plan::toString(config::FsdpShardingStrategy::ShardGradOp), std::string_view("shard_grad_op"));
    QCOMPARE(plan::toString(config::FsdpWrapPolicy::NoWrap), std::string_view("no_wrap"));
    for (const auto& e : config::kDistributedTypes.entries()) {
      QCOMPARE(std::string_view(runtime::toString(e.value)), e.name);
    }
    QVERIFY(runtime::distributedTypeFromString("FSDP") == config::DistributedType::Fsdp);
    QVERIFY(!runtime::distributedTypeFromString("XLA").has_value());   // a process is never in XLA mode here
    QVERIFY(!runtime::distributedTypeFromString("fsdp").has_value());  // case-sensitive, as Accelerate's enum
  }

  void unsupportedValuesAreNamedWithTheSupportedOnes() {
    const std::string m = messageOf(
        [] { config::kOffloadDevices.requireSupported(config::OffloadDevice::Nvme, "--offload_param_device"); });
    QCOMPARE(m, std::string("--offload_param_device: offload device 'nvme' is not supported by Fathom (NVMe storage "
                            "(ZeRO-Infinity; Fathom offloads to host memory only)); supported: none, cpu"));
    QCOMPARE(messageOf([] { config::kMixedPrecisions.parse("fp64"); }),
             std::string("invalid mixed_precision 'fp64' (expected no, fp16, bf16 or fp8)"));
    QCOMPARE(messageOf([] { config::kFsdpStateDictTypes.parseSupported("2"); }),
             std::string("fsdp_state_dict_type '2' (LOCAL_STATE_DICT) is not supported by Fathom (torch's flat local "
                         "shards; use FULL_STATE_DICT or SHARDED_STATE_DICT); supported: FULL_STATE_DICT, "
                         "SHARDED_STATE_DICT"));
  }

  // The trackers the vocabulary calls supported are exactly those Fathom implements (the wizard and `fathom config`
  // offer only these).
  void supportedTrackersAreTheImplementedOnes() {
    telemetry::registerSqliteTracker();
    std::set<std::string> implemented;
    for (const std::string& name : track::builtinTrackerNames()) {
      implemented.insert(name);
    }
    std::set<std::string> supported;
    for (const std::string& name : config::kTrackers.supportedNames()) {
      if (name != "all") {
        supported.insert(name);
      }
    }
    QVERIFY2(implemented == supported, (config::kTrackers.joined(config::kTrackers.supportedNames(), ", ")).c_str());
    for (const auto& e : config::kTrackers.entries()) {
      if (!e.supported) {
        QVERIFY2(messageOf([&] { track::parseLogWith(e.name); }) != "<no exception>", std::string(e.name).c_str());
      }
    }
  }
};

QTEST_GUILESS_MAIN(TestVocabulary)
#include "tst_vocabulary.moc"
