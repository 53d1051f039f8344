// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/zero_bucket_layout.h>

#include <fathom/common/error.h>
#include <fathom/plan/shard_layout.h>

#include <algorithm>

namespace fathom::parallel {

ZeroBucketLayout::ZeroBucketLayout(const std::vector<std::int64_t>& tensorElements, int world,
                                   std::int64_t bucketElements)
    : m_world(world), m_bucketOf(tensorElements.size()), m_slotOf(tensorElements.size()) {
  FATHOM_CHECK(world >= 1, ConfigError, "ZeRO layout: world size must be >= 1, got ", world);
  FATHOM_CHECK(bucketElements >= 1, ConfigError, "ZeRO reduce_bucket_size must be >= 1 element, got ", bucketElements);
  for (std::size_t i = 0; i < tensorElements.size(); ++i) {
    FATHOM_CHECK(tensorElements[i] >= 0, ConfigError, "ZeRO layout: tensor ", i, " has ", tensorElements[i],
                 " elements");
  }
  // The bucket sizes come from the planner's function; the walk below only assigns tensors to them, in the same
  // (reverse registration) order, so the two cannot disagree.
  const std::vector<std::int64_t> sizes = plan::zeroBuckets(tensorElements, bucketElements);
  FATHOM_CHECK(!sizes.empty(), ConfigError, "ZeRO layout: the ", tensorElements.size(),
               " tensors hold no element to partition");
  m_buckets.resize(sizes.size());
  std::size_t bucket = 0;
  for (std::size_t i = tensorElements.size(); i-- > 0;) {
    const std::int64_t n = tensorElements[i];
    // A full bucket is closed: the next tensor with elements opens the next one. An empty tensor stays in the
    // open (or last) bucket, where it takes a zero-length slot, as zeroBuckets adds nothing for it.
    while (n > 0 && bucket < sizes.size() && m_buckets[bucket].elements == sizes[bucket]) {
      ++bucket;
    }
    const std::size_t k = std::min(bucket, sizes.size() - 1);
    Bucket& b = m_buckets[k];
    FATHOM_ASSERT(b.elements + n <= sizes[k], "ZeRO layout: tensor ", i, " does not fit the planner's bucket ", k);
    m_bucketOf[i] = k;
    m_slotOf[i] = b.members.size();
    b.members.push_back(Slot{i, b.elements, n});
    b.elements += n;
  }
  for (std::size_t k = 0; k < m_buckets.size(); ++k) {
    Bucket& b = m_buckets[k];
    FATHOM_ASSERT(b.elements == sizes[k], "ZeRO layout: bucket ", k, " holds ", b.elements, " elements, the planner's ",
                  sizes[k]);
    b.padded = plan::paddedElements(b.elements, world);
    b.shard = plan::shardElements(b.elements, world);
    m_padded += b.padded;
    m_shard += b.shard;
  }
}

const ZeroBucketLayout::Slot& ZeroBucketLayout::slotOf(std::size_t tensor) const {
  return m_buckets.at(m_bucketOf.at(tensor)).members.at(m_slotOf.at(tensor));
}

}  // namespace fathom::parallel
