// SPDX-License-Identifier: Apache-2.0
// The one JSON form of the planner's inputs: plan::Plan, plan::TransformerDims and plan::HardwareSpec. `fathom plan
// --json`, plan files (their flat keys, spelled like `fathom plan`'s flags), the Studio's saved requests and the
// `fathom.planner` section all read and write through these functions; each field's key is written once, in
// plan_json.cpp's field lists.
#pragma once

#include <fathom/plan/hardware.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/training_plan.h>

#include <nlohmann/json_fwd.hpp>

#include <string_view>
#include <vector>

namespace fathom::plan {

/// Which of a plan's fields a JSON object carries.
enum class PlanFields {
  All,         ///< every field: planFromJson gives the same Plan back (the Studio's saved requests)
  Applicable,  ///< the fields that apply to the plan's strategy, as `fathom plan --json` prints them (the FSDP keys
               ///< only for FSDP and ZeRO-3, zero_bucket_size only for ZeRO-1/2) and without `seq`, which a
               ///< prediction reports as resolved (prediction_json.h)
};

/// The plan as JSON: {"strategy": "fsdp", "fsdp_sharding_strategy": "full_shard", "num_gpus": 8, ...}, enums by
/// their canonical names (training_plan.h's toString), in a fixed key order.
nlohmann::ordered_json toJson(const Plan& plan, PlanFields fields = PlanFields::All);

/// The plan `json` describes over `base`: every plan key present replaces base's value (an alias too:
/// num_processes for num_gpus, mixed_precision for precision; the canonical key wins when both are there); other
/// keys are ignored. Numbers and booleans may be JSON values or text ("4", "true": YAML scalars); enums by the names
/// the parsers of training_plan.h accept. ConfigError "<origin>: bad value for '<key>': ..." for a wrong type, the
/// parser's message for an unknown name.
Plan planFromJson(const nlohmann::json& json, const Plan& base = {}, std::string_view origin = "plan");

/// Every key planFromJson reads (aliases included), in toJson's order.
std::vector<std::string_view> planKeys();

/// Transformer dimensions as JSON: {"arch": "llama", "layers": 32, "hidden": 4096, ...} (every field; `fathom plan`'s
/// flag names).
nlohmann::ordered_json toJson(const TransformerDims& dims);
/// The dimensions `json` describes; absent keys keep TransformerDims' defaults, except tied_embeddings, which
/// defaults to false for llama (its families never tie) and true otherwise. Errors as planFromJson's.
TransformerDims dimsFromJson(const nlohmann::json& json, std::string_view origin = "dims");
/// Every key dimsFromJson reads, "arch" first.
std::vector<std::string_view> dimsKeys();

/// A device as a hardware file holds it (resources/hardware/*.yaml): name, description, memory_bytes, peak_flops {fp32,
/// tf32, fp16, bf16, fp8, int8}, memory_bandwidth, gpus_per_node, intra_node and inter_node {bandwidth, latency},
/// host_memory_bytes, host_to_device_bandwidth, framework_overhead_bytes. parseHardware() reads it back.
nlohmann::ordered_json toJson(const HardwareSpec& hardware);
/// parseHardware() of `json` (validated; ConfigError naming `origin` and the bad key).
HardwareSpec hardwareFromJson(const nlohmann::json& json, const std::string& origin);

}  // namespace fathom::plan
