// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <vector>

namespace fathom::plan {

// How sharded strategies lay parameters out in flat buffers. The engines in core/parallel allocate and
// communicate exactly these sizes, and the planner predicts from them, so predicted and measured bytes agree
// to the byte (docs/sharding.md, "Layout").

/// Elements of a flat parameter of `elements` elements padded with zeros so it splits evenly across `ranks`:
/// ceil(elements / ranks) · ranks (torch FSDP's FlatParameter padding). `ranks` >= 1.
std::int64_t paddedElements(std::int64_t elements, int ranks);

/// One rank's shard of such a flat parameter: paddedElements(elements, ranks) / ranks.
std::int64_t shardElements(std::int64_t elements, int ranks);

/// ZeRO stage 1-2 buckets: the parameter tensors (element counts in registration order) are walked in reverse
/// registration order, the order their gradients become ready, and a bucket is closed once it holds at least
/// `bucketElements` elements, so a tensor is never split and the last bucket may be smaller (DDP's rule, in
/// elements). Returns each bucket's element count before padding, in reduction order. `bucketElements` >= 1.
std::vector<std::int64_t> zeroBuckets(const std::vector<std::int64_t>& tensorElements, std::int64_t bucketElements);

}  // namespace fathom::plan
