// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/plan_json.h>

#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/common/json_input.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>

namespace fathom::plan {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

bool always(const Plan&) {
  return true;
}
bool never(const Plan&) {
  return false;
}
bool isFsdp(const Plan& p) {
  return p.strategy == Strategy::Fsdp;
}
bool hasUnits(const Plan& p) {
  return p.strategy == Strategy::Fsdp || p.strategy == Strategy::Zero3;
}
bool hasBuckets(const Plan& p) {
  return p.strategy == Strategy::Zero1 || p.strategy == Strategy::Zero2;
}

/// Plan's fields, each with its key, an alias read before it (or ""), and whether it applies to a plan (what
/// PlanFields::Applicable keeps), in the order JSON lists them. The one list of the plan's keys: a new Plan field
/// is one line here. `P` is Plan or const Plan.
template <typename P, typename Visit> void planFields(P& p, Visit&& v) {
  v("strategy", "", p.strategy, always);
  v("fsdp_sharding_strategy", "", p.fsdpSharding, isFsdp);
  v("fsdp_auto_wrap_policy", "", p.fsdpWrap, hasUnits);
  v("fsdp_min_num_params", "", p.fsdpMinNumParams, hasUnits);
  v("zero_bucket_size", "", p.zeroBucketElements, hasBuckets);
  v("num_gpus", "num_processes", p.numGpus, always);
  v("gpus_per_node", "", p.gpusPerNode, always);
  v("offload_optimizer", "", p.offloadOptimizer, always);
  v("offload_params", "", p.offloadParams, always);
  v("tp", "", p.tp, always);
  v("pp", "", p.pp, always);
  v("sequence_parallel", "", p.sequenceParallel, always);
  v("micro_batch", "", p.microBatch, always);
  v("gradient_accumulation_steps", "", p.gradAccum, always);
  v("precision", "mixed_precision", p.precision, always);
  v("master_weights", "", p.masterWeights, always);
  v("optimizer", "", p.optimizer, always);
  v("recompute", "", p.recompute, always);
  v("flash_attention", "", p.flashAttention, always);
  v("bytes_convention", "", p.bytes, always);
  v("grad_sync", "", p.gradSync, always);
  // 0 = the model's default; a prediction reports the length it resolved instead (PlanFields::Applicable).
  v("seq", "", p.seqLen, never);
}

/// TransformerDims' fields with their keys (`fathom plan`'s flags), "arch" first. `D` is TransformerDims or const.
template <typename D, typename Visit> void dimsFields(D& d, Visit&& v) {
  v("arch", d.arch);
  v("layers", d.layers);
  v("decoder_layers", d.decoderLayers);
  v("hidden", d.hidden);
  v("heads", d.heads);
  v("kv_heads", d.kvHeads);
  v("head_dim", d.headDim);
  v("ffn_hidden", d.ffnHidden);
  v("vocab", d.vocab);
  v("max_positions", d.maxPositions);
  v("type_vocab", d.typeVocab);
  v("relative_buckets", d.relativeBuckets);
  v("tied_embeddings", d.tiedEmbeddings);
  v("gated_mlp", d.gatedMlp);
  v("attention_bias", d.attentionBias);
  v("num_experts", d.numExperts);
  v("experts_per_token", d.expertsPerToken);
  v("pooler", d.pooler);
  v("dropout", d.dropout);
}

/// The parser of each enum a field may hold (training_plan.h, model_spec.h), found by its type.
constexpr std::tuple kParsers{&parseStrategy,      &parseFsdpSharding, &parseFsdpWrap,  &parsePrecision,
                              &parseMasterWeights, &parseOptimizer,    &parseRecompute, &parseBytesConvention,
                              &parseGradSync,      &parseArch};

template <typename E> void assign(const std::string& text, E& value) {
  value = std::get<E (*)(std::string_view)>(kParsers)(text);
}

template <typename T> ordered_json encode(const T& value) {
  if constexpr (std::is_same_v<T, Arch>) {
    return std::string(archName(value));
  } else if constexpr (std::is_enum_v<T>) {
    return std::string(plan::toString(value));  // qualified: the planner's spelling ("full_shard", "fp32")
  } else {
    return value;
  }
}

[[noreturn]] void badValue(std::string_view origin, std::string_view key, const json& value) {
  throw ConfigError(detail::concat(origin, ": bad value for '", key, "': '",
                                   value.is_string() ? terminalSafe(value.get<std::string>()) : quotedJson(value),
                                   "'"));
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

/// Reads one value: JSON numbers and booleans, or their text (YAML's scalars arrive as strings).
template <typename T> void decode(const json& value, T& out, std::string_view key, std::string_view origin) {
  if constexpr (std::is_enum_v<T>) {
    if (value.is_string()) {
      assign(value.get<std::string>(), out);
    } else if (value.is_number_integer()) {
      assign(std::to_string(value.get<long long>()), out);  // torch's enum values (fsdp_sharding_strategy: 1)
    } else {
      badValue(origin, key, value);
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    if (value.is_boolean()) {
      out = value.get<bool>();
      return;
    }
    // YAML 1.1's spellings, as yaml-cpp reads them.
    const std::string text = value.is_string() ? lower(value.get<std::string>()) : std::string();
    if (text == "true" || text == "yes" || text == "on" || text == "y") {
      out = true;
    } else if (text == "false" || text == "no" || text == "off" || text == "n") {
      out = false;
    } else {
      badValue(origin, key, value);
    }
  } else {
    static_assert(std::is_integral_v<T>);
    if (value.is_number()) {
      // Exactly, or not at all: an unsigned number above 2^63 - 1 must not wrap, and a JSON writer may print a whole
      // number as a double (Qt's 8.0e+9).
      if (const std::optional<T> v = jsonInteger<T>(value)) {
        out = *v;
        return;
      }
    } else if (value.is_string()) {
      const std::string text = value.get<std::string>();
      T v{};
      const char* first = text.data() + (text.size() > 1 && text[0] == '+' ? 1 : 0);
      const char* last = text.data() + text.size();
      if (const auto [end, error] = std::from_chars(first, last, v); error == std::errc() && end == last) {
        out = v;
        return;
      }
    }
    badValue(origin, key, value);
  }
}

}  // namespace

ordered_json toJson(const Plan& plan, PlanFields fields) {
  ordered_json j = ordered_json::object();
  planFields(plan, [&](const char* key, const char*, const auto& value, bool (*applies)(const Plan&)) {
    if (fields == PlanFields::All || applies(plan)) {
      j[key] = encode(value);
    }
  });
  return j;
}

Plan planFromJson(const json& j, const Plan& base, std::string_view origin) {
  FATHOM_CHECK(j.is_object(), ConfigError, origin, ": a plan must be a map of keys, got '", quotedJson(j), "'");
  Plan p = base;
  planFields(p, [&](const char* key, const char* alias, auto& value, bool (*)(const Plan&)) {
    for (const char* k : {alias, key}) {  // the canonical key last: it wins
      if (*k != '\0') {
        if (const auto it = j.find(k); it != j.end() && !it->is_null()) {
          decode(*it, value, k, origin);
        }
      }
    }
  });
  return p;
}

std::vector<std::string_view> planKeys() {
  std::vector<std::string_view> keys;
  const Plan p;
  planFields(p, [&](const char* key, const char* alias, const auto&, bool (*)(const Plan&)) {
    keys.emplace_back(key);
    if (*alias != '\0') {
      keys.emplace_back(alias);
    }
  });
  return keys;
}

ordered_json toJson(const TransformerDims& dims) {
  ordered_json j = ordered_json::object();
  dimsFields(dims, [&](const char* key, const auto& value) { j[key] = encode(value); });
  return j;
}

TransformerDims dimsFromJson(const json& j, std::string_view origin) {
  FATHOM_CHECK(j.is_object(), ConfigError, origin, ": transformer dimensions must be a map of keys, got '",
               quotedJson(j), "'");
  TransformerDims d;
  bool tiedGiven = false;
  dimsFields(d, [&](const char* key, auto& value) {
    if (const auto it = j.find(key); it != j.end() && !it->is_null()) {
      decode(*it, value, key, origin);
      tiedGiven = tiedGiven || std::string_view(key) == "tied_embeddings";
    }
  });
  if (!tiedGiven) {
    d.tiedEmbeddings = d.arch != Arch::Llama;  // Llama-family checkpoints never tie their output layer
  }
  return d;
}

std::vector<std::string_view> dimsKeys() {
  std::vector<std::string_view> keys;
  const TransformerDims d;
  dimsFields(d, [&](const char* key, const auto&) { keys.emplace_back(key); });
  return keys;
}

ordered_json toJson(const HardwareSpec& h) {
  auto link = [](const LinkSpec& l) { return ordered_json{{"bandwidth", l.bandwidth}, {"latency", l.latency}}; };
  return {{"name", h.name},
          {"description", h.description},
          {"memory_bytes", h.memoryBytes},
          {"peak_flops",
           {{"fp32", h.peak.fp32},
            {"tf32", h.peak.tf32},
            {"fp16", h.peak.fp16},
            {"bf16", h.peak.bf16},
            {"fp8", h.peak.fp8},
            {"int8", h.peak.int8}}},
          {"memory_bandwidth", h.memoryBandwidth},
          {"gpus_per_node", h.gpusPerNode},
          {"intra_node", link(h.intraNode)},
          {"inter_node", link(h.interNode)},
          {"host_memory_bytes", h.hostMemoryBytes},
          {"host_to_device_bandwidth", h.hostToDeviceBandwidth},
          {"framework_overhead_bytes", h.frameworkOverheadBytes}};
}

HardwareSpec hardwareFromJson(const json& j, const std::string& origin) {
  // JSON is YAML: the hardware file reader is the one reader of these keys.
  return parseHardware(j.dump(-1, ' ', false, json::error_handler_t::replace), origin);
}

}  // namespace fathom::plan
