// SPDX-License-Identifier: Apache-2.0
// The one memory-category vocabulary of Fathom. It sits in `common`, below every area that speaks about memory: the
// planner predicts bytes per category (plan::MemoryBreakdown), the engines account the model states they hold
// (parallel::StateCategoryBytes), the profiler classifies allocations (profile::MemoryTimeline), the workspace
// stores samples under metric keys made from the names below (memory_metric_keys.h), trace files name their memory
// counters with them and the Studio charts them. Plan and actual therefore join on the category, never translate.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace fathom {

/// What a block of memory holds.
enum class MemoryCategory : std::uint8_t {
  Parameters,          ///< parameters (the rank's flat shards for sharded strategies)
  Gradients,           ///< gradients kept for the optimizer (DDP buckets, flat gradient shards, fp32 copies)
  OptimizerStates,     ///< optimizer state tensors (Adam's exp_avg/exp_avg_sq, momentum, Adafactor factors)
  MasterWeights,       ///< a separate fp32 copy of the parameters
  Activations,         ///< allocated in forward and alive at its end: what backward consumes
  GatheredParameters,  ///< FSDP / ZeRO-3 units gathered (unsharded) for compute, and their unit gradients
  CommBuffers,         ///< communication buckets (DDP, DeepSpeed reduce / all-gather buckets)
  FrameworkOverhead,   ///< CUDA context, library workspaces, allocator slack
  Temporaries,         ///< allocated and freed within one phase (an op's workspace, autograd's intermediates)
  Inputs,              ///< allocated while the data loader produced a batch
  Other,               ///< allocated outside any phase Fathom knows
};
inline constexpr std::size_t kMemoryCategoryCount = 11;

/// One row of the name table.
struct MemoryCategoryName {
  MemoryCategory category;
  /// The canonical key: `fathom plan --json`'s memory objects, the metric keys, trace counters, --stats_json.
  std::string_view key;
  /// The profiler's singular spelling before the vocabulary was one ("parameter"), still read as this category
  /// (trace files and workspaces written by earlier releases); empty when there was none or it was the same.
  std::string_view legacyKey;
};

/// The name table: every category once, in enumerator order.
inline constexpr std::array<MemoryCategoryName, kMemoryCategoryCount> kMemoryCategoryNames{{
    {MemoryCategory::Parameters, "parameters", "parameter"},
    {MemoryCategory::Gradients, "gradients", "gradient"},
    {MemoryCategory::OptimizerStates, "optimizer_states", "optimizer_state"},
    {MemoryCategory::MasterWeights, "master_weights", ""},
    {MemoryCategory::Activations, "activations", "activation"},
    {MemoryCategory::GatheredParameters, "gathered_parameters", ""},
    {MemoryCategory::CommBuffers, "comm_buffers", ""},
    {MemoryCategory::FrameworkOverhead, "framework_overhead", ""},
    {MemoryCategory::Temporaries, "temporaries", "temporary"},
    {MemoryCategory::Inputs, "inputs", "input"},
    {MemoryCategory::Other, "other", ""},
}};

/// The categories the profiler's memory timeline sorts allocations into, in the order its trace counters list them
/// (here, not in `profile`, because trace files' readers depend on `common` only). What the planner predicts and
/// what the engines account are listed with their structs: plan::kMemoryBreakdownFields,
/// parallel::kStateCategoryFields.
inline constexpr std::array<MemoryCategory, 8> kProfiledMemoryCategories{
    MemoryCategory::Parameters,    MemoryCategory::Gradients,   MemoryCategory::OptimizerStates,
    MemoryCategory::MasterWeights, MemoryCategory::Activations, MemoryCategory::Temporaries,
    MemoryCategory::Inputs,        MemoryCategory::Other};

/// The canonical key ("optimizer_states").
std::string_view toString(MemoryCategory category);
/// The category spelled `text`: its key or its legacy key; std::nullopt for anything else.
std::optional<MemoryCategory> memoryCategoryFromString(std::string_view text);

/// A field of a struct that holds bytes by category under named members (plan::MemoryBreakdown,
/// parallel::StateCategoryBytes): the list of these next to the struct is the one place that ties its fields to the
/// vocabulary, so writers and readers iterate it instead of naming the fields again.
template <typename Struct, typename Value> struct MemoryCategoryField {
  MemoryCategory category;
  Value Struct::*member;
};

/// The value of `category` in `value` through its field list; std::nullopt when the struct has no such field.
template <typename Struct, typename Value, std::size_t N>
std::optional<Value> categoryValue(const Struct& value, const std::array<MemoryCategoryField<Struct, Value>, N>& fields,
                                   MemoryCategory category) {
  for (const auto& f : fields) {
    if (f.category == category) {
      return value.*f.member;
    }
  }
  return std::nullopt;
}

/// Bytes per category, indexed by MemoryCategory (the profiler's memory timeline).
struct CategoryBytes {
  std::array<std::int64_t, kMemoryCategoryCount> bytes{};
  std::int64_t& operator[](MemoryCategory c) { return bytes[static_cast<std::size_t>(c)]; }
  std::int64_t operator[](MemoryCategory c) const { return bytes[static_cast<std::size_t>(c)]; }
  /// The sum over every category.
  std::int64_t total() const;
  bool operator==(const CategoryBytes&) const = default;
};

}  // namespace fathom
