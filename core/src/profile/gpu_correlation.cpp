// SPDX-License-Identifier: Apache-2.0
#include "profile/gpu_correlation.h"

#include <atomic>

namespace fathom::profile::detail {
namespace {
std::atomic<CorrelationPush> g_push{nullptr};
std::atomic<CorrelationPop> g_pop{nullptr};
}  // namespace

void setGpuCorrelationHooks(CorrelationPush push, CorrelationPop pop) {
  g_push.store(push, std::memory_order_release);
  g_pop.store(pop, std::memory_order_release);
}

void pushGpuCorrelation(std::uint64_t externalId) {
  if (CorrelationPush push = g_push.load(std::memory_order_acquire); push != nullptr)
    push(externalId);
}

namespace {
thread_local int t_collectiveIssueDepth = 0;
}

void enterCollectiveIssue() {
  ++t_collectiveIssueDepth;
}

void leaveCollectiveIssue() {
  if (t_collectiveIssueDepth > 0)
    --t_collectiveIssueDepth;
}

bool inCollectiveIssue() {
  return t_collectiveIssueDepth > 0;
}

void popGpuCorrelation() {
  if (CorrelationPop pop = g_pop.load(std::memory_order_acquire); pop != nullptr)
    pop();
}

}  // namespace fathom::profile::detail
