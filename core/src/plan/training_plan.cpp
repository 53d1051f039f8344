// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/training_plan.h>

#include <fathom/common/error.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace fathom::plan {
namespace {

// Lower-cases and maps '-' to '_' so "SHARD_GRAD_OP", "shard-grad-op" and "shard_grad_op" all match.
std::string normalise(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return c == '-' ? '_' : static_cast<char>(std::tolower(c)); });
  return out;
}

template <typename E, std::size_t N>
E lookup(std::string_view what, std::string_view text, const std::array<std::pair<const char*, E>, N>& table,
         const char* accepted) {
  const std::string key = normalise(text);
  for (const auto& [name, value] : table) {
    if (key == name) {
      return value;
    }
  }
  throw ConfigError(detail::concat("invalid ", what, " '", text, "' (expected ", accepted, ")"));
}

}  // namespace

int dataParallel(const Plan& plan) {
  return plan.tp * plan.pp > 0 ? plan.numGpus / (plan.tp * plan.pp) : 0;
}

Strategy parseStrategy(std::string_view text) {
  static constexpr std::array<std::pair<const char*, Strategy>, 9> table{{{"ddp", Strategy::Ddp},
                                                                          {"multi_gpu", Strategy::Ddp},
                                                                          {"fsdp", Strategy::Fsdp},
                                                                          {"zero1", Strategy::Zero1},
                                                                          {"zero_1", Strategy::Zero1},
                                                                          {"zero2", Strategy::Zero2},
                                                                          {"zero_2", Strategy::Zero2},
                                                                          {"zero3", Strategy::Zero3},
                                                                          {"zero_3", Strategy::Zero3}}};
  return lookup("strategy", text, table, "ddp, fsdp, zero1, zero2 or zero3");
}

FsdpSharding parseFsdpSharding(std::string_view text) {
  // Accelerate writes the sharding strategy either by name or as torch's enum value (1..5); torch spells the
  // fifth _HYBRID_SHARD_ZERO2.
  static constexpr std::array<std::pair<const char*, FsdpSharding>, 11> table{
      {{"full_shard", FsdpSharding::FullShard},
       {"1", FsdpSharding::FullShard},
       {"shard_grad_op", FsdpSharding::ShardGradOp},
       {"2", FsdpSharding::ShardGradOp},
       {"no_shard", FsdpSharding::NoShard},
       {"3", FsdpSharding::NoShard},
       {"hybrid_shard", FsdpSharding::HybridShard},
       {"4", FsdpSharding::HybridShard},
       {"hybrid_shard_zero2", FsdpSharding::HybridShardZero2},
       {"_hybrid_shard_zero2", FsdpSharding::HybridShardZero2},
       {"5", FsdpSharding::HybridShardZero2}}};
  return lookup("fsdp_sharding_strategy", text, table,
                "full_shard, shard_grad_op, hybrid_shard, hybrid_shard_zero2 or no_shard");
}

Precision parsePrecision(std::string_view text) {
  static constexpr std::array<std::pair<const char*, Precision>, 5> table{{{"fp32", Precision::Fp32},
                                                                           {"no", Precision::Fp32},
                                                                           {"fp16", Precision::Fp16},
                                                                           {"bf16", Precision::Bf16},
                                                                           {"fp8", Precision::Fp8}}};
  return lookup("precision", text, table, "fp32 (or no), fp16, bf16 or fp8");
}

MasterWeights parseMasterWeights(std::string_view text) {
  static constexpr std::array<std::pair<const char*, MasterWeights>, 7> table{{{"fp32", MasterWeights::Fp32Copy},
                                                                               {"yes", MasterWeights::Fp32Copy},
                                                                               {"true", MasterWeights::Fp32Copy},
                                                                               {"none", MasterWeights::None},
                                                                               {"no", MasterWeights::None},
                                                                               {"false", MasterWeights::None},
                                                                               {"autocast", MasterWeights::Autocast}}};
  return lookup("master_weights", text, table, "fp32 (yes), none (no) or autocast");
}

Optimizer parseOptimizer(std::string_view text) {
  static constexpr std::array<std::pair<const char*, Optimizer>, 6> table{{{"adam", Optimizer::Adam},
                                                                           {"adamw", Optimizer::AdamW},
                                                                           {"sgd", Optimizer::Sgd},
                                                                           {"sgd_momentum", Optimizer::SgdMomentum},
                                                                           {"momentum", Optimizer::SgdMomentum},
                                                                           {"adafactor", Optimizer::Adafactor}}};
  return lookup("optimizer", text, table, "adam, adamw, sgd, sgd-momentum or adafactor");
}

Recompute parseRecompute(std::string_view text) {
  static constexpr std::array<std::pair<const char*, Recompute>, 3> table{
      {{"none", Recompute::None}, {"selective", Recompute::Selective}, {"full", Recompute::Full}}};
  return lookup("recompute", text, table, "none, selective or full");
}

BytesConvention parseBytesConvention(std::string_view text) {
  static constexpr std::array<std::pair<const char*, BytesConvention>, 3> table{
      {{"zero", BytesConvention::Zero},
       {"megatron", BytesConvention::Megatron},
       {"deepspeed", BytesConvention::DeepSpeed}}};
  return lookup("bytes_convention", text, table, "zero, megatron or deepspeed");
}

GradSync parseGradSync(std::string_view text) {
  static constexpr std::array<std::pair<const char*, GradSync>, 3> table{
      {{"auto", GradSync::Auto},
       {"every_micro_step", GradSync::EveryMicroStep},
       {"once_per_step", GradSync::OncePerStep}}};
  return lookup("grad_sync", text, table, "auto, every_micro_step or once_per_step");
}

FsdpWrap parseFsdpWrap(std::string_view text) {
  static constexpr std::array<std::pair<const char*, FsdpWrap>, 6> table{
      {{"transformer_based_wrap", FsdpWrap::TransformerBased},
       {"transformer", FsdpWrap::TransformerBased},
       {"size_based_wrap", FsdpWrap::SizeBased},
       {"size", FsdpWrap::SizeBased},
       {"no_wrap", FsdpWrap::NoWrap},
       {"none", FsdpWrap::NoWrap}}};
  return lookup("fsdp_auto_wrap_policy", text, table, "transformer_based_wrap, size_based_wrap or no_wrap");
}

std::string_view toString(Strategy v) {
  switch (v) {
  case Strategy::Ddp: return "ddp";
  case Strategy::Fsdp: return "fsdp";
  case Strategy::Zero1: return "zero1";
  case Strategy::Zero2: return "zero2";
  case Strategy::Zero3: return "zero3";
  }
  return "ddp";
}

std::string_view toString(FsdpSharding v) {
  switch (v) {
  case FsdpSharding::FullShard: return "full_shard";
  case FsdpSharding::ShardGradOp: return "shard_grad_op";
  case FsdpSharding::HybridShard: return "hybrid_shard";
  case FsdpSharding::HybridShardZero2: return "hybrid_shard_zero2";
  case FsdpSharding::NoShard: return "no_shard";
  }
  return "full_shard";
}

std::string_view toString(Precision v) {
  switch (v) {
  case Precision::Fp32: return "fp32";
  case Precision::Fp16: return "fp16";
  case Precision::Bf16: return "bf16";
  case Precision::Fp8: return "fp8";
  }
  return "bf16";
}

std::string_view toString(MasterWeights v) {
  switch (v) {
  case MasterWeights::Fp32Copy: return "fp32";
  case MasterWeights::None: return "none";
  case MasterWeights::Autocast: return "autocast";
  }
  return "fp32";
}

std::string_view toString(Optimizer v) {
  switch (v) {
  case Optimizer::Adam: return "adam";
  case Optimizer::AdamW: return "adamw";
  case Optimizer::Sgd: return "sgd";
  case Optimizer::SgdMomentum: return "sgd-momentum";
  case Optimizer::Adafactor: return "adafactor";
  }
  return "adamw";
}

std::string_view toString(Recompute v) {
  switch (v) {
  case Recompute::None: return "none";
  case Recompute::Selective: return "selective";
  case Recompute::Full: return "full";
  }
  return "none";
}

std::string_view toString(BytesConvention v) {
  switch (v) {
  case BytesConvention::Zero: return "zero";
  case BytesConvention::Megatron: return "megatron";
  case BytesConvention::DeepSpeed: return "deepspeed";
  }
  return "megatron";
}

std::string_view toString(GradSync v) {
  switch (v) {
  case GradSync::Auto: return "auto";
  case GradSync::EveryMicroStep: return "every_micro_step";
  case GradSync::OncePerStep: return "once_per_step";
  }
  return "auto";
}

std::string_view toString(FsdpWrap v) {
  switch (v) {
  case FsdpWrap::TransformerBased: return "transformer_based_wrap";
  case FsdpWrap::SizeBased: return "size_based_wrap";
  case FsdpWrap::NoWrap: return "no_wrap";
  }
  return "transformer_based_wrap";
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
