// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::calibrate {

/// How long and how finely `fathom calibrate` measures. The mode picks the defaults of every field of
/// CalibrationOptions left at 0 / empty (resolveOptions()).
enum class CalibrationMode {
  Quick,    ///< one matmul shape, 1 and N processes, 4 message sizes (1 KiB .. 4 MiB), a few seconds
  Default,  ///< three shapes, every process count, 1 KiB .. 64 MiB by x4, under a minute on 2 cores
  Thorough  ///< four shapes, 1 KiB .. 256 MiB by x2, longer timings
};

/// "quick", "default", "thorough".
const char* toString(CalibrationMode mode);

/// Where the matmuls and collectives run.
enum class CalibrationDevice {
  Auto,  ///< CUDA (NCCL, one GPU per process) when a device is visible, else the CPU (Gloo)
  Cpu,   ///< CPU processes, Gloo on 127.0.0.1
  Cuda   ///< one GPU per process, NCCL; ConfigError when no CUDA device is visible
};

/// Where a calibration is: `done` of `total` measurements, and what runs now ("matmul fp32 2x1 256x512x2048").
struct CalibrationProgress {
  int done = 0;
  int total = 0;
  std::string step;
};

/// What `fathom calibrate` measures and how (the c10d habit: an aggregate with defaults, passed last). Zero or empty
/// fields take the mode's value.
struct CalibrationOptions {
  CalibrationMode mode = CalibrationMode::Default;
  CalibrationDevice device = CalibrationDevice::Auto;
  /// Processes per node measured concurrently: 1..maxProcesses (and collectives over 2..maxProcesses ranks).
  /// 0 = the cores this process may run on (at least 2) on the CPU, the visible GPUs on CUDA.
  int maxProcesses = 0;
  /// Intra-op thread counts per process; empty = 1, 2, 4, ... up to the cores (and the cores), every one measured
  /// at every process count, so processes x threads above the cores (oversubscription) is measured too. Ignored on
  /// CUDA (1).
  std::vector<int> threads;
  /// Hidden sizes h of the measured matmuls (tokens x h) @ (h x 4h); empty = the mode's (quick 256; default 256,
  /// 512, 1024; thorough 256 .. 2048).
  std::vector<std::int64_t> hiddenSizes;
  /// Rows (tokens) of the measured matmuls; 0 = 256 on the CPU, 4096 on CUDA.
  std::int64_t tokens = 0;
  /// Seconds each matmul rate is timed for (after one warm-up product); 0 = the mode's (0.05, 0.25, 1).
  double matmulSeconds = 0.0;
  /// Buffer of the memory-bandwidth copy and add, bytes; 0 = 64 MiB (256 MiB thorough, 1 GiB on CUDA).
  std::int64_t memoryBytes = 0;
  /// Collective message sizes in bytes (nccl-tests' sizes: see plan::CollectivePoint); empty = the mode's.
  std::vector<std::int64_t> messageBytes;
  /// Most timed calls per message size (after one warm-up call; fewer when a call takes long); the median call
  /// counts. 0 = the mode's (5, 45, 90), spread over the passes (quick 1, else 3 rounds over the sizes).
  int repeats = 0;
  /// Seconds of timed calls per message size at most (the repeats shrink to fit); 0 = the mode's (0.05, 0.3, 1).
  double secondsPerSize = 0.0;
  /// The program and arguments that run one rank of the calibration: runCalibrationWorker() in a process started
  /// with the launcher's variables; "--task FILE" is appended. `fathom calibrate` passes itself and its hidden
  /// `calibrate-worker` command. Required.
  std::vector<std::string> workerCommand;
  /// Rendezvous and collective timeout of the workers.
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  /// Called on the calling thread as measurements finish (about 10 times a second at most); may be empty.
  std::function<void(const CalibrationProgress&)> onProgress;
  /// Called with notes for the user ("no CUDA device: ..."); may be empty.
  std::function<void(std::string_view)> onNote;
};

}  // namespace fathom::calibrate
