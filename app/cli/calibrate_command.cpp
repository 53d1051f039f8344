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
#include <fathom/common/error.h>
#include <fathom/plan/hardware.h>
#include <fathom/plan/plan_json.h>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

namespace fathom::cli {
namespace {

struct CalibrateFlags {
  bool quick = false;
  bool thorough = false;
  int maxProcesses = 0;
  std::string device = "auto";
  std::string output;
  std::string check;  ///< a profile whose collective fits are checked against this run's measurements
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
  std::cout << "Matmul FLOP/s per process (the best shape and layout; " << c.matmul.size() << " rates measured):\n";
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
  for (const auto& e : c.elementwise) {
    if (e.processes == hw.gpusPerNode) {
      std::cout << "\nElement-wise at " << e.processes << " x " << e.threads << ": "
                << number(e.secondsPerElement, "ns", 1e-9) << " per element, " << number(e.secondsPerCall, "us", 1e-6)
                << " per operator call";
    }
  }
  for (const auto& o : c.optimizer) {
    if (o.processes == hw.gpusPerNode) {
      std::cout << "\nOptimizer " << o.name << " at " << o.processes << " x " << o.threads << ": "
                << number(o.secondsPerParameter, "ns", 1e-9) << " per parameter";
    }
  }
  std::cout << "\n\nMemory bandwidth (one process): copy " << number(c.memoryCopyBandwidth, "GB/s", 1e9) << ", add "
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

/// The checks of one collective kind at one rank count: the largest |error| and where.
struct CheckSummary {
  plan::CollectiveKind kind;
  int ranks;
  double worst = 0.0;  ///< signed error of the largest |error|
  std::int64_t worstBytes = 0;
  std::int64_t firstBytes = 0, lastBytes = 0;
};

std::vector<CheckSummary> summarizeChecks(const std::vector<calibrate::FitCheck>& checks) {
  std::vector<CheckSummary> out;
  for (const calibrate::FitCheck& c : checks) {
    if (out.empty() || out.back().kind != c.kind || out.back().ranks != c.ranks) {
      out.push_back({c.kind, c.ranks, c.error(), c.bytes, c.bytes, c.bytes});
    }
    CheckSummary& s = out.back();
    s.lastBytes = c.bytes;
    if (std::abs(c.error()) > std::abs(s.worst)) {
      s.worst = c.error();
      s.worstBytes = c.bytes;
    }
  }
  return out;
}

void printChecks(const std::string& profile, const std::vector<calibrate::FitCheck>& checks) {
  std::cout << "\nCheck of " << profile << "'s collective fits against these measurements (error = predicted / "
            << "measured - 1):\n";
  std::vector<std::vector<std::string>> rows{{"collective", "ranks", "sizes", "largest error", "at"}};
  for (const CheckSummary& s : summarizeChecks(checks)) {
    rows.push_back({plan::toString(s.kind), std::to_string(s.ranks),
                    formatBinaryBytes(static_cast<double>(s.firstBytes), 0) + ".." +
                        formatBinaryBytes(static_cast<double>(s.lastBytes), 0),
                    number(100.0 * s.worst, "%", 1.0), formatBinaryBytes(static_cast<double>(s.worstBytes), 0)});
  }
  printTable(std::cout, rows, ColumnAlign::NumbersRight);
}

int runCalibrate(const CalibrateFlags& flags) {
  // The profile to check is read before anything is measured: a bad file fails in a moment, not after a minute.
  std::optional<plan::HardwareSpec> checked;
  if (!flags.check.empty()) {
    checked = plan::loadHardware(flags.check);
    FATHOM_CHECK(checked->calibration && !checked->calibration->collectives.empty(), ConfigError, "--check ",
                 flags.check, ": the profile has no calibrated collectives (write one with `fathom calibrate`)");
  }
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
  const std::vector<calibrate::FitCheck> checks =
      checked ? calibrate::checkFits(*checked->calibration, *hw.calibration) : std::vector<calibrate::FitCheck>{};
  if (flags.json) {
    nlohmann::ordered_json j = {{"path", path.string()}, {"hardware", plan::toJson(hw)}};
    j["hardware"]["device"] = plan::toString(hw.device);
    j["calibration"] = calibrate::toJson(*hw.calibration);
    if (checked) {
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      for (const calibrate::FitCheck& c : checks) {
        rows.push_back({{"kind", plan::toString(c.kind)},
                        {"ranks", c.ranks},
                        {"bytes", c.bytes},
                        {"predicted_s", c.predicted},
                        {"measured_s", c.measured},
                        {"error", c.error()}});
      }
      j["check"] = {{"profile", flags.check}, {"points", std::move(rows)}};
    }
    std::cout << j.dump(2) << '\n';
  } else {
    printSummary(hw, path.string());
    if (checked) {
      printChecks(flags.check, checks);
    }
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
  cmd->add_option("--check", flags->check,
                  "A profile (this-machine, a file) whose collective fits are checked against this calibration's "
                  "measurements: per collective and rank count, the largest error of its predictions");
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
