// SPDX-License-Identifier: Apache-2.0
#include <fathom/calibrate/calibrate.h>

#include "calibration_task.h"

#include <fathom/calibrate/alpha_beta_fit.h>
#include <fathom/common/atomic_file.h>
#include <fathom/common/error.h>
#include <fathom/common/temporary_folder.h>
#include <fathom/launch/local_launcher.h>
#include <fathom/runtime/cuda_probe.h>
#include <fathom/runtime/system_info.h>

#include <torch/cuda.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <future>
#include <set>
#include <thread>

namespace fathom::calibrate {
namespace {

using detail::CalibrationTask;

/// 1, 2, 4, ... up to `limit`, and `limit` itself.
std::vector<int> powersOfTwoUpTo(int limit) {
  std::set<int> values;
  for (int v = 1; v <= limit; v *= 2) {
    values.insert(v);
  }
  values.insert(limit);
  return {values.begin(), values.end()};
}

/// 1 KiB, 1 KiB·step, ... up to `last` bytes.
std::vector<std::int64_t> sizes(std::int64_t last, std::int64_t step) {
  std::vector<std::int64_t> out;
  for (std::int64_t b = 1024; b <= last; b *= step) {
    out.push_back(b);
  }
  return out;
}

CalibrationTask resolveTask(const CalibrationOptions& o, bool cuda, int cores, int gpus) {
  CalibrationTask t;
  t.device = cuda ? "cuda" : "cpu";
  t.mode = toString(o.mode);
  t.cpuCores = cores;
  const bool quick = o.mode == CalibrationMode::Quick;
  const bool thorough = o.mode == CalibrationMode::Thorough;
  int n = o.maxProcesses;
  if (n == 0) {
    n = cuda ? gpus : std::max(2, cores);
  }
  FATHOM_CHECK(n >= 1, ConfigError, "--max_processes must be >= 1, got ", n);
  FATHOM_CHECK(cuda || n >= 2, ConfigError,
               "--max_processes must be >= 2 on the CPU: the collectives need two processes, got ", n);
  FATHOM_CHECK(!cuda || n <= gpus, ConfigError, "--max_processes ", n, " exceeds the ", gpus,
               " visible CUDA devices (one GPU per process)");
  t.processes = quick ? std::vector<int>{1, n} : (n <= 8 ? std::vector<int>{} : powersOfTwoUpTo(n));
  if (t.processes.empty()) {
    for (int p = 1; p <= n; ++p) {
      t.processes.push_back(p);
    }
  }
  t.processes.erase(std::unique(t.processes.begin(), t.processes.end()), t.processes.end());
  if (cuda) {
    t.threads = {1};
  } else if (!o.threads.empty()) {
    t.threads = o.threads;
  } else {
    t.threads = quick ? std::vector<int>{1, cores} : powersOfTwoUpTo(cores);
    t.threads.erase(std::unique(t.threads.begin(), t.threads.end()), t.threads.end());
  }
  for (int th : t.threads) {
    FATHOM_CHECK(th >= 1, ConfigError, "thread counts must be >= 1, got ", th);
  }
  t.dtypes = cuda ? std::vector<std::string>{"fp32", "tf32", "fp16", "bf16"} : std::vector<std::string>{"fp32", "bf16"};
  std::vector<std::int64_t> hidden = o.hiddenSizes;
  if (hidden.empty()) {
    // Each shape is measured in three layouts at every process and thread count: the CPU's sizes stay small enough
    // for a slow BLAS (Debian's reference BLAS: a 512-wide layer's forward product takes 0.2 s).
    if (cuda) {  // a GPU needs larger products to leave its launch overhead behind
      hidden = quick ? std::vector<std::int64_t>{1024}
                     : (thorough ? std::vector<std::int64_t>{1024, 2048, 4096, 8192}
                                 : std::vector<std::int64_t>{1024, 2048, 4096});
    } else {
      hidden = quick ? std::vector<std::int64_t>{256}
                     : (thorough ? std::vector<std::int64_t>{128, 256, 512, 1024, 2048}
                                 : std::vector<std::int64_t>{128, 256, 512});
    }
  }
  const std::int64_t tokens = o.tokens > 0 ? o.tokens : (cuda ? 4096 : 256);
  for (std::int64_t h : hidden) {
    FATHOM_CHECK(h >= 1, ConfigError, "hidden sizes must be >= 1, got ", h);
    t.shapes.push_back({tokens, h, 4 * h});
  }
  t.layouts = {"nn", "nt", "tn"};
  t.matmulSeconds = o.matmulSeconds > 0 ? o.matmulSeconds : (quick ? 0.05 : thorough ? 1.0 : 0.25);
  t.memoryBytes = o.memoryBytes > 0 ? o.memoryBytes
                                    : (cuda ? std::int64_t{1} << 30 : (thorough ? 256 : 64) * (std::int64_t{1} << 20));
  t.memoryRepeats = quick ? 2 : thorough ? 10 : 5;
  if (!o.messageBytes.empty()) {
    t.messageBytes = o.messageBytes;
  } else {
    t.messageBytes = quick ? sizes(4 << 20, 16) : thorough ? sizes(256 << 20, 2) : sizes(64 << 20, 4);
  }
  for (std::int64_t b : t.messageBytes) {
    FATHOM_CHECK(b >= 4, ConfigError, "message sizes must be >= 4 bytes, got ", b);
  }
  std::sort(t.messageBytes.begin(), t.messageBytes.end());
  t.messageBytes.erase(std::unique(t.messageBytes.begin(), t.messageBytes.end()), t.messageBytes.end());
  FATHOM_CHECK(t.messageBytes.size() >= 2, ConfigError, "the alpha-beta fits need at least two message sizes");
  t.repeats = o.repeats > 0 ? o.repeats : (quick ? 5 : thorough ? 90 : 45);
  t.secondsPerSize = o.secondsPerSize > 0 ? o.secondsPerSize : (quick ? 0.05 : thorough ? 1.0 : 0.3);
  t.passes = quick ? 1 : 3;
  for (int r : n <= 8 ? std::vector<int>{} : powersOfTwoUpTo(n)) {
    if (r >= 2) {
      t.rankCounts.push_back(r);
    }
  }
  if (n <= 8) {
    for (int r = 2; r <= n; ++r) {
      t.rankCounts.push_back(r);
    }
  }
  t.timeoutMs = o.timeout.count();
  return t;
}

void reportProgress(const CalibrationOptions& o, const std::filesystem::path& file, int total) {
  if (!o.onProgress) {
    return;
  }
  try {
    const nlohmann::json j = detail::readJsonFile(file);
    o.onProgress({j.at("done").get<int>(), total, j.at("step").get<std::string>()});
  } catch (const std::exception&) {
    // not written yet
  }
}

}  // namespace

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

const char* toString(CalibrationMode mode) {
  switch (mode) {
  case CalibrationMode::Quick: return "quick";
  case CalibrationMode::Default: return "default";
  case CalibrationMode::Thorough: return "thorough";
  }
  return "default";
}

plan::HardwareSpec calibrate(const CalibrationOptions& options) {
  FATHOM_CHECK(!options.workerCommand.empty(), ConfigError, "calibrate needs a worker command");
  const auto started = std::chrono::steady_clock::now();
  const runtime::SystemInfo system = runtime::readSystemInfo();
  const int cores = std::max(1, system.cpuCores);
  const int gpus = options.device == CalibrationDevice::Cpu ? 0 : static_cast<int>(torch::cuda::device_count());
  FATHOM_CHECK(options.device != CalibrationDevice::Cuda || gpus > 0, ConfigError,
               "--device cuda: no CUDA device is visible to LibTorch (", torch::cuda::is_available() ? "" : "not ",
               "CUDA-enabled); run with --device cpu");
  const bool cuda = gpus > 0;
  if (!cuda && options.onNote && options.device == CalibrationDevice::Auto) {
    options.onNote("no CUDA device: measuring the CPU over Gloo; fp16 and tf32 matmuls (GPU tensor cores) and NCCL "
                   "are skipped");
  }
  const CalibrationTask task = resolveTask(options, cuda, cores, gpus);
  const int n = *std::max_element(task.processes.begin(), task.processes.end());

  const TemporaryFolder folder("fathom-calibrate");  // the task and the results, removed when the calibration ends
  const auto taskFile = folder.path() / detail::kTaskFile;
  detail::writeJsonFile(taskFile, detail::toJson(task));

  launch::LaunchOptions launchOptions;
  launchOptions.command = options.workerCommand;
  launchOptions.command.insert(launchOptions.command.end(), {"--task", taskFile.string()});
  launchOptions.numProcesses = n;
  launchOptions.cpu = !cuda;
  launchOptions.quiet = true;
  launchOptions.workerStdoutToStderr = true;  // stdout stays the caller's (`fathom calibrate --json`)
  launch::LocalLauncher launcher(std::move(launchOptions));
  // The launcher blocks; its thread runs the group while this one reports progress from rank 0's file.
  auto running = std::async(std::launch::async, [&launcher] { return launcher.run(); });
  const auto progressFile = folder.path() / detail::kProgressFile;
  while (running.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
    reportProgress(options, progressFile, task.totalSteps());
  }
  const launch::LaunchResult launched = running.get();
  if (launched.exitCode != 0) {
    std::string why = fathom::detail::concat("exit code ", launched.exitCode);
    if (launched.interruptedBy) {
      why = fathom::detail::concat("stopped by signal ", *launched.interruptedBy, "; nothing written");
    } else if (launched.failure) {
      why = fathom::detail::concat("rank ", launched.failure->rank, ": ", launched.failure->status.describe());
      for (const auto& line : launched.failure->lastLines) {
        why += "\n  " + line;
      }
    }
    throw Error(fathom::detail::concat("calibration failed (", why, ")"));
  }
  if (options.onProgress) {
    options.onProgress({task.totalSteps(), task.totalSteps(), "fitting"});
  }
  const detail::RawResult raw = detail::resultFromJson(detail::readJsonFile(folder.path() / detail::kResultFile));

  plan::HardwareCalibration c;
  c.measuredAt = utcNow();
  c.host = system.hostname;
  c.device = task.device;
  c.backend = cuda ? "nccl" : "gloo";
  c.mode = task.mode;
  c.cpuCores = cores;
  c.matmul = raw.matmul;
  c.elementwise = raw.elementwise;
  c.optimizer = raw.optimizer;
  c.memoryCopyBandwidth = raw.memoryCopy;
  c.memoryAddBandwidth = raw.memoryAdd;
  for (const auto& s : raw.collectives) {
    plan::CollectiveFit fit = fitAlphaBeta(s.kind, s.ranks, s.points);
    fit.path = s.path;
    c.collectives.push_back(std::move(fit));
  }
  MachineFacts facts;
  facts.processesPerNode = n;
  facts.hostMemoryBytes = static_cast<std::int64_t>(system.ramBytes);
  facts.memoryBytes = facts.hostMemoryBytes;
  facts.frameworkOverheadBytes = raw.residentBytes;
  if (cuda) {
    const runtime::CudaProbe probe = runtime::probeCuda();
    if (!probe.devices.empty()) {
      c.deviceName = probe.devices.front().name;
      facts.memoryBytes = static_cast<std::int64_t>(probe.devices.front().totalMemoryBytes);
    }
    facts.frameworkOverheadBytes = 0;  // a GPU's context and workspaces are not in the host's resident memory
  } else {
    c.deviceName = raw.deviceName;
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return profileFromCalibration(c, facts);
}

plan::HardwareSpec profileFromCalibration(const plan::HardwareCalibration& c, const MachineFacts& facts) {
  plan::HardwareSpec hw;
  hw.name = plan::kThisMachineProfile;
  hw.device = c.device == "cuda" ? plan::DeviceKind::Gpu : plan::DeviceKind::Cpu;
  hw.description = fathom::detail::concat(
      "this machine (", c.host, ": ", c.deviceName.empty() ? c.device : c.deviceName, ", ", c.cpuCores,
      " cores) as `fathom calibrate` measured it at ", c.measuredAt, "; inter_node repeats the local links");
  hw.memoryBytes = facts.memoryBytes;
  hw.hostMemoryBytes = facts.hostMemoryBytes;
  hw.frameworkOverheadBytes = facts.frameworkOverheadBytes;
  hw.gpusPerNode = std::max(1, facts.processesPerNode);
  // The node full: gpusPerNode processes, each on its share of the cores (what a local run of that many ranks gets).
  const int threads = hw.device == plan::DeviceKind::Cpu ? std::max(1, c.cpuCores / hw.gpusPerNode) : 1;
  auto rate = [&](const char* dtype) {
    double r = c.matmulFlops(dtype, hw.gpusPerNode, threads);
    if (r == 0.0) {  // that thread count was not measured: the best at this process count
      for (const auto& m : c.matmul) {
        if (m.dtype == dtype && m.processes == hw.gpusPerNode) {
          r = std::max(r, m.flops);
        }
      }
    }
    return r;
  };
  hw.peak.fp32 = rate("fp32");
  hw.peak.bf16 = rate("bf16");
  hw.peak.fp16 = rate("fp16");
  hw.peak.tf32 = rate("tf32");
  hw.memoryBandwidth = c.memoryCopyBandwidth;
  const plan::CollectiveFit* best = nullptr;
  for (const auto& f : c.collectives) {
    if (f.kind == plan::CollectiveKind::AllReduce && (best == nullptr || f.ranks > best->ranks)) {
      best = &f;
    }
  }
  if (best != nullptr) {
    hw.intraNode = {best->beta, best->alpha / (2.0 * (best->ranks - 1))};
  } else {
    hw.intraNode = {c.memoryCopyBandwidth, 0.0};
  }
  hw.interNode = hw.intraNode;
  hw.calibration = c;
  plan::validateHardware(hw);
  return hw;
}

std::filesystem::path defaultProfilePath() {
  return plan::userHardwareDir() / (std::string(plan::kThisMachineProfile) + ".yaml");
}

void writeHardwareProfile(const plan::HardwareSpec& profile, const std::filesystem::path& path) {
  if (path.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    FATHOM_CHECK(!ec, StorageError, "cannot create the folder ", path.parent_path().string(), ": ", ec.message());
  }
  AtomicFile::writeWhole(path, plan::formatHardwareYaml(profile), {.what = "hardware profile"});
}

nlohmann::ordered_json toJson(const plan::HardwareCalibration& c) {
  nlohmann::ordered_json matmul = nlohmann::ordered_json::array();
  for (const auto& m : c.matmul) {
    matmul.push_back(detail::rateJson<nlohmann::ordered_json>(m));
  }
  nlohmann::ordered_json elementwise = nlohmann::ordered_json::array();
  for (const auto& e : c.elementwise) {
    elementwise.push_back(detail::rateJson<nlohmann::ordered_json>(e));
  }
  nlohmann::ordered_json optimizer = nlohmann::ordered_json::array();
  for (const auto& o : c.optimizer) {
    optimizer.push_back(detail::rateJson<nlohmann::ordered_json>(o));
  }
  nlohmann::ordered_json collectives = nlohmann::ordered_json::array();
  for (const auto& f : c.collectives) {
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const auto& p : f.points) {
      points.push_back({p.bytes, p.seconds});
    }
    nlohmann::ordered_json fit = {
        {"kind", plan::toString(f.kind)}, {"ranks", f.ranks}, {"alpha", f.alpha}, {"beta", f.beta}};
    if (!f.path.empty()) {
      fit["path"] = f.path;
    }
    fit["max_relative_error"] = maxRelativeError(f);
    fit["points"] = std::move(points);
    collectives.push_back(std::move(fit));
  }
  return {{"measured_at", c.measuredAt},
          {"host", c.host},
          {"device", c.device},
          {"device_name", c.deviceName},
          {"backend", c.backend},
          {"mode", c.mode},
          {"cpu_cores", c.cpuCores},
          {"seconds", c.seconds},
          {"matmul", std::move(matmul)},
          {"elementwise", std::move(elementwise)},
          {"optimizer", std::move(optimizer)},
          {"memory_bandwidth", {{"copy", c.memoryCopyBandwidth}, {"add", c.memoryAddBandwidth}}},
          {"collectives", std::move(collectives)}};
}

}  // namespace fathom::calibrate
