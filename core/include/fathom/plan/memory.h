// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/training_plan.h>

namespace fathom::plan {

/// One transformer layer's shape for activation memory (Korthikanti et al. 2022, §4). Defaults reproduce the
/// paper's GPT layer: MHA, ffn = 4h, dropout, 16-bit activations, 1-byte dropout masks.
struct LayerShape {
  double seq = 0;                 ///< s
  double microBatch = 1;          ///< b
  double hidden = 0;              ///< h
  double heads = 0;               ///< a
  double kvHeads = 0;             ///< 0 = heads
  double headDim = 0;             ///< 0 = hidden / heads
  double ffn = 0;                 ///< 0 = 4h
  bool gatedMlp = false;          ///< SwiGLU/gated-GeLU: four ffn-wide tensors saved instead of two
  bool dropout = true;            ///< dropout masks (1 byte per element) and the softmax-dropout output are stored
  bool crossAttention = false;    ///< T5 decoder: a second attention block
  double expertsPerToken = 1;     ///< MoE top-k: the MLP part is stored once per routed expert
  double activationBytes = 2;     ///< bytes per stored activation element (4 in fp32)
  int tp = 1;                     ///< tensor-parallel degree t
  bool sequenceParallel = false;  ///< the replicated 10·sbh part is split across t as well
  Recompute recompute = Recompute::None;  ///< selective drops the attention-core terms; full keeps 2sbh
  bool flashAttention = false;            ///< fused attention never stores the a·s² terms
};

/// Bytes of activations one layer stores for backward. With the defaults this is Table 2 of Korthikanti et al.:
/// sbh(10 + 24/t + 5as/(ht)); with sequence parallelism sbh(34/t + 5as/(ht)); selective drops the 5as/(ht) term;
/// full recomputation stores the layer input only, 2sbh.
double activationBytesPerLayer(const LayerShape& shape);

/// Per-parameter bytes of each model-state category before any sharding, for a plan's precision, master-weight
/// mode, optimizer and bytes convention. `optimizer` bytes for Adafactor are per-parameter estimates supplied by
/// the caller through `adafactorBytesPerParam`.
struct StateBytes {
  double param = 0;     ///< stored parameter
  double gradLow = 0;   ///< gradient buffer the backward writes (bf16/fp16, or fp32 main grads)
  double gradCopy = 0;  ///< extra fp32 gradient copy sharded with the optimizer (fp16 Megatron, DeepSpeed)
  double master = 0;    ///< fp32 master weights
  double optim = 0;     ///< optimizer moments
  /// Sum of all categories.
  double total() const { return param + gradLow + gradCopy + master + optim; }
};

/// Model-state bytes per parameter (see docs/planner.md, "Bytes conventions").
StateBytes stateBytesPerParam(const Plan& plan, double adafactorBytesPerParam = 0.0);

}  // namespace fathom::plan
