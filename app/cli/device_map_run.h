// SPDX-License-Identifier: Apache-2.0
// `fathom device-map --model NAME --run`: a built-in model dispatched per a device map (bigmodel::DispatchedModel),
// one forward pass compared with the undispatched model's, and what it cost in host and GPU memory.
#pragma once

#include <fathom/bigmodel/device_map.h>
#include <fathom/models/builtin_model.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace fathom::cli {

struct DispatchRunOptions {
  models::ModelRequest model;
  std::uint64_t seed = 0;               ///< the weights' (torch::manual_seed) and, plus one, the input's
  std::int64_t batchSize = 1;           ///< sequences (gpt) or rows (mlp) of the one forward pass
  std::int64_t sequenceLength = 0;      ///< gpt tokens per sequence; 0: the model's block size
  std::filesystem::path offloadFolder;  ///< empty: a fresh temporary folder, removed afterwards
  /// The limits the map was planned with (--max_memory), recorded with the run; empty when the map was given.
  bigmodel::MaxMemory maxMemory;
  /// The classes the map kept whole (--no_split), recorded with the run; empty: the model's unit classes.
  std::vector<std::string> noSplitClasses;
};

/// Builds the model (on the CPU, weights from `seed`), runs a warm-up forward and the reference forward, dispatches it
/// per `map` (the model's unitClasses() as units), runs the same forward and reports, as JSON:
///   {"model", "main_device", "placed_bytes": {device: bytes}, "units": [{"module", "device", "streamed_bytes"}],
///    "max_abs_difference", "identical", "reference": {"seconds", "peak_rss_bytes"},
///    "dispatched": {"seconds", "peak_rss_bytes", "cuda": [cudaMemoryPeaks per GPU of the map]},
///    "rss_saved_bytes", "rss_saved_fraction_of_disk" (null without disk), "recorded_in_run" (run id or null)}
/// Under `fathom launch` (FATHOM_TELEMETRY_ENDPOINT set) the dispatch is recorded with the run (its tree, map and
/// limits: telemetry::SqliteTracker::deviceMap), so the Studio's run page opens it in the device-map view.
/// Peak RSS is the kernel's high-water mark over each forward alone (telemetry::resetPeakResident before it; null
/// where the kernel refuses the reset). ConfigError as DispatchedModel throws it.
nlohmann::ordered_json runDispatch(const DispatchRunOptions& options, const bigmodel::DeviceMap& map);

/// The text form of runDispatch's answer.
void printDispatchRun(std::ostream& out, const nlohmann::ordered_json& report);

}  // namespace fathom::cli
