// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "train_loop.h"

#include <fathom/common/output_location.h>

#include <vector>

namespace fathom::cli {

/// Every place `fathom train` with `options` will write, for this process: --save_final and --stats_json (the main
/// process writes them), the trace folder of --profile (every rank writes its own trace), the checkpoints folder of
/// --checkpointing_steps (<project_dir>/checkpoints; every rank writes its own files), the workspace when the
/// program runs without `fathom launch` (under it, the launcher writes), and the trackers' project and logging folders
/// (main process, with --log_with).
std::vector<OutputLocation> trainOutputLocations(const TrainOptions& options);

/// checkOutputLocations(trainOutputLocations(options)): a StorageError naming the path and why, before training
/// starts, so a read-only or missing folder does not cost the trained weights.
void checkTrainOutputs(const TrainOptions& options);

}  // namespace fathom::cli
