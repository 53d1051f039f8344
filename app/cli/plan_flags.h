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

namespace fathom::cli {

/// Raw flag values as CLI11 fills them; `apply` reads only the ones given on the command line, so a plan file
/// supplies the rest (flag > file > default).
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
  int numGpus = 1, gpusPerNode = 0, tp = 1, pp = 1, microBatch = 1, gradAccum = 1;
  std::int64_t seq = 0;
  std::string fsdpWrap;
  std::int64_t fsdpMinNumParams = 0, zeroBucketSize = 0;
  std::string strategy, fsdpSharding, precision, masterWeights, optimizer, recompute, bytesConvention, gradSync;
  bool offloadOptimizer = false, offloadParams = false, sequenceParallel = false, flashAttention = false;
  double efficiency = 0.5;
  bool json = false;
  bool explain = false;

  CLI::App* app = nullptr;  ///< the subcommand the flags were registered on

  /// Registers every flag on `cmd` (underscore and dashed spellings).
  void add(CLI::App* cmd);
  /// Model, hardware and plan from the plan file (if any) overridden by the flags given.
  struct Inputs {
    plan::ModelSpec model;
    plan::HardwareSpec hardware;
    plan::Plan plan;
  };
  Inputs resolve() const;

private:
  bool given(const char* name) const;
};

}  // namespace fathom::cli
