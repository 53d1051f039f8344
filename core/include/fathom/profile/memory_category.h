// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace fathom::profile {

/// What a block of memory holds. The first four are the model states the planner predicts per rank; the rest are
/// what a step allocates on the way (torch.profiler's _memory_profiler.Category has the same idea).
enum class MemoryCategory : std::uint8_t {
  Parameter,       ///< parameters (FSDP/ZeRO flat shards and gathered units included)
  Gradient,        ///< gradients kept for the optimizer (DDP buckets, flat gradient shards)
  OptimizerState,  ///< optimizer state tensors (Adam's exp_avg/exp_avg_sq, momentum)
  MasterWeights,   ///< a separate fp32 copy of the parameters (ZeRO with offload or fp16)
  Activation,      ///< allocated in forward and still alive when forward ended: what backward consumes
  Temporary,       ///< allocated and freed within one phase (workspace of an op, autograd's intermediates)
  Input,           ///< allocated while the data loader produced a batch
  Other,           ///< allocated outside any phase Fathom knows
};
inline constexpr std::size_t kMemoryCategoryCount = 8;

/// "parameter", "gradient", "optimizer_state", "master_weights", "activation", "temporary", "input", "other".
std::string_view toString(MemoryCategory category);
/// The inverse of toString; std::nullopt for anything else.
std::optional<MemoryCategory> memoryCategoryFromString(std::string_view text);

/// Bytes per category (indexed by MemoryCategory).
struct CategoryBytes {
  std::array<std::int64_t, kMemoryCategoryCount> bytes{};
  std::int64_t& operator[](MemoryCategory c) { return bytes[static_cast<std::size_t>(c)]; }
  std::int64_t operator[](MemoryCategory c) const { return bytes[static_cast<std::size_t>(c)]; }
  std::int64_t total() const;
  bool operator==(const CategoryBytes&) const = default;
};

}  // namespace fathom::profile
