// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/plan/shard_layout.h>

namespace fathom::plan {

std::int64_t paddedElements(std::int64_t elements, int ranks) {
  FATHOM_CHECK(ranks >= 1, ConfigError, "shard layout: ranks must be >= 1, got ", ranks);
  FATHOM_CHECK(elements >= 0, ConfigError, "shard layout: elements must be >= 0, got ", elements);
  return (elements + ranks - 1) / ranks * ranks;
}

std::int64_t shardElements(std::int64_t elements, int ranks) {
  return paddedElements(elements, ranks) / ranks;
}

std::vector<std::int64_t> zeroBuckets(const std::vector<std::int64_t>& tensorElements, std::int64_t bucketElements) {
  FATHOM_CHECK(bucketElements >= 1, ConfigError, "ZeRO bucket size must be >= 1 element, got ", bucketElements);
  std::vector<std::int64_t> buckets;
  std::int64_t open = 0;
  for (auto it = tensorElements.rbegin(); it != tensorElements.rend(); ++it) {
    open += *it;
    if (open >= bucketElements) {
      buckets.push_back(open);
      open = 0;
    }
  }
  if (open > 0)
    buckets.push_back(open);
  return buckets;
}

}  // namespace fathom::plan
