// SPDX-License-Identifier: Apache-2.0
#include <fathom/runtime/self_check.h>

#include <fathom/common/error.h>

#include <ATen/ATen.h>

namespace fathom::runtime {
namespace {

using Clock = std::chrono::steady_clock;

long long msSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

/// Runs one named check; a false return or an exception becomes the report's failure.
template <typename Check> bool step(SelfCheckReport& report, const char* name, Check&& check) {
  const auto start = Clock::now();
  std::string why;
  try {
    why = check();
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!why.empty()) {
    report.failure = detail::concat(name, " failed: ", why);
    return false;
  }
  report.steps.push_back(detail::concat(name, " ok (", msSince(start), " ms)"));
  return true;
}

}  // namespace

SelfCheckReport runSelfCheck(const ProcessState& state, const SelfCheckOptions& options) {
  SelfCheckReport report;
  const int rank = state.processIndex();
  const int world = state.numProcesses();
  std::unique_ptr<ProcessGroup> group;
  if (!step(report, "rendezvous", [&] {
        group = state.joinProcessGroup({.backend = options.backend, .timeout = options.timeout});
        return std::string();
      })) {
    return report;
  }
  const auto device = state.device().kind == Device::Kind::Cuda
                          ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(std::max(state.device().index, 0)))
                          : at::Device(at::kCPU);
  const auto longs = at::TensorOptions().dtype(at::kLong).device(device);

  const bool ok =
      step(report, "ranks",
           [&]() -> std::string {
             auto ranks = group->allGather(at::full({1}, rank, longs));
             for (int r = 0; r < world; ++r) {
               const auto got = ranks[r].item<std::int64_t>();
               if (got != r) {
                 return detail::concat("slot ", r, " of the group holds a process that says it is rank ", got,
                                       " (RANK is wrong or duplicated)");
               }
             }
             return {};
           }) &&
      step(report, "all_reduce",
           [&]() -> std::string {
             auto sum = at::full({1024}, rank + 1, longs);
             group->allReduce(sum, ReduceOp::Sum);
             const std::int64_t expected = static_cast<std::int64_t>(world) * (world + 1) / 2;
             if (!sum.eq(expected).all().item<bool>()) {
               return detail::concat("sum of 1..", world, " gave ", sum[0].item<std::int64_t>(), ", expected ",
                                     expected);
             }
             auto mx = at::full({4}, rank * 3, longs);
             group->allReduce(mx, ReduceOp::Max);
             if (!mx.eq(3 * (world - 1)).all().item<bool>()) {
               return detail::concat("max gave ", mx[0].item<std::int64_t>(), ", expected ", 3 * (world - 1));
             }
             return {};
           }) &&
      step(report, "broadcast",
           [&]() -> std::string {
             const int root = world - 1;
             auto values = rank == root ? at::arange(7, longs) * 11 : at::zeros({7}, longs);
             group->broadcast(values, root);
             if (!values.equal(at::arange(7, longs) * 11)) {
               return detail::concat("rank ", rank, " did not receive rank ", root, "'s tensor");
             }
             return {};
           }) &&
      step(report, "barrier",
           [&] {
             group->barrier();
             return std::string();
           }) &&
      step(report, "gather (uneven sizes)", [&]() -> std::string {
        // Rank r contributes r+1 rows of [r, r]: every rank must end with 1+2+...+world rows in rank order.
        auto mine = at::full({rank + 1, 2}, rank, longs);
        auto all = group->allGatherUneven(mine);
        for (int r = 0; r < world; ++r) {
          if (all[r].size(0) != r + 1 || !all[r].eq(r).all().item<bool>()) {
            return detail::concat("rank ", r, "'s part has ", all[r].size(0), " rows, expected ", r + 1, " rows of ",
                                  r);
          }
        }
        return {};
      });
  if (ok) {
    // Leave together, so no rank tears down its transport while a peer still talks to it.
    step(report, "teardown", [&] {
      group->barrier();
      group.reset();
      return std::string();
    });
  }
  return report;
}

}  // namespace fathom::runtime
