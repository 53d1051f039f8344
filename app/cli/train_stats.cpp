// SPDX-License-Identifier: Apache-2.0
#include "train_stats.h"

#include "train_cuda_memory.h"

#include <fathom/common/atomic_file.h>
#include <fathom/common/error.h>
#include <fathom/parallel/comm_record.h>
#include <fathom/train/accelerator.h>

#include <ATen/ATen.h>

#include <cstring>
#include <string>

#include <sys/resource.h>
#include <unistd.h>

namespace fathom::cli {
namespace {

nlohmann::json categories(const parallel::StateCategoryBytes& c) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& field : parallel::kStateCategoryFields) {
    out[std::string(toString(field.category))] = c.*field.member;
  }
  return out;
}

/// Per-kind totals of one step by the kind the caller asked for (what the planner predicts), in CommKind order,
/// kinds without a call left out.
nlohmann::json collectives(const train::Accelerator& accelerator, std::int64_t step) {
  nlohmann::json out = nlohmann::json::array();
  const auto totals = accelerator.commStepTotals(step);
  if (!totals) {
    return out;
  }
  for (std::size_t i = 0; i < parallel::kCommKindCount; ++i) {
    const auto kind = static_cast<parallel::CommKind>(i);
    const parallel::KindTotals& t = totals->requested(kind);
    if (t.count > 0) {
      out.push_back({{"kind", parallel::toString(kind)}, {"count", t.count}, {"bytes", t.bytes}});
    }
  }
  return out;
}

}  // namespace

void TrainStats::addMicroStepLoss(double loss) {
  m_lossSum += loss;
  ++m_microSteps;
}

void TrainStats::endStep(std::int64_t step) {
  m_steps.push_back({step, m_microSteps > 0 ? m_lossSum / static_cast<double>(m_microSteps) : 0.0});
  m_lossSum = 0.0;
  m_microSteps = 0;
}

nlohmann::json TrainStats::rankEntry(const train::Accelerator& accelerator) const {
  const parallel::ModelStateBytes bytes = accelerator.modelStateBytes();
  nlohmann::json b = categories(bytes.device);
  b["offloaded"] = categories(bytes.host);
  b["peak_gathered_parameters"] = bytes.peakGatheredParameters;
  nlohmann::json steps = nlohmann::json::array();
  for (const Step& s : m_steps) {
    steps.push_back({{"step", s.step}, {"loss", s.loss}, {"collectives", collectives(accelerator, s.step)}});
  }
  // The whole process as the operating system counts it (LibTorch, data, activations included): what the
  // sharding saves shows here too (tests/bench/bench_sharding.py).
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const std::int64_t peakResident = static_cast<std::int64_t>(usage.ru_maxrss) * 1024;  // Linux: KiB
  return {{"rank", accelerator.processIndex()},
          {"peak_resident_bytes", peakResident},
          {"cuda_memory", cudaMemoryPeaks(accelerator.device())},
          {"bytes", std::move(b)},
          {"steps", std::move(steps)}};
}

void TrainStats::write(train::Accelerator& accelerator, const std::filesystem::path& path) const {
  // Serialise before any collective, so the gathering records nothing into the steps reported.
  const std::string mine = rankEntry(accelerator).dump();
  nlohmann::json ranks = nlohmann::json::array();
  if (accelerator.numProcesses() == 1) {
    ranks.push_back(nlohmann::json::parse(mine));
  } else {
    // Sizes first, then every rank's bytes padded to the longest and gathered in rank order.
    const at::Tensor size = at::tensor({static_cast<std::int64_t>(mine.size())}, at::kLong);
    const at::Tensor sizes = accelerator.gather(size.to(accelerator.device())).cpu();
    at::Tensor text = at::empty({static_cast<std::int64_t>(mine.size())}, at::kByte);
    std::memcpy(text.data_ptr(), mine.data(), mine.size());
    const at::Tensor padded = accelerator.padAcrossProcesses(text.to(accelerator.device()));
    const at::Tensor all = accelerator.gather(padded).cpu().contiguous();
    if (accelerator.isMainProcess()) {
      const std::int64_t stride = padded.size(0);
      const auto* base = static_cast<const char*>(all.data_ptr());
      for (std::int64_t r = 0; r < accelerator.numProcesses(); ++r) {
        const auto n = static_cast<std::size_t>(sizes[r].item<std::int64_t>());
        ranks.push_back(nlohmann::json::parse(std::string(base + r * stride, n)));
      }
    }
  }
  if (accelerator.isMainProcess()) {
    const nlohmann::json document{
        {"strategy", accelerator.strategy()}, {"world_size", accelerator.numProcesses()}, {"ranks", std::move(ranks)}};
    // Whole or not at all: a killed or failing write leaves the previous file and no temporary (AtomicFile).
    AtomicFile::writeWhole(path, document.dump(2) + "\n",
                           {.temporarySuffix = ".tmp-" + std::to_string(::getpid()),
                            .what = "--stats_json file",
                            .unnamedWhileWriting = true});
  }
}

}  // namespace fathom::cli
