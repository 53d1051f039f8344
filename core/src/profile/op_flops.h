// SPDX-License-Identifier: Apache-2.0
// with_flops: floating-point operations of an ATen operator estimated from its input shapes: 2·M·K·N for the
// matrix products (mm, addmm, bmm, baddbmm; the bias add is not counted) and the broadcast output's elements for
// element-wise add/sub/mul/div. Convolutions need stride and padding, which shapes do not carry: not estimated.
// Private to core/profile.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace fathom::profile::detail {

using Shape = std::vector<std::int64_t>;

/// FLOPs of `op` (e.g. "aten::mm") on inputs of `shapes` (one per input; empty for non-tensors), or -1 when the
/// operator has no formula or the shapes do not fit it.
double estimateFlops(std::string_view op, const std::vector<Shape>& shapes);

}  // namespace fathom::profile::detail
