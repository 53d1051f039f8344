// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/hardware.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/prediction.h>
#include <fathom/plan/training_plan.h>

namespace fathom::plan {

/// Knobs of the model that are not part of a plan: framework defaults and efficiency assumptions.
struct PredictOptions {
  bool explain = false;                          ///< fill Prediction::explanations (slower: builds strings)
  double computeEfficiency = 0.5;                ///< achieved fraction of dense peak (Megatron 41-56% MFU, FSDP 55-60%)
  int prefetchUnits = 2;                         ///< gathered FSDP/ZeRO-3 units in flight (FSDP rate limiter: 2)
  double ddpBucketBytes = 25.0 * (1 << 20);      ///< PyTorch DDP bucket_cap_mb = 25
  double ddpFirstBucketBytes = 1.0 * (1 << 20);  ///< PyTorch DDP's first bucket (1 MiB)
  bool ddpGradientAsBucketView = false;          ///< PyTorch DDP default: buckets hold a copy of every gradient
  bool overlapGradReduce = true;                 ///< gradient reduction and prefetched gathers overlap compute
  bool activationExtras = true;                  ///< Korthikanti §4.3 embedding/output terms
  /// Cross entropy of the logits (p = 1 extras). false: PyTorch's unfused cross_entropy, as `fathom train` and
  /// Hugging Face run it: the logits the loop holds (e·sbv/t) + log_softmax's fp32 output (4sbv/t). true:
  /// Megatron's fused vocab-parallel kernel, Korthikanti §4.3's 4sbv/t.
  bool fusedCrossEntropy = false;
};

/// Validates the inputs together (ConfigError naming the bad value): degrees divide the GPU count, the strategy
/// supports the requested offload, tp divides heads, pp <= layers, the device has a peak for the precision, ...
void validatePlan(const ModelSpec& model, const HardwareSpec& hw, const Plan& plan);

/// The sequence length a prediction uses: plan.seqLen, or 2048 capped at the model's learned position table
/// (gpt, bert) when the plan leaves it at 0.
std::int64_t sequenceLength(const ModelSpec& model, const Plan& plan);

/// The processes per node and threads per process `plan`'s ranks run with on `hw`: min(world size, ranks per node
/// (the plan's, else the hardware's)) processes; the plan's thread count, else the launcher's rule (1 when several
/// processes share the node, else the calibrated machine's cores; 1 on a GPU). What the calibrated time model looks
/// its rates up at, and what a run fit records of the run it was fitted to.
RankSetting rankSetting(const HardwareSpec& hw, const Plan& plan);

/// Predicts per-rank memory, communication per optimizer step and step time. Pure; validates first.
/// Cost: a few hundred floating-point operations when options.explain is false.
Prediction predict(const ModelSpec& model, const HardwareSpec& hw, const Plan& plan,
                   const PredictOptions& options = {});

}  // namespace fathom::plan
