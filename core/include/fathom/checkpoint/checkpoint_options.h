// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>

namespace fathom::checkpoint {

/// The checkpoint part of Accelerate's ProjectConfiguration (its project_dir is AcceleratorOptions::projectDir).
struct CheckpointOptions {
  /// saveState() without a folder writes `<projectDir>/checkpoints/checkpoint_<iteration>`, and loadState() without
  /// a folder loads the highest-numbered one there. Off: both need a folder.
  bool automaticCheckpointNaming = false;
  /// Keep at most this many `checkpoint_<n>` folders (automatic naming only): after a new checkpoint is
  /// published, the oldest ones beyond the limit are deleted. std::nullopt: keep all.
  std::optional<int> totalLimit;
  /// The number the next automatic checkpoint gets; every saveState() adds one.
  int iteration = 0;
};

}  // namespace fathom::checkpoint
