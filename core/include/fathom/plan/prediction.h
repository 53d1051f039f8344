// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/memory_category.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace fathom::plan {

/// How one predicted number was obtained, for `--explain`: formula, the inputs substituted, and the source key
/// (see docs/planner.md, "Sources").
struct Explanation {
  std::string key;      ///< the output it explains ("memory.parameters", "time.step_s", ...)
  double value = 0.0;   ///< the value it explains
  std::string formula;  ///< symbolic formula
  std::string inputs;   ///< the values substituted, "name=value" separated by ", "
  std::string source;   ///< source key: zero-3.1, korthikanti-t2, deepspeed-est, fsdp-3.2, derived, preset ...
};

/// Per-rank device memory by category, in bytes (the most loaded rank: first pipeline stage).
struct MemoryBreakdown {
  double parameters = 0.0;          ///< resident parameters (the rank's shard for sharded strategies)
  double gradients = 0.0;           ///< gradient buffers (low-precision and fp32 copies)
  double optimizerStates = 0.0;     ///< optimizer moments (Adam m and v, momentum, Adafactor factors)
  double masterWeights = 0.0;       ///< fp32 master copy in mixed precision
  double activations = 0.0;         ///< stored activations at the peak (first pipeline stage)
  double gatheredParameters = 0.0;  ///< FSDP/ZeRO-3 working set: gathered units in flight (prefetch) + unit grads
  double commBuffers = 0.0;         ///< DDP buckets, DeepSpeed reduce/all-gather buckets
  double frameworkOverhead = 0.0;   ///< CUDA context, library workspaces (hardware preset)
  double total = 0.0;               ///< sum of the above
};

/// MemoryBreakdown's fields by category, in the order reports and charts list them: the categories the planner
/// predicts. The JSON form, the Studio's charts and plan-vs-actual read the breakdown through this list, so a field is
/// named once, by its category's key.
inline constexpr std::array<MemoryCategoryField<MemoryBreakdown, double>, 8> kMemoryBreakdownFields{{
    {MemoryCategory::Parameters, &MemoryBreakdown::parameters},
    {MemoryCategory::Gradients, &MemoryBreakdown::gradients},
    {MemoryCategory::OptimizerStates, &MemoryBreakdown::optimizerStates},
    {MemoryCategory::MasterWeights, &MemoryBreakdown::masterWeights},
    {MemoryCategory::Activations, &MemoryBreakdown::activations},
    {MemoryCategory::GatheredParameters, &MemoryBreakdown::gatheredParameters},
    {MemoryCategory::CommBuffers, &MemoryBreakdown::commBuffers},
    {MemoryCategory::FrameworkOverhead, &MemoryBreakdown::frameworkOverhead},
}};

/// The bytes of `category` in `memory`; 0 for a category the planner does not predict (temporaries, inputs, other).
double bytesOf(const MemoryBreakdown& memory, MemoryCategory category);
/// The key predict() explains a memory category's number under ("memory.optimizer_states"; see `--explain`).
std::string explanationKey(MemoryCategory category);

/// The kind of a collective, named as the Comm layer records it.
enum class CollectiveKind { AllReduce, AllGather, ReduceScatter, Broadcast, SendRecv };
/// Whether a collective's group stays inside one node.
enum class Scope { IntraNode, InterNode };

/// One collective a rank takes part in during an optimizer step. `bytes` is the whole buffer the collective
/// operates on (all_reduce: the tensor; all_gather: the gathered output; reduce_scatter: the full input;
/// broadcast / send_recv: the tensor), summed over its `count` calls: exactly what the Comm layer adds up when
/// it records those calls, so predicted and measured compare one to one.
struct Collective {
  CollectiveKind kind = CollectiveKind::AllReduce;  ///< operation
  std::string purpose;                              ///< "gradients", "parameters (forward)", "tp activations", ...
  double bytes = 0.0;                               ///< whole-buffer bytes summed over the calls in one optimizer step
  std::int64_t count = 0;                           ///< calls per optimizer step
  int groupSize = 1;                                ///< ranks in the group
  Scope scope = Scope::IntraNode;                   ///< intra- or inter-node
  double bytesSentPerRank = 0.0;                    ///< bytes one rank sends for these calls (ring algorithms)
  double timeS = 0.0;         ///< alpha-beta time of all calls (best of ring and tree for all_reduce)
  bool overlapped = false;    ///< issued while compute runs (gradient reduction, prefetched gathers)
  bool perMicroStep = false;  ///< issued in every micro-step (else once per optimizer step)
};

/// Communication per optimizer step.
struct CommunicationPrediction {
  std::vector<Collective> collectives;  ///< one entry per (kind, purpose, group)
  double bytesPerRankPerStep = 0.0;     ///< Σ bytesSentPerRank
  double timeS = 0.0;                   ///< Σ collective times (before overlap)
};

/// FLOPs and time per optimizer step.
struct TimePrediction {
  double tokensPerStep = 0.0;         ///< global tokens per optimizer step
  double modelFlopsPerStep = 0.0;     ///< model FLOPs (no recomputation), whole job
  double hardwareFlopsPerStep = 0.0;  ///< FLOPs actually executed, recomputation included, whole job
  double peakFlopsPerGpu = 0.0;       ///< dense peak for the plan's precision
  double computeS = 0.0;              ///< compute time per step, pipeline bubble included
  double bubbleS = 0.0;               ///< of which pipeline bubble
  double commS = 0.0;                 ///< total communication time (before overlap)
  double exposedCommS = 0.0;          ///< communication not hidden behind compute
  double offloadS = 0.0;              ///< host<->device transfers for offloading (unvalidated model)
  /// On a calibrated profile, the busy compute by operator class (their sum is computeS − bubbleS); 0 on a preset.
  double matmulS = 0.0;       ///< the linear layers' products
  double attentionS = 0.0;    ///< the attention core's batched products
  double elementwiseS = 0.0;  ///< norms, activations, softmax, residual adds, the loss
  double optimizerS = 0.0;    ///< the optimizer step
  /// Per-step time outside compute and communication that a profiled run measured (the training loop between
  /// operators, data loading), from the profile's run fit; 0 without one.
  double overheadS = 0.0;
  double stepS = 0.0;       ///< computeS + exposedCommS + offloadS + overheadS
  double tokensPerS = 0.0;  ///< tokensPerStep / stepS
  double mfu = 0.0;         ///< model FLOPs utilisation: model FLOPs / (stepS · GPUs · peak)
  double hfu = 0.0;         ///< hardware FLOPs utilisation
};

/// Everything `plan::predict` returns.
struct Prediction {
  std::int64_t totalParams = 0;        ///< model parameters
  std::int64_t largestUnitParams = 0;  ///< largest FSDP unit / layer group
  int dataParallel = 1;                ///< numGpus / (tp·pp)
  int nodes = 1;                       ///< ceil(numGpus / gpusPerNode)
  std::int64_t seqLen = 0;             ///< sequence length used (see plan::sequenceLength)
  MemoryBreakdown memory;              ///< per-rank device bytes
  /// Per rank, what offloading keeps in host memory instead of on the device, by category (the device-side
  /// categories of `memory` no longer count them). All zero without offload.
  struct Offloaded {
    double parameters = 0.0;
    double gradients = 0.0;
    double optimizerStates = 0.0;
    double masterWeights = 0.0;
    double total() const { return parameters + gradients + optimizerStates + masterWeights; }
  } offloaded;                            // kOffloadedFields lists the fields by category
  double cpuBytesPerNode = 0.0;           ///< host RAM per node for offloaded states (0 without offload)
  double deviceMemoryBytes = 0.0;         ///< the device's memory
  bool fits = false;                      ///< memory.total <= deviceMemoryBytes (and host RAM suffices)
  double headroomBytes = 0.0;             ///< deviceMemoryBytes - memory.total (negative when it does not fit)
  CommunicationPrediction communication;  ///< collectives per step
  TimePrediction time;                    ///< FLOPs and time
  std::vector<std::string> notes;         ///< caveats that apply to this prediction (e.g. activations unknown)
  std::vector<Explanation> explanations;  ///< filled when PredictOptions::explain is set
};

/// Prediction::Offloaded's fields by category (the model states, as parallel::kStateCategoryFields).
inline constexpr std::array<MemoryCategoryField<Prediction::Offloaded, double>, 4> kOffloadedFields{{
    {MemoryCategory::Parameters, &Prediction::Offloaded::parameters},
    {MemoryCategory::Gradients, &Prediction::Offloaded::gradients},
    {MemoryCategory::OptimizerStates, &Prediction::Offloaded::optimizerStates},
    {MemoryCategory::MasterWeights, &Prediction::Offloaded::masterWeights},
}};

/// Stable names used in JSON and tables.
const char* toString(CollectiveKind kind);
const char* toString(Scope scope);

}  // namespace fathom::plan
