// SPDX-License-Identifier: Apache-2.0
// Internal: the compute time of one rank's optimizer step from what `fathom calibrate` measured on the machine
// (issue 24): matmuls at the achieved rate of each operand layout, the attention core, element-wise work and the
// optimizer step, each at the rate measured for the plan's processes per node and threads per process.
#pragma once

#include "calibrated_rates.h"
#include "context.h"

namespace fathom::plan::detail {

/// One rank's compute per optimizer step on a calibrated machine, by operator class (seconds).
struct CalibratedCompute {
  double matmulS = 0.0;       ///< the linear layers' products: forward (nt), input and weight gradients (nn, tn)
  double attentionS = 0.0;    ///< the attention core's batched products (QKᵀ, AV and their gradients)
  double elementwiseS = 0.0;  ///< norms, activations, softmax, residual adds, the loss
  double optimizerS = 0.0;    ///< the optimizer step over the rank's parameters (its shard when sharded)
  double total() const { return matmulS + attentionS + elementwiseS + optimizerS; }
};

/// The calibrated compute of one rank (ctx.hw.calibration must be set), explained under `compute.calibrated.*`.
CalibratedCompute calibratedCompute(const Context& ctx);

/// Whether a rank's collectives can overlap its compute: on a GPU always (they run on their own stream); on a CPU
/// only when the node has a core to spare beyond processes x threads (Gloo's threads reduce and copy on the same
/// cores the compute uses, so on a full node they take turns).
bool communicationCanOverlap(const Context& ctx);

}  // namespace fathom::plan::detail
