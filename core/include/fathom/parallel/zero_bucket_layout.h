// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fathom::parallel {

/// Where ZeRO stages 1 and 2 put each trainable parameter: flat buckets built with plan::zeroBuckets over the
/// tensors in reverse registration order (the order their gradients become ready), each padded with
/// plan::paddedElements so it splits into `world` equal partitions of plan::shardElements. The planner uses the
/// same three functions, so what it predicts is what ZeroEngine allocates and communicates (docs/sharding.md).
///
/// Invariants: every tensor is in exactly one bucket, once, whole (never split); inside a bucket the members are
/// contiguous from offset 0, in reverse registration order; bucket k's elements equal zeroBuckets(...)[k];
/// padded = world · shard >= elements, and the padding sits at the end of the buffer.
class ZeroBucketLayout {
public:
  /// One tensor's place in its bucket's flat buffer.
  struct Slot {
    std::size_t tensor = 0;     ///< index into the tensors given to the constructor (registration order)
    std::int64_t offset = 0;    ///< first element in the bucket buffer
    std::int64_t elements = 0;  ///< the tensor's numel
  };
  /// One flat bucket, in reduction order (bucket 0 is the first whose gradients are all ready).
  struct Bucket {
    std::vector<Slot> members;  ///< in buffer order (reverse registration order)
    std::int64_t elements = 0;  ///< Σ slot elements, before padding
    std::int64_t padded = 0;    ///< plan::paddedElements(elements, world): the buffer's length
    std::int64_t shard = 0;     ///< plan::shardElements(elements, world): one rank's partition
  };

  /// Lays out tensors of `tensorElements` elements (registration order) for `world` ranks in buckets of at
  /// least `bucketElements` elements (the last may be smaller). ConfigError naming the value for world < 1,
  /// bucketElements < 1 or a negative element count.
  ZeroBucketLayout(const std::vector<std::int64_t>& tensorElements, int world, std::int64_t bucketElements);

  const std::vector<Bucket>& buckets() const { return m_buckets; }
  int world() const { return m_world; }
  /// The bucket holding tensor `tensor`, and its slot there.
  std::size_t bucketOf(std::size_t tensor) const { return m_bucketOf.at(tensor); }
  const Slot& slotOf(std::size_t tensor) const;
  /// Σ padded bucket elements (one rank's replicated flat parameters).
  std::int64_t paddedElements() const { return m_padded; }
  /// Σ partition elements (what one rank's optimizer steps).
  std::int64_t shardElements() const { return m_shard; }

private:
  int m_world = 1;
  std::vector<Bucket> m_buckets;
  std::vector<std::size_t> m_bucketOf;
  std::vector<std::size_t> m_slotOf;
  std::int64_t m_padded = 0;
  std::int64_t m_shard = 0;
};

}  // namespace fathom::parallel
