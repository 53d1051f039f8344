// SPDX-License-Identifier: Apache-2.0
// Real measurements, quick: matmul rates and memory bandwidth in this process, then a whole calibration over real
// worker processes (this executable again, as the `calibrate-worker` the CLI would run) forming real Gloo groups on
// 127.0.0.1. The numbers are checked for what must hold on any machine: positive, finite, and a process that shares
// two cores with three others gets less than one that has them alone.
#include <fathom/calibrate/calibrate.h>
#include <fathom/calibrate/calibration_worker.h>
#include <fathom/calibrate/measure.h>
#include <fathom/common/error.h>

#include <QCoreApplication>
#include <QTest>

#include <sched.h>

#include <torch/cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

using namespace fathom;
using plan::CollectiveKind;

class TestCalibrateMeasure : public QObject {
  Q_OBJECT

private slots:
  void matmulRatesArePlausible() {
    const c10::Device cpu(c10::kCPU);
    for (const char* dtype : {"fp32", "bf16"}) {
      const double flops = calibrate::measureMatmulFlops(dtype, {128, 128, 512}, cpu, 0.02);
      // Above 10 MFLOP/s (any CPU of this century) and below 100 TFLOP/s (no CPU core set reaches it).
      QVERIFY2(flops > 1e7 && flops < 1e14, (std::string(dtype) + ": " + std::to_string(flops)).c_str());
    }
  }

  void everyLayoutIsMeasured() {
    const c10::Device cpu(c10::kCPU);
    for (auto layout : {plan::MatmulLayout::NN, plan::MatmulLayout::NT, plan::MatmulLayout::TN}) {
      const double flops = calibrate::measureMatmulFlops("fp32", {64, 128, 256}, cpu, 0.01, layout);
      QVERIFY2(flops > 1e7 && flops < 1e14, plan::toString(layout));
    }
  }

  void elementwiseAndOptimizerCostsArePlausible() {
    const c10::Device cpu(c10::kCPU);
    const calibrate::ElementwiseCost cost = calibrate::measureElementwise(1 << 16, cpu, 0.02);
    // Between 1 ps and 10 µs an element, and between 10 ns and 10 ms an operator call.
    QVERIFY2(cost.secondsPerElement > 1e-12 && cost.secondsPerElement < 1e-5,
             std::to_string(cost.secondsPerElement).c_str());
    QVERIFY2(cost.secondsPerCall > 1e-8 && cost.secondsPerCall < 1e-2, std::to_string(cost.secondsPerCall).c_str());
    for (const char* optimizer : {"adamw", "sgd"}) {
      const double perParameter = calibrate::measureOptimizerStep(optimizer, 1 << 16, cpu, 0.02);
      QVERIFY2(perParameter > 1e-13 && perParameter < 1e-5, optimizer);
    }
    QVERIFY_THROWS_EXCEPTION(ConfigError, calibrate::measureOptimizerStep("lion", 16, cpu, 0.01));
    QVERIFY_THROWS_EXCEPTION(ConfigError, calibrate::measureElementwise(8, cpu, 0.01));
  }

  void gpuOnlyDtypesAreRefusedOnTheCpu() {
    const c10::Device cpu(c10::kCPU);
    QVERIFY(!calibrate::dtypeMeasurable("fp16", cpu));
    QVERIFY(!calibrate::dtypeMeasurable("tf32", cpu));
    QVERIFY_THROWS_EXCEPTION(ConfigError, calibrate::measureMatmulFlops("fp16", {8, 8, 8}, cpu, 0.001));
  }

  void gpuMatmul() {
    if (!torch::cuda::is_available()) {
      QSKIP("no CUDA device: the fp16/tf32 matmul and NCCL paths are compiled but not run here");
    }
    const c10::Device gpu(c10::kCUDA, 0);
    for (const char* dtype : {"fp32", "tf32", "fp16", "bf16"}) {
      QVERIFY(calibrate::measureMatmulFlops(dtype, {1024, 1024, 4096}, gpu, 0.05) > 1e9);
    }
  }

  void memoryBandwidthIsPlausible() {
    const auto bw = calibrate::measureMemoryBandwidth(16 << 20, c10::Device(c10::kCPU), 2);
    // Above 100 MB/s and below 10 TB/s.
    QVERIFY2(bw.copy > 1e8 && bw.copy < 1e13, std::to_string(bw.copy).c_str());
    QVERIFY2(bw.add > 1e8 && bw.add < 1e13, std::to_string(bw.add).c_str());
  }

  void wholeCalibrationOverGloo() {
    // Two cores for this process and the workers it starts (they inherit the affinity), so the case below is the
    // same on a 2-core CI runner and a 64-core workstation: 4 processes on 2 cores.
    cpu_set_t all;
    QCOMPARE(sched_getaffinity(0, sizeof all, &all), 0);
    if (CPU_COUNT(&all) < 2) {
      QSKIP("one core: nothing to share");
    }
    cpu_set_t two;
    CPU_ZERO(&two);
    for (int cpu = 0, taken = 0; cpu < CPU_SETSIZE && taken < 2; ++cpu) {
      if (CPU_ISSET(cpu, &all)) {
        CPU_SET(cpu, &two);
        ++taken;
      }
    }
    QCOMPARE(sched_setaffinity(0, sizeof two, &two), 0);
    struct Restore {
      cpu_set_t set;
      ~Restore() { sched_setaffinity(0, sizeof set, &set); }
    } restore{all};

    calibrate::CalibrationOptions options;
    options.mode = calibrate::CalibrationMode::Quick;
    options.device = calibrate::CalibrationDevice::Cpu;
    options.maxProcesses = 4;
    options.threads = {1};
    options.hiddenSizes = {256};
    options.matmulSeconds = 0.15;
    options.messageBytes = {1024, 64 << 10, 1 << 20};
    options.workerCommand = {QCoreApplication::applicationFilePath().toStdString(), "calibrate-worker"};
    options.timeout = std::chrono::seconds(60);
    int lastDone = -1;
    int calls = 0;
    options.onProgress = [&](const calibrate::CalibrationProgress& p) {
      QVERIFY(p.done >= lastDone && p.done <= p.total);
      lastDone = p.done;
      ++calls;
    };
    const plan::HardwareSpec hw = calibrate::calibrate(options);
    QVERIFY(calls > 0);
    QVERIFY(hw.calibration.has_value());
    const plan::HardwareCalibration& c = *hw.calibration;
    QCOMPARE(c.backend, std::string("gloo"));
    QCOMPARE(c.device, std::string("cpu"));
    QCOMPARE(c.cpuCores, 2);
    // --quick: 1 and 4 processes, 1 thread, fp32 and bf16, in each of the three layouts.
    QCOMPARE(c.matmul.size(), std::size_t{2 * 2 * 3});
    for (const auto& m : c.matmul) {
      QVERIFY2(m.flops > 1e7 && std::isfinite(m.flops), m.dtype.c_str());
    }
    for (auto layout : {plan::MatmulLayout::NN, plan::MatmulLayout::NT, plan::MatmulLayout::TN}) {
      QCOMPARE(std::count_if(c.matmul.begin(), c.matmul.end(), [&](const auto& m) { return m.layout == layout; }), 4);
    }
    QCOMPARE(c.elementwise.size(), std::size_t{2});    // per (processes, threads)
    QCOMPARE(c.optimizer.size(), std::size_t{2 * 2});  // adamw and sgd per (processes, threads)
    for (const auto& e : c.elementwise) {
      QVERIFY(e.secondsPerElement > 0 && e.secondsPerElement < 1e-5 && e.secondsPerCall > 0 && e.secondsPerCall < 1e-2);
    }
    for (const auto& o : c.optimizer) {
      QVERIFY2(o.secondsPerParameter > 0 && o.secondsPerParameter < 1e-5, o.name.c_str());
    }
    // Oversubscription: 4 single-threaded processes on 2 cores get at most half a core each; one alone gets a core.
    // (The factor 1.2, not 2, leaves room for another process on the machine during the test.)
    const double alone = c.matmulFlops("fp32", 1, 1);
    const double shared = c.matmulFlops("fp32", 4, 1);
    QVERIFY2(alone > 1.2 * shared,
             (std::to_string(alone) + " alone vs " + std::to_string(shared) + " per process of 4").c_str());
    QVERIFY(c.memoryCopyBandwidth > 1e8);
    QCOMPARE(c.collectives.size(), std::size_t{4 * 3});  // 4 kinds at 2, 3 and 4 ranks
    for (const auto& f : c.collectives) {
      QVERIFY(f.ranks >= 2 && f.ranks <= 4);
      QCOMPARE(f.points.size(), std::size_t{3});
      QVERIFY(f.alpha >= 0 && std::isfinite(f.alpha));
      QVERIFY(f.beta > 0 && std::isfinite(f.beta));
      for (const auto& p : f.points) {
        QVERIFY(p.seconds > 0 && p.seconds < 10);
      }
    }
    const plan::CollectiveFit* ar = c.collective(CollectiveKind::AllReduce, 4);
    QVERIFY(ar != nullptr);
    QCOMPARE(ar->points.front().bytes, 1024);
    QCOMPARE(ar->points.back().bytes, 1 << 20);
    // The profile's figures are the measurements.
    QCOMPARE(hw.gpusPerNode, 4);
    QCOMPARE(hw.peak.fp32, shared);
    QCOMPARE(hw.intraNode.bandwidth, ar->beta);
    QCOMPARE(hw.memoryBandwidth, c.memoryCopyBandwidth);
  }

  void oneProcessIsRefused() {
    calibrate::CalibrationOptions options;
    options.device = calibrate::CalibrationDevice::Cpu;
    options.maxProcesses = 1;
    options.workerCommand = {"unused"};
    try {
      calibrate::calibrate(options);
      QFAIL("calibrated with one process");
    } catch (const ConfigError& e) {
      QVERIFY2(std::string(e.what()).find("--max_processes must be >= 2") != std::string::npos, e.what());
    }
  }
};

int main(int argc, char** argv) {
  // The calibration's ranks: this executable started again by the launcher.
  if (argc == 4 && std::string_view(argv[1]) == "calibrate-worker" && std::string_view(argv[2]) == "--task") {
    try {
      return fathom::calibrate::runCalibrationWorker(argv[3]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
  }
  QCoreApplication app(argc, argv);
  TestCalibrateMeasure test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_calibrate_measure.moc"
