// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/model_spec.h>
#include <fathom/plan/training_plan.h>

namespace fathom::plan {

/// Model FLOPs for `tokens` tokens of sequence length `seq`, forward and backward, no recomputation.
/// With dimensions: 6·tokens·(matmul weights per token) + 12·s·(a·d_head)·L_attn·tokens, which for a GPT layer is
/// Korthikanti et al. Eq. 7, 72·B·L·s·h²·(1 + s/(6h) + v/(12hL)). Without: 6·P·tokens (Kaplan et al. 2020).
double modelFlops(const ModelSpec& model, double tokens, double seq);

/// Forward FLOPs of the attention core (QKᵀ and AV) for `tokens` tokens of sequence length `seq`: 4·s·(a·d_head)
/// per token and self-attention block (a T5 decoder block has two); 0 without dimensions. Its backward is twice that.
double attentionCoreFlops(const ModelSpec& model, double tokens, double seq);

/// FLOPs executed including recomputation: selective adds the attention core again (Korthikanti Eq. 8, s/(3h));
/// full adds one forward of every layer (Narayanan et al. 2021: 96·B·s·L·h²·(1 + s/(6h) + v/(16Lh))).
double hardwareFlops(const ModelSpec& model, double tokens, double seq, Recompute recompute);

}  // namespace fathom::plan
