// SPDX-License-Identifier: Apache-2.0
#include <fathom/calibrate/calibration_worker.h>

#include "calibration_task.h"

#include <fathom/calibrate/measure.h>
#include <fathom/common/error.h>
#include <fathom/runtime/process_state.h>
#include <fathom/runtime/system_info.h>
#include <fathom/telemetry/process_memory.h>

#include <torch/torch.h>

#include <algorithm>
#include <numeric>

namespace fathom::calibrate {
namespace {

using detail::CalibrationTask;
using detail::RawResult;

/// Rank 0's progress file, rewritten (by rename) after each measurement for calibrate() to poll.
class Progress {
public:
  Progress(std::filesystem::path file, int total, bool writer)
      : m_file(std::move(file)), m_total(total), m_writer(writer) {}
  void step(const std::string& what) {
    if (m_writer) {
      detail::writeJsonFile(m_file, {{"done", m_done}, {"total", m_total}, {"step", what}});
    }
  }
  void done() { ++m_done; }

private:
  std::filesystem::path m_file;
  int m_total;
  int m_done = 0;
  bool m_writer;
};

/// Every rank's value at rank index (0 from ranks that measured nothing).
std::vector<double> gatherValues(runtime::ProcessGroup& pg, double value, const c10::Device& device) {
  const at::Tensor mine = torch::full({1}, value, torch::TensorOptions().dtype(torch::kFloat64).device(device));
  std::vector<double> all;
  for (const auto& t : pg.allGather(mine)) {
    all.push_back(t.cpu().item<double>());
  }
  return all;
}

/// The mean over the measuring ranks (the first `processes`) of a value every rank contributes.
double meanOfMeasuring(runtime::ProcessGroup& pg, double value, int processes, const c10::Device& device) {
  const std::vector<double> all = gatherValues(pg, value, device);
  return std::accumulate(all.begin(), all.begin() + processes, 0.0) / processes;
}

/// Per (processes, threads): every matmul (dtype x shape x layout), then the element-wise costs and the optimizer
/// steps, each started by the measuring ranks together after a barrier, so they contend for the cores as training
/// ranks do.
void measureCompute(const CalibrationTask& task, runtime::ProcessGroup& pg, const c10::Device& device,
                    Progress& progress, RawResult& result) {
  const int rank = pg.rank();
  for (int processes : task.processes) {
    for (int threads : task.threads) {
      const std::string setting = fathom::detail::concat(processes, " process", processes == 1 ? "" : "es", " x ",
                                                         threads, " thread", threads == 1 ? "" : "s");
      const bool measuring = rank < processes;
      auto begin = [&](const std::string& what) {
        progress.step(what + ", " + setting);
        pg.barrier();
        if (measuring && !device.is_cuda()) {
          torch::set_num_threads(threads);
        }
      };
      for (const auto& dtype : task.dtypes) {
        for (const auto& [m, k, n] : task.shapes) {
          for (const auto& layoutName : task.layouts) {
            begin(fathom::detail::concat("matmul ", dtype, " ", layoutName, " ", m, "x", k, "x", n));
            const plan::MatmulLayout layout = plan::parseMatmulLayout(layoutName).value_or(plan::MatmulLayout::NN);
            const double flops =
                measuring ? measureMatmulFlops(dtype, {m, k, n}, device, task.matmulSeconds, layout) : 0.0;
            result.matmul.push_back(
                {dtype, layout, processes, threads, m, k, n, meanOfMeasuring(pg, flops, processes, device)});
            progress.done();
          }
        }
      }
      begin("element-wise");
      const ElementwiseCost cost =
          measuring ? measureElementwise(task.elementwiseElements, device, task.matmulSeconds) : ElementwiseCost{};
      result.elementwise.push_back({processes, threads, meanOfMeasuring(pg, cost.secondsPerElement, processes, device),
                                    meanOfMeasuring(pg, cost.secondsPerCall, processes, device)});
      progress.done();
      begin("optimizer steps");
      for (const char* optimizer : detail::kOptimizers) {
        const double seconds =
            measuring ? measureOptimizerStep(optimizer, task.optimizerParameters, device, task.matmulSeconds / 2) : 0.0;
        result.optimizer.push_back({optimizer, processes, threads, meanOfMeasuring(pg, seconds, processes, device)});
      }
      progress.done();
    }
  }
}

void measureCollectives(const CalibrationTask& task, runtime::ProcessGroup& pg, const c10::Device& device,
                        Progress& progress, RawResult& result) {
  const CollectiveTiming timing{.repeats = task.repeats, .secondsPerSize = task.secondsPerSize, .passes = task.passes};
  for (int ranks : task.rankCounts) {
    std::unique_ptr<runtime::ProcessGroup> sub;
    runtime::ProcessGroup* group = &pg;
    if (ranks < pg.worldSize()) {
      std::vector<int> members(static_cast<std::size_t>(ranks));
      std::iota(members.begin(), members.end(), 0);
      sub = pg.newGroup(members, fathom::detail::concat("calibrate_", ranks));
      group = sub.get();
    }
    for (auto kind : {plan::CollectiveKind::AllReduce, plan::CollectiveKind::AllGather,
                      plan::CollectiveKind::ReduceScatter, plan::CollectiveKind::Broadcast}) {
      RawResult::Series series{kind, ranks, {}, {}};
      // A size counts as done when its last pass is over (the next one starts, or the series ends); the text says
      // which pass runs. Only rank 0, always a member, writes progress.
      auto onSize = [&](std::size_t i, int pass) {
        if (pass == timing.passes - 1 && i > 0) {
          progress.done();
        }
        progress.step(fathom::detail::concat(plan::toString(kind), ", ", ranks, " ranks, ", task.messageBytes[i],
                                             " bytes, pass ", pass + 1, " of ", timing.passes));
      };
      if (group != nullptr) {
        series.points = timeCollectives(*group, kind, task.messageBytes, device, timing, &series.path, onSize);
      }
      progress.done();  // the last size
      result.collectives.push_back(std::move(series));
    }
    pg.barrier();  // the ranks outside the sub-group wait here
  }
}

/// "calibration rank 1: ", or "calibration worker: " before the rank is known.
std::string who(int rank) {
  return rank >= 0 ? fathom::detail::concat("calibration rank ", rank, ": ") : std::string("calibration worker: ");
}

}  // namespace

int runCalibrationWorker(const std::filesystem::path& taskFile) {
  int rank = -1;
  try {
    const CalibrationTask task = detail::taskFromJson(detail::readJsonFile(taskFile));
    const bool cuda = task.device == "cuda";
    const auto state = runtime::ProcessState::fromEnvironment({.cpu = !cuda});
    rank = state.processIndex();
    const auto pg = state.joinProcessGroup({.backend = cuda ? runtime::CommBackend::Nccl : runtime::CommBackend::Gloo,
                                            .timeout = std::chrono::milliseconds(task.timeoutMs)});
    const c10::Device device = cuda ? c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(state.localProcessIndex()))
                                    : c10::Device(c10::kCPU);
    RawResult result;
    result.residentBytes = telemetry::readProcessMemory().residentBytes;
    result.deviceName = cuda ? std::string("cuda") : runtime::readSystemInfo().cpuModel;
    Progress progress(taskFile.parent_path() / detail::kProgressFile, task.totalSteps(), rank == 0);

    measureCompute(task, *pg, device, progress, result);

    progress.step("memory bandwidth");
    pg->barrier();
    if (rank == 0) {
      if (!cuda) {
        torch::set_num_threads(task.cpuCores);
      }
      const MemoryBandwidth bw = measureMemoryBandwidth(task.memoryBytes, device, task.memoryRepeats);
      result.memoryCopy = bw.copy;
      result.memoryAdd = bw.add;
    }
    progress.done();
    pg->barrier();
    if (!cuda) {
      torch::set_num_threads(1);  // Gloo's own threads carry the collectives
    }

    measureCollectives(task, *pg, device, progress, result);
    if (rank == 0) {
      detail::writeJsonFile(taskFile.parent_path() / detail::kResultFile, detail::toJson(result));
    }
    pg->barrier();
    return 0;
  } catch (const ConfigError& e) {
    throw ConfigError(fathom::detail::concat(who(rank), e.what()));
  } catch (const std::exception& e) {
    throw Error(fathom::detail::concat(who(rank), e.what()));
  }
}

}  // namespace fathom::calibrate
