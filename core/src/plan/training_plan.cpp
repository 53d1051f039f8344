// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/training_plan.h>

#include <fathom/common/error.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

namespace fathom::plan {
namespace {

/// The table's name of `value` in lower case ("full_shard"), as plan files and `fathom plan --json` spell FSDP's
/// Accelerate names. Built once per table.
template <typename Table, typename E> std::string_view lowerName(const Table& table, E value) {
  static const std::map<E, std::string> names = [&table] {
    std::map<E, std::string> out;
    for (const auto& entry : table.entries()) {
      std::string name(entry.name);
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      out.emplace(entry.value, std::move(name));
    }
    return out;
  }();
  return names.at(value);
}

}  // namespace

int dataParallel(const Plan& plan) {
  return plan.tp * plan.pp > 0 ? plan.numGpus / (plan.tp * plan.pp) : 0;
}

Strategy parseStrategy(std::string_view text) {
  return kStrategies.parse(text);
}

FsdpSharding parseFsdpSharding(std::string_view text) {
  return config::kFsdpShardingStrategies.parse(text);
}

Precision parsePrecision(std::string_view text) {
  if (const auto value = config::kMixedPrecisions.find(text)) {
    return *value;
  }
  std::string lowered(text);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  FATHOM_CHECK(lowered == "fp32", ConfigError, "invalid precision '", text,
               "' (expected fp32 (or no), fp16, bf16 or fp8)");
  return Precision::Fp32;
}

MasterWeights parseMasterWeights(std::string_view text) {
  return kMasterWeights.parse(text);
}

Optimizer parseOptimizer(std::string_view text) {
  return kOptimizers.parse(text);
}

Recompute parseRecompute(std::string_view text) {
  return kRecomputes.parse(text);
}

BytesConvention parseBytesConvention(std::string_view text) {
  return kBytesConventions.parse(text);
}

GradSync parseGradSync(std::string_view text) {
  return kGradSyncs.parse(text);
}

FsdpWrap parseFsdpWrap(std::string_view text) {
  return config::kFsdpWrapPolicies.parse(text);
}

std::string_view toString(Strategy v) {
  return kStrategies.toString(v);
}

std::string_view toString(FsdpSharding v) {
  return lowerName(config::kFsdpShardingStrategies, v);
}

std::string_view toString(Precision v) {
  return v == Precision::Fp32 ? "fp32" : config::kMixedPrecisions.toString(v);
}

std::string_view toString(MasterWeights v) {
  return kMasterWeights.toString(v);
}

std::string_view toString(Optimizer v) {
  return kOptimizers.toString(v);
}

std::string_view toString(Recompute v) {
  return kRecomputes.toString(v);
}

std::string_view toString(BytesConvention v) {
  return kBytesConventions.toString(v);
}

std::string_view toString(GradSync v) {
  return kGradSyncs.toString(v);
}

std::string_view toString(FsdpWrap v) {
  return lowerName(config::kFsdpWrapPolicies, v);
}

std::string strategyLabel(const Plan& plan) {
  std::string label(toString(plan.strategy));
  if (plan.strategy == Strategy::Fsdp) {
    label += "/";
    label += toString(plan.fsdpSharding);
  }
  return label;
}

}  // namespace fathom::plan
