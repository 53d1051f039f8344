// SPDX-License-Identifier: Apache-2.0
// `fathom calibrate`: measures this machine (matmul FLOP/s by processes and threads, memory bandwidth, collective
// alpha/beta over real Gloo/NCCL groups) and writes the hardware profile `--hardware this-machine` loads. The ranks
// run this executable's hidden `calibrate-worker` command, started through the launcher.
#include "command.h"
#include "multi_node_flags.h"
#include "text_table.h"

#include <fathom/calibrate/alpha_beta_fit.h>
#include <fathom/calibrate/calibrate.h>
#include <fathom/calibrate/calibration_worker.h>
#include <fathom/plan/plan_json.h>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

namespace fathom::cli {
namespace {

struct CalibrateFlags {
  bool quick = false;
  bool thorough = false;
  int maxProcesses = 0;
  std::string device = "auto";
  std::string output;
  bool json = false;
  std::string task;  // calibrate-worker
};

std::string number(double value, const char* unit, double scale) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3g %s", value / scale, unit);
  return text;
}

std::string flopsText(double flops) {
  return flops <= 0 ? std::string("-") : number(flops, "GFLOP/s", 1e9);
}

/// A bar on stderr: redrawn in place on a terminal, a line per tenth elsewhere (logs, tests).
class ProgressBar {
public:
  ProgressBar() : m_terminal(::isatty(STDERR_FILENO) != 0) {}
  void update(const calibrate::CalibrationProgress& p) {
    if (p.total <= 0) {
      return;
    }
    const int width = 30;
    const int filled = width * p.done / p.total;
    const int tenth = 10 * p.done / p.total;
    if (!m_terminal && tenth == m_lastTenth) {
      return;
    }
    m_lastTenth = tenth;
    std::string bar = "[" + std::string(static_cast<std::size_t>(filled), '#') +
                      std::string(static_cast<std::size_t>(width - filled), '.') + "] ";
    std::ostringstream line;
    line << bar << p.done << "/" << p.total << " " << p.step;
    std::string text = line.str();
    if (m_terminal) {
      text.resize(std::max<std::size_t>(text.size(), m_lastWidth), ' ');
      m_lastWidth = line.str().size();
      std::cerr << '\r' << text << std::flush;
    } else {
      std::cerr << "fathom calibrate: " << text << '\n';
    }
  }
  void finish() {
    if (m_terminal && m_lastWidth > 0) {
      std::cerr << '\n';
    }
  }

private:
  bool m_terminal;
  int m_lastTenth = -1;
  std::size_t m_lastWidth = 0;
};

void printSummary(const plan::HardwareSpec& hw, const std::string& path) {
  const plan::HardwareCalibration& c = *hw.calibration;
  std::cout << "Calibrated " << c.host << " (" << (c.deviceName.empty() ? c.device : c.deviceName) << ", " << c.cpuCores
            << " cores), " << c.mode << " mode, in " << number(c.seconds, "s", 1.0) << "\n\n";
  std::cout << "Matmul FLOP/s per process (the best shape; " << c.matmul.size() << " rates measured):\n";
  std::vector<std::string> dtypes;
  std::vector<std::pair<int, int>> configs;
  for (const auto& m : c.matmul) {
    if (std::find(dtypes.begin(), dtypes.end(), m.dtype) == dtypes.end()) {
      dtypes.push_back(m.dtype);
    }
    if (std::find(configs.begin(), configs.end(), std::pair{m.processes, m.threads}) == configs.end()) {
      configs.emplace_back(m.processes, m.threads);
    }
  }
  std::vector<std::vector<std::string>> rows{{"processes", "threads"}};
  rows[0].insert(rows[0].end(), dtypes.begin(), dtypes.end());
  for (const auto& [p, t] : configs) {
    std::vector<std::string> row{std::to_string(p), std::to_string(t)};
    for (const auto& d : dtypes) {
      row.push_back(flopsText(c.matmulFlops(d, p, t)));
    }
    rows.push_back(std::move(row));
  }
  printTable(std::cout, rows, ColumnAlign::NumbersRight);
  std::cout << "\nMemory bandwidth (one process): copy " << number(c.memoryCopyBandwidth, "GB/s", 1e9) << ", add "
            << number(c.memoryAddBandwidth, "GB/s", 1e9) << "\n\n";
  std::cout << "Collectives over " << c.backend << " (t = alpha + f*bytes/beta; beta = bus bandwidth):\n";
  rows = {{"collective", "ranks", "alpha", "beta", "sizes", "max error"}};
  for (const auto& f : c.collectives) {
    rows.push_back({std::string(plan::toString(f.kind)) + (f.path.empty() ? "" : " (" + f.path + ")"),
                    std::to_string(f.ranks), number(f.alpha, "us", 1e-6), number(f.beta, "GB/s", 1e9),
                    formatBinaryBytes(static_cast<double>(f.points.front().bytes), 0) + ".." +
                        formatBinaryBytes(static_cast<double>(f.points.back().bytes), 0),
                    number(100.0 * calibrate::maxRelativeError(f), "%", 1.0)});
  }
  printTable(std::cout, rows, ColumnAlign::NumbersRight);
  std::cout << "\nProfile: peak_flops.fp32 " << flopsText(hw.peak.fp32) << " per process at " << hw.gpusPerNode
            << " processes per node; intra_node " << number(hw.intraNode.bandwidth, "GB/s", 1e9) << ", "
            << number(hw.intraNode.latency, "us", 1e-6) << " per step\n";
  std::cout << "Wrote " << path << " (use it with --hardware " << hw.name << ")\n";
}

int runCalibrate(const CalibrateFlags& flags) {
  calibrate::CalibrationOptions options;
  options.mode = flags.quick      ? calibrate::CalibrationMode::Quick
                 : flags.thorough ? calibrate::CalibrationMode::Thorough
                                  : calibrate::CalibrationMode::Default;
  options.device = flags.device == "cpu"    ? calibrate::CalibrationDevice::Cpu
                   : flags.device == "cuda" ? calibrate::CalibrationDevice::Cuda
                                            : calibrate::CalibrationDevice::Auto;
  options.maxProcesses = flags.maxProcesses;
  options.workerCommand = {MultiNodeFlags::thisFathom(), "calibrate-worker"};
  auto bar = std::make_shared<ProgressBar>();
  options.onProgress = [bar](const calibrate::CalibrationProgress& p) { bar->update(p); };
  options.onNote = [](std::string_view note) { std::cerr << "fathom calibrate: " << note << '\n'; };
  const std::filesystem::path path =
      flags.output.empty() ? calibrate::defaultProfilePath() : std::filesystem::path(flags.output);
  const plan::HardwareSpec hw = calibrate::calibrate(options);
  bar->finish();
  calibrate::writeHardwareProfile(hw, path);
  if (flags.json) {
    nlohmann::ordered_json j = {{"path", path.string()}, {"hardware", plan::toJson(hw)}};
    j["hardware"]["device"] = plan::toString(hw.device);
    j["calibration"] = calibrate::toJson(*hw.calibration);
    std::cout << j.dump(2) << '\n';
  } else {
    printSummary(hw, path.string());
  }
  return 0;
}

}  // namespace

void addCalibrateCommand(CLI::App& root, CommandAction& action) {
  auto flags = std::make_shared<CalibrateFlags>();
  CLI::App* cmd = root.add_subcommand(
      "calibrate", "Measure this machine and write its hardware profile (--hardware this-machine): matmul FLOP/s "
                   "per process by processes and threads, memory bandwidth, and all_reduce/all_gather/reduce_scatter/"
                   "broadcast latency and bandwidth over real Gloo (CPU) or NCCL (GPU) process groups");
  auto* quick = cmd->add_flag("--quick", flags->quick,
                              "A few seconds: one matmul shape, 1 and N processes, message sizes 1 KiB..4 MiB");
  cmd->add_flag("--thorough", flags->thorough,
                "Several minutes: four matmul shapes, 1 KiB..256 MiB in steps of x2, longer timings")
      ->excludes(quick);
  cmd->add_option("--max_processes,--max-processes", flags->maxProcesses,
                  "Most processes per node to measure at once (matmuls with 1..N processes, collectives over 2..N "
                  "ranks); default: the cores (at least 2), or the visible GPUs")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--device", flags->device,
                  "auto (CUDA when a device is visible, else the CPU), cpu (Gloo), or cuda (NCCL, one GPU a process)")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--output", flags->output,
                  "Write the profile here instead of $XDG_CONFIG_HOME/fathom/hardware/this-machine.yaml "
                  "(~/.config/... when unset); the file is replaced atomically");
  cmd->add_flag("--json", flags->json, "Print the profile and every measurement as one JSON object");
  cmd->footer("Rerun after a hardware or driver change; `fathom env` lists the profiles with their measured-at time. "
              "File format and what is measured: docs/calibrate.md");
  cmd->callback([flags, &action] { action = [flags] { return runCalibrate(*flags); }; });

  CLI::App* worker = root.add_subcommand("calibrate-worker", "One rank of `fathom calibrate` (started by it)");
  worker->group("");  // hidden from --help
  worker->add_option("--task", flags->task)->required();
  worker->callback([flags, &action] { action = [flags] { return calibrate::runCalibrationWorker(flags->task); }; });
}

}  // namespace fathom::cli
