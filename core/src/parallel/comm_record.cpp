// SPDX-License-Identifier: Apache-2.0
#include <fathom/parallel/comm_record.h>

namespace fathom::parallel {

const char* toString(CommKind kind) {
  switch (kind) {
  case CommKind::AllReduce: return "all_reduce";
  case CommKind::AllGather: return "all_gather";
  case CommKind::ReduceScatter: return "reduce_scatter";
  case CommKind::Broadcast: return "broadcast";
  case CommKind::SendRecv: return "send_recv";
  case CommKind::Barrier: return "barrier";
  }
  return "unknown";
}

std::optional<CommKind> parseCommKind(std::string_view name) {
  for (std::size_t i = 0; i < kCommKindCount; ++i) {
    const auto kind = static_cast<CommKind>(i);
    if (name == toString(kind)) {
      return kind;
    }
  }
  return std::nullopt;
}

std::optional<plan::CollectiveKind> toPlanKind(CommKind kind) {
  switch (kind) {
  case CommKind::AllReduce: return plan::CollectiveKind::AllReduce;
  case CommKind::AllGather: return plan::CollectiveKind::AllGather;
  case CommKind::ReduceScatter: return plan::CollectiveKind::ReduceScatter;
  case CommKind::Broadcast: return plan::CollectiveKind::Broadcast;
  case CommKind::SendRecv: return plan::CollectiveKind::SendRecv;
  case CommKind::Barrier: return std::nullopt;
  }
  return std::nullopt;
}

KindTotals StepTotals::total() const {
  KindTotals sum;
  for (const KindTotals& k : byKind) {
    sum.count += k.count;
    sum.bytes += k.bytes;
    sum.duration.value += k.duration.value;
  }
  return sum;
}

}  // namespace fathom::parallel
