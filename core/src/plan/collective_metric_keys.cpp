// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/collective_metric_keys.h>

namespace fathom::plan {
namespace {

constexpr std::string_view kPrefix = "comm/";

std::string_view metricName(CollectiveMetric metric) {
  return metric == CollectiveMetric::Count ? "count" : "bytes";
}

}  // namespace

std::string collectiveMetricKey(CollectiveKind kind, CollectiveMetric metric) {
  return std::string(kPrefix).append(toString(kind)).append("/").append(metricName(metric));
}

std::optional<CollectiveMetricName> parseCollectiveMetricKey(std::string_view key) {
  if (key.substr(0, kPrefix.size()) != kPrefix) {
    return std::nullopt;
  }
  // Five kinds, two measures: compare with every key this file makes rather than take the text apart.
  for (int k = 0; k <= static_cast<int>(CollectiveKind::SendRecv); ++k) {
    for (const CollectiveMetric metric : {CollectiveMetric::Count, CollectiveMetric::Bytes}) {
      const auto kind = static_cast<CollectiveKind>(k);
      if (key == collectiveMetricKey(kind, metric)) {
        return CollectiveMetricName{kind, metric};
      }
    }
  }
  return std::nullopt;
}

}  // namespace fathom::plan
