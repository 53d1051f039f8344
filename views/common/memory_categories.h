// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/prediction.h>

#include <QColor>
#include <QString>

#include <array>

namespace fathom::views {

/// The per-rank memory categories of plan::MemoryBreakdown, in the order charts stack them.
enum class MemoryCategory {
  Parameters,
  Gradients,
  OptimizerStates,
  MasterWeights,
  Activations,
  GatheredParameters,
  CommBuffers,
  FrameworkOverhead,
};
inline constexpr int kMemoryCategoryCount = 8;

/// Every category, in stacking order.
std::array<MemoryCategory, kMemoryCategoryCount> memoryCategories();
/// The category's bytes in a breakdown.
double bytesOf(const plan::MemoryBreakdown& memory, MemoryCategory category);
/// Translated name ("Optimizer states").
QString categoryName(MemoryCategory category);
/// The key of its `--explain` block ("memory.optimizer_states").
const char* explanationKey(MemoryCategory category);
/// A colour per category, distinguishable for the common colour-vision deficiencies (Okabe–Ito palette).
QColor categoryColor(MemoryCategory category);

}  // namespace fathom::views
