// SPDX-License-Identifier: Apache-2.0
// The one JSON form of a prediction: the object `fathom plan --json` prints (the contract docs/planner.md describes),
// which the Studio also saves in a workspace (store::Workspace::savePlan) and reads back. One field list in
// prediction_json.cpp both writes and reads it, so the two cannot disagree.
#pragma once

#include <fathom/plan/hardware.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/prediction.h>
#include <fathom/plan/search.h>
#include <fathom/plan/training_plan.h>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::plan {

/// Everything `fathom plan --json` prints for one plan: what the model and the device were, the plan and its
/// prediction.
struct PredictionReport {
  std::string modelName;                 ///< model.name
  Arch modelArch = Arch::Params;         ///< model.arch
  std::string hardwareName;              ///< hardware.name
  DeviceKind hardwareDevice = DeviceKind::Gpu;  ///< hardware.device: gpu or cpu
  std::int64_t hardwareMemoryBytes = 0;  ///< hardware.memory_bytes
  std::string hardwareSource;            ///< hardware.source: the file the device was read from
  Plan plan;                             ///< plan (read back: seqLen is the resolved length)
  Prediction prediction;                 ///< everything else
};

/// The report of `prediction`, made for `model` on `hardware` with `plan`.
PredictionReport predictionReport(const ModelSpec& model, const HardwareSpec& hardware, const Plan& plan,
                                  const Prediction& prediction);

/// The `fathom plan --json` object: model {name, arch, total_params, largest_unit_params}, hardware {name,
/// device, memory_bytes, source}, plan {the fields that apply (plan_json.h), data_parallel, nodes, seq}, memory
/// {per_rank_bytes {one key per planned memory category (common/memory_category.h), total},
/// offloaded_per_rank_bytes {the model-state categories, total}, cpu_bytes_per_node, device_bytes, fits,
/// headroom_bytes}, communication {collectives [...], bytes_per_rank_per_step, time_s}, compute {...}, time {...},
/// notes, and explanations when there are any. Byte counts are whole numbers.
nlohmann::ordered_json toJson(const PredictionReport& report);
/// Reads what toJson wrote (absent keys keep their defaults; derived totals are not read). ConfigError
/// "<origin>.<path>: ..." for a value of the wrong type or an unknown name.
PredictionReport predictionReportFromJson(const nlohmann::json& json, std::string_view origin = "prediction");

/// What `fathom plan search --json` prints.
struct SearchReport {
  std::int64_t evaluated = 0;             ///< candidates predicted
  std::int64_t fitting = 0;               ///< of which fit in memory
  std::vector<PredictionReport> results;  ///< the kept plans, best first
};

/// The report of a search for `model` on `hardware`.
SearchReport searchReport(const ModelSpec& model, const HardwareSpec& hardware, const SearchOutcome& outcome);
/// {evaluated, fitting, results: [toJson(PredictionReport)...]}.
nlohmann::ordered_json toJson(const SearchReport& report);
/// Reads what toJson wrote. Errors as predictionReportFromJson's.
SearchReport searchReportFromJson(const nlohmann::json& json, std::string_view origin = "search");

}  // namespace fathom::plan
