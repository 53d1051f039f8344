// SPDX-License-Identifier: Apache-2.0
// Internal: the quantities every part of a prediction shares, computed once per predict() call.
#pragma once

#include "exact_layout.h"

#include <fathom/plan/memory.h>
#include <fathom/plan/predict.h>

#include <fathom/common/error.h>

#include <string>
#include <vector>

namespace fathom::plan::detail {

struct Context {
  const ModelSpec& model;
  const HardwareSpec& hw;
  const Plan& plan;
  const PredictOptions& opt;
  std::vector<Explanation>* ex = nullptr;  ///< non-null when explaining

  int dp = 1;                 ///< data-parallel degree
  int gpusPerNode = 1;        ///< ranks per node
  int nodes = 1;              ///< nodes in the job
  int shardGroup = 1;         ///< ranks a sharded state is split across (dp, or the node's dp ranks for hybrid)
  int replicas = 1;           ///< dp / shardGroup (the hybrid strategies: inter-node replicas)
  int microSteps = 1;         ///< gradient accumulation steps
  double seq = 0;             ///< sequence length
  double layersPerStage = 0;  ///< ceil(L / pp) (T5: all layers)
  double stageParams = 0;     ///< parameters on this rank's tensor/pipeline shard, before data-parallel sharding
  double rootParams = 0;      ///< parameters outside the blocks on this stage (FSDP root unit)
  double units = 1;           ///< FSDP units / ZeRO-3 gather groups on this stage: blocks + root
  double unitParams = 0;      ///< largest unit on this rank (largestUnitParams / tp)
  StateBytes bytes;           ///< per-parameter model-state bytes before sharding
  double gatherBytes = 2;     ///< bytes per gathered parameter element (compute dtype of the weights)
  double reduceBytes = 2;     ///< bytes per reduced gradient element
  double actBytes = 2;        ///< bytes per stored activation element
  bool gradsReducedEachMicroStep = false;  ///< resolved GradSync
  bool pytorchDdp = false;  ///< DDP with autocast/fp32/pure-low params: PyTorch's reducer with bucket copies
  ExactLayout layout;       ///< FSDP / ZeRO units and buckets when the parameter tensors are known

  /// Whether the strategy shards each category (FSDP: everything but NO_SHARD).
  bool shardsOptimizer() const;
  bool shardsGradients() const;
  bool shardsParams() const;
  bool isFsdp(FsdpSharding s) const { return plan.strategy == Strategy::Fsdp && plan.fsdpSharding == s; }
  /// FSDP HYBRID_SHARD or HYBRID_SHARD_ZERO2: sharded within shardGroup, replicated across `replicas`.
  bool isHybridFsdp() const { return plan.strategy == Strategy::Fsdp && isHybrid(plan.fsdpSharding); }
  /// FSDP SHARD_GRAD_OP or HYBRID_SHARD_ZERO2: every unit stays gathered from its forward to its reduction.
  bool keepsUnitsGathered() const {
    return plan.strategy == Strategy::Fsdp && plan.fsdpSharding != FsdpSharding::NoShard &&
           !reshardsAfterForward(plan.fsdpSharding);
  }

  /// Records an explanation; the strings are only built when explaining.
  template <typename... Inputs>
  void explain(const char* key, double value, const char* formula, const char* source, Inputs&&... inputs) const {
    if (ex != nullptr) {
      ex->push_back({key, value, formula, ::fathom::detail::concat(std::forward<Inputs>(inputs)...), source});
    }
  }
};

/// Builds the shared quantities (plan and model already validated).
Context makeContext(const ModelSpec& model, const HardwareSpec& hw, const Plan& plan, const PredictOptions& opt,
                    std::vector<Explanation>* ex);

/// Fills prediction.memory, cpuBytesPerNode, fits, headroom.
void predictMemory(const Context& ctx, Prediction& out);
/// Fills prediction.communication.
void predictCommunication(const Context& ctx, Prediction& out);
/// Fills prediction.time (needs communication).
void predictTime(const Context& ctx, Prediction& out);

}  // namespace fathom::plan::detail
