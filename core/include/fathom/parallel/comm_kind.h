// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace fathom::parallel {

/// The kind of a collective as the Comm layer records it. The first five are the planner's
/// plan::CollectiveKind (same names, see toPlanKind in comm_record.h); Barrier moves no payload and has no planner
/// counterpart. This header is free of LibTorch, so the telemetry wire format and the workspace can name kinds
/// with the Comm layer's own vocabulary.
enum class CommKind { AllReduce, AllGather, ReduceScatter, Broadcast, SendRecv, Barrier };

/// Number of CommKind values (for per-kind arrays).
inline constexpr std::size_t kCommKindCount = 6;

/// "all_reduce", "all_gather", "reduce_scatter", "broadcast", "send_recv", "barrier": the planner's names.
const char* toString(CommKind kind);
/// The kind toString() spells `name`; std::nullopt for any other text.
std::optional<CommKind> parseCommKind(std::string_view name);

}  // namespace fathom::parallel
