// SPDX-License-Identifier: Apache-2.0
// What calibrate() asks its workers to measure and what rank 0 hands back: JSON files in the calibration's temporary
// folder (task.json, progress.json, result.json). Private to core/calibrate.
#pragma once

#include <fathom/plan/hardware_calibration.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace fathom::calibrate::detail {

/// The resolved options, as every worker reads them.
struct CalibrationTask {
  std::string device = "cpu";  ///< "cpu" or "cuda"
  std::string mode = "default";
  int cpuCores = 1;
  std::vector<int> processes;                       ///< process counts of the matmul grid
  std::vector<int> threads;                         ///< thread counts of the matmul grid
  std::vector<std::string> dtypes;                  ///< "fp32", "bf16" (+ "fp16", "tf32" on CUDA)
  std::vector<std::array<std::int64_t, 3>> shapes;  ///< m, k, n
  std::vector<std::string> layouts;                 ///< "nn", "nt", "tn": each shape in each
  std::int64_t elementwiseElements = 1 << 20;       ///< tensor size of the element-wise costs
  std::int64_t optimizerParameters = 1 << 20;       ///< parameter size of the optimizer step rates
  double matmulSeconds = 0.25;
  std::int64_t memoryBytes = 64 << 20;
  int memoryRepeats = 3;
  std::vector<int> rankCounts;  ///< collective group sizes, each >= 2
  std::vector<std::int64_t> messageBytes;
  int repeats = 8;
  int passes = 3;  ///< rounds over the message sizes (measure.h, timeCollectives)
  double secondsPerSize = 0.2;
  std::int64_t timeoutMs = 600'000;

  /// Measurements in the order the workers make them: per (processes, threads) the matmul grid, the element-wise
  /// costs and the optimizer steps; memory; collectives.
  int totalSteps() const;
};

/// What rank 0 measured, before the fits.
struct RawResult {
  std::vector<plan::MatmulRate> matmul;
  std::vector<plan::ElementwiseRate> elementwise;
  std::vector<plan::OptimizerRate> optimizer;
  double memoryCopy = 0.0;
  double memoryAdd = 0.0;
  struct Series {
    plan::CollectiveKind kind = plan::CollectiveKind::AllReduce;
    int ranks = 2;
    std::string path;
    std::vector<plan::CollectivePoint> points;
  };
  std::vector<Series> collectives;
  std::int64_t residentBytes = 0;  ///< rank 0's resident memory after joining the group
  std::string deviceName;
};

nlohmann::json toJson(const CalibrationTask& task);
CalibrationTask taskFromJson(const nlohmann::json& j);
nlohmann::json toJson(const RawResult& result);
RawResult resultFromJson(const nlohmann::json& j);

/// The optimizers whose steps are measured.
inline constexpr std::array<const char*, 2> kOptimizers{"adamw", "sgd"};

/// A measured rate as JSON: the same keys in the workers' result file, `fathom calibrate --json` and (as YAML) the
/// profile. `Json` is nlohmann::json or nlohmann::ordered_json.
template <typename Json> Json rateJson(const plan::MatmulRate& m) {
  return {{"dtype", m.dtype},
          {"layout", plan::toString(m.layout)},
          {"processes", m.processes},
          {"threads", m.threads},
          {"m", m.m},
          {"k", m.k},
          {"n", m.n},
          {"flops", m.flops}};
}
template <typename Json> Json rateJson(const plan::ElementwiseRate& e) {
  return {{"processes", e.processes},
          {"threads", e.threads},
          {"seconds_per_element", e.secondsPerElement},
          {"seconds_per_call", e.secondsPerCall}};
}
template <typename Json> Json rateJson(const plan::OptimizerRate& o) {
  return {{"name", o.name},
          {"processes", o.processes},
          {"threads", o.threads},
          {"seconds_per_parameter", o.secondsPerParameter}};
}

/// Reads a JSON file (StorageError naming it when unreadable or not JSON).
nlohmann::json readJsonFile(const std::filesystem::path& path);
/// Writes a JSON file by rename from a temporary, so a reader never sees half of it.
void writeJsonFile(const std::filesystem::path& path, const nlohmann::json& j);

inline constexpr const char* kTaskFile = "task.json";
inline constexpr const char* kProgressFile = "progress.json";
inline constexpr const char* kResultFile = "result.json";

}  // namespace fathom::calibrate::detail
