// SPDX-License-Identifier: Apache-2.0
#include <fathom/store/records.h>

#include <array>
#include <utility>

namespace fathom::store {
namespace {

constexpr std::array<std::pair<RunStatus, std::string_view>, 4> kRunStatusNames{{
    {RunStatus::Running, "running"},
    {RunStatus::Succeeded, "succeeded"},
    {RunStatus::Failed, "failed"},
    {RunStatus::Lost, "lost"},
}};

constexpr std::array<std::pair<ArtifactKind, std::string_view>, 3> kArtifactKindNames{{
    {ArtifactKind::Checkpoint, "checkpoint"},
    {ArtifactKind::Trace, "trace"},
    {ArtifactKind::Export, "export"},
}};

template <typename Enum, std::size_t N>
std::string_view nameOf(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum value) {
  for (const auto& [e, name] : table) {
    if (e == value) {
      return name;
    }
  }
  return "unknown";
}

template <typename Enum, std::size_t N>
std::optional<Enum> valueOf(const std::array<std::pair<Enum, std::string_view>, N>& table, std::string_view text) {
  for (const auto& [e, name] : table) {
    if (name == text) {
      return e;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view toString(RunStatus status) {
  return nameOf(kRunStatusNames, status);
}
std::optional<RunStatus> parseRunStatus(std::string_view text) {
  return valueOf(kRunStatusNames, text);
}
std::string_view toString(ArtifactKind kind) {
  return nameOf(kArtifactKindNames, kind);
}
std::optional<ArtifactKind> parseArtifactKind(std::string_view text) {
  return valueOf(kArtifactKindNames, text);
}

RunStrategy zeroStageStrategy(int stage) {
  RunStrategy out;
  out.strategy = stage == 1   ? plan::Strategy::Zero1
                 : stage == 2 ? plan::Strategy::Zero2
                 : stage == 3 ? plan::Strategy::Zero3
                              : plan::Strategy::Ddp;
  return out;
}

std::string strategyLabel(const RunStrategy& strategy) {
  plan::Plan p;
  p.strategy = strategy.strategy;
  p.fsdpSharding = strategy.fsdpSharding;
  return plan::strategyLabel(p);
}

}  // namespace fathom::store
