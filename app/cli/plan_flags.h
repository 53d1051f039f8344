// SPDX-License-Identifier: Apache-2.0
// The flags `fathom plan` and `fathom plan search` share, and how they turn into planner inputs.
#pragma once

#include "model_flags.h"

#include <CLI/CLI.hpp>

#include <fathom/plan/hardware.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/training_plan.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::cli {

/// Raw flag values as CLI11 fills them; resolve() reads only the ones given on the command line.
///
/// With a configuration (--config_file F, else the default file as `fathom launch` picks it) the flags that are
/// configuration keys (--num_processes, --num_machines, --mixed_precision, --gradient_accumulation_steps and the
/// fathom.planner ones: --micro_batch, --seq, --gpus_per_node, --optimizer, ...) go through config::resolveConfig()
/// with `fathom launch`'s precedence, flag > environment > file > default, and plan::planFromRunSpec() makes the plan.
/// The sharding flags (--strategy, --fsdp_*, --offload_*_device, --zero_reduce_bucket_size), --tp, --pp and
/// --sequence_parallel then adjust it, as `fathom train`'s flags adjust what the launcher chose. A flat Fathom plan
/// file (--plan F without distributed_type) is read as before: file, then every flag given.
struct PlanFlags {
  std::string planFile;
  double params = 0;  ///< parameter count; "7.5e9" accepted
  std::string arch;
  std::int64_t layers = 0, decoderLayers = 0, hidden = 0, heads = 0, kvHeads = 0, headDim = 0, ffnHidden = 0, vocab = 0,
               maxPositions = 0, numExperts = 0, expertsPerToken = 0;
  bool tiedEmbeddings = true;
  std::string hfConfig;
  std::string model;
  BuiltinModelFlags modelFlags;  ///< --n_layer ... for --model gpt*; --hidden/--layers double as mlp's
  std::string hardware;
  std::string workspace;      ///< --workspace: where hardware fits are read (and stored by --calibrate_from)
  std::string calibrateFrom;  ///< --calibrate_from RUN (`fathom plan` only)
  int numProcesses = 1, numMachines = 1, gpusPerNode = 0, tp = 1, pp = 1, microBatch = 1, gradAccum = 1,
      cpuThreadsPerProcess = 0;
  std::int64_t seq = 0;
  std::string fsdpWrap;
  std::int64_t fsdpMinNumParams = 0, zeroBucketSize = 0;
  std::string strategy, fsdpSharding, mixedPrecision, masterWeights, optimizer, recompute, bytesConvention, gradSync;
  std::string fsdpOffloadParams, offloadOptimizerDevice, offloadParamDevice;
  bool offloadOptimizer = false, offloadParams = false, sequenceParallel = false, flashAttention = false;
  double efficiency = 0.5;
  bool json = false;
  bool explain = false;

  CLI::App* app = nullptr;  ///< the subcommand the flags were registered on

  /// Registers every flag on `cmd` (underscore and dashed spellings, and the deprecated spellings, hidden).
  void add(CLI::App* cmd);
  /// Model, hardware and plan from the configuration or plan file and the flags given (see the struct comment).
  struct Inputs {
    plan::ModelSpec model;
    plan::HardwareSpec hardware;
    plan::Plan plan;
  };
  /// `notes` receives what the user should know: deprecated spellings used, and the configuration's notes when a
  /// file was read.
  Inputs resolve(std::vector<std::string>* notes = nullptr) const;

private:
  bool given(const char* name) const;
};

/// Prints `notes` to stderr as "fathom plan: note: ...".
void printPlanNotes(const std::vector<std::string>& notes);

}  // namespace fathom::cli
