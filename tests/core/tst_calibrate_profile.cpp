// SPDX-License-Identifier: Apache-2.0
// `fathom calibrate`'s arithmetic and files, without measuring: the alpha-beta fit on synthetic points, the profile
// derived from a calibration, its YAML round trip, every bad value of the `calibration:` section (a ConfigError
// naming the key), and where `--hardware this-machine` looks.
#include "env_guard.h"

#include <fathom/calibrate/alpha_beta_fit.h>
#include <fathom/calibrate/calibrate.h>
#include <fathom/common/error.h>
#include <fathom/plan/hardware.h>

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

using namespace fathom;
using plan::CollectiveKind;
using test::EnvGuard;

namespace {

/// A calibration as a 2-core machine might measure it (figures of the kind this machine gives, not a claim).
plan::HardwareCalibration sampleCalibration() {
  plan::HardwareCalibration c;
  c.measuredAt = "2026-11-28T04:50:12Z";
  c.host = "box";
  c.device = "cpu";
  c.deviceName = "Some CPU";
  c.backend = "gloo";
  c.mode = "quick";
  c.cpuCores = 2;
  c.seconds = 3.5;
  c.matmul = {{"fp32", plan::MatmulLayout::NN, 1, 1, 256, 256, 1024, 6e9},
              {"fp32", plan::MatmulLayout::NN, 1, 2, 256, 256, 1024, 11e9},
              {"fp32", plan::MatmulLayout::NN, 2, 1, 256, 256, 1024, 5.5e9},
              {"fp32", plan::MatmulLayout::NN, 2, 2, 256, 256, 1024, 3e9},
              {"bf16", plan::MatmulLayout::NN, 1, 1, 256, 256, 1024, 2e11},
              {"bf16", plan::MatmulLayout::NN, 2, 1, 256, 256, 1024, 1.5e11},
              {"fp32", plan::MatmulLayout::NT, 1, 1, 256, 256, 1024, 2.6e9}};
  c.elementwise = {{1, 1, 1.5e-9, 8e-7}, {2, 1, 2e-9, 9e-7}};
  c.optimizer = {{"adamw", 1, 1, 2e-9}, {"sgd", 1, 1, 3e-10}};
  c.memoryCopyBandwidth = 2e10;
  c.memoryAddBandwidth = 1.8e10;
  std::vector<plan::CollectivePoint> points;
  for (std::int64_t b = 1024; b <= (64 << 20); b *= 4) {
    points.push_back({b, 1e-4 + static_cast<double>(b) / 2e9});
  }
  for (auto kind : {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
                    CollectiveKind::Broadcast}) {
    c.collectives.push_back(calibrate::fitAlphaBeta(kind, 2, points));
  }
  return c;
}

calibrate::MachineFacts sampleFacts() {
  return {.processesPerNode = 2,
          .memoryBytes = 8LL << 30,
          .hostMemoryBytes = 8LL << 30,
          .frameworkOverheadBytes = 150 << 20};
}

std::string sampleYaml() {
  return plan::formatHardwareYaml(calibrate::profileFromCalibration(sampleCalibration(), sampleFacts()));
}

/// `yaml` with the first line containing `from` replaced by `to` (a whole line, indentation kept by the caller).
std::string replaceLine(std::string yaml, const std::string& from, const std::string& to) {
  const auto at = yaml.find(from);
  if (at == std::string::npos) {
    return "(no line with " + from + ")";
  }
  const auto begin = yaml.rfind('\n', at) + 1;
  const auto end = yaml.find('\n', at);
  return yaml.replace(begin, end - begin, to);
}

std::string parseError(const std::string& yaml) {
  try {
    plan::parseHardware(yaml, "hw.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

class TestCalibrateProfile : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { qunsetenv("FATHOM_HARDWARE_DIR"); }

  void fitRecoversExactAlphaBeta_data() {
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("ranks");
    for (int k = 0; k < 4; ++k) {
      for (int ranks : {2, 4, 8}) {
        QTest::addRow("%s, %d ranks", plan::toString(static_cast<CollectiveKind>(k)), ranks) << k << ranks;
      }
    }
  }
  void fitRecoversExactAlphaBeta() {
    QFETCH(int, kind);
    QFETCH(int, ranks);
    const auto k = static_cast<CollectiveKind>(kind);
    const double alpha = 35e-6;
    const double beta = 3.2e9;
    std::vector<plan::CollectivePoint> points;
    for (std::int64_t b = 64LL << 20; b >= 1024; b /= 2) {  // given in decreasing order: the fit sorts them
      points.push_back({b, alpha + plan::busBandwidthFactor(k, ranks) * static_cast<double>(b) / beta});
    }
    const plan::CollectiveFit fit = calibrate::fitAlphaBeta(k, ranks, points);
    QVERIFY2(std::abs(fit.alpha - alpha) / alpha < 1e-6, std::to_string(fit.alpha).c_str());
    QVERIFY2(std::abs(fit.beta - beta) / beta < 1e-6, std::to_string(fit.beta).c_str());
    QCOMPARE(fit.points.size(), points.size());
    QCOMPARE(fit.points.front().bytes, 1024);
    QVERIFY(calibrate::maxRelativeError(fit) < 1e-6);
  }

  void fitWeighsEverySizeAlike() {
    // 10% noise alternating in sign: the relative-error fit keeps every point within about 10%; the small messages
    // still decide alpha, though the 64 MiB times are 10^4 times larger.
    std::vector<plan::CollectivePoint> points;
    int i = 0;
    for (std::int64_t b = 1024; b <= (64 << 20); b *= 4, ++i) {
      const double exact = 50e-6 + static_cast<double>(b) / 1e9;
      points.push_back({b, exact * (i % 2 == 0 ? 1.1 : 0.9)});
    }
    const auto fit = calibrate::fitAlphaBeta(CollectiveKind::Broadcast, 2, points);
    QVERIFY2(fit.alpha > 40e-6 && fit.alpha < 60e-6, std::to_string(fit.alpha).c_str());
    QVERIFY2(fit.beta > 0.9e9 && fit.beta < 1.1e9, std::to_string(fit.beta).c_str());
    QVERIFY(calibrate::maxRelativeError(fit) < 0.15);
  }

  void fitNeverGivesNegativeLatency() {
    // Times that grow faster than linearly (a cache falling off) pull a free line below zero at size 0.
    const std::vector<plan::CollectivePoint> points{{1024, 1e-6}, {1 << 20, 1e-3}, {64 << 20, 0.5}};
    const auto fit = calibrate::fitAlphaBeta(CollectiveKind::AllReduce, 2, points);
    QCOMPARE(fit.alpha, 0.0);
    QVERIFY(fit.beta > 0 && std::isfinite(fit.beta));
  }

  void fitFollowsAChangeOfAlgorithm() {
    // Gloo's all_reduce on this machine: per byte slower above a few MiB. One line misses the ends by tens of
    // percent; the piecewise fit follows both regimes.
    std::vector<plan::CollectivePoint> points;
    const double f = plan::busBandwidthFactor(CollectiveKind::AllReduce, 2);
    for (std::int64_t b = 1024; b <= (64 << 20); b *= 4) {
      const double t =
          b <= (1 << 20) ? 200e-6 + f * static_cast<double>(b) / 2e9 : 2e-3 + f * static_cast<double>(b) / 0.7e9;
      points.push_back({b, t});
    }
    const auto fit = calibrate::fitAlphaBeta(CollectiveKind::AllReduce, 2, points);
    QVERIFY(fit.segments.size() >= 2);
    QCOMPARE(fit.segments.front().fromBytes, 1024);
    for (std::size_t i = 1; i < fit.segments.size(); ++i) {
      QVERIFY(fit.segments[i].fromBytes > fit.segments[i - 1].fromBytes);
    }
    QVERIFY2(calibrate::maxRelativeError(fit) < 0.02, std::to_string(calibrate::maxRelativeError(fit)).c_str());
    // The whole range's line stays what it was (the profile's link figures come from it), and misses by far more.
    plan::CollectiveFit line = fit;
    line.segments.clear();
    QVERIFY(calibrate::maxRelativeError(line) > 0.10);
    // Another group size: the latency scales with the ring's steps, the bus bandwidth carries over.
    const double at4 = fit.predictSeconds(1024.0, 4);
    QVERIFY2(at4 > 2.5 * 200e-6 && at4 < 3.5 * 200e-6, std::to_string(at4).c_str());
  }

  void segmentsRoundTripAndAreChecked() {
    plan::HardwareCalibration c = sampleCalibration();
    c.collectives[0].segments = {{1024, 1e-4, 2e9}, {3 << 20, 1e-3, 0.7e9}};
    const plan::HardwareSpec hw = calibrate::profileFromCalibration(c, sampleFacts());
    const std::string yaml = plan::formatHardwareYaml(hw);
    const plan::HardwareSpec back = plan::parseHardware(yaml, "rt.yaml");
    QCOMPARE(back.calibration->collectives[0].segments.size(), std::size_t{2});
    QCOMPARE(back.calibration->collectives[0].segments[1].fromBytes, 3 << 20);
    QCOMPARE(back.calibration->collectives[0].segments[1].beta, 0.7e9);
    QCOMPARE(back.calibration->collectives[0].predictSeconds(64 << 20), c.collectives[0].predictSeconds(64 << 20));
    const std::string bad = replaceLine(yaml, "{from_bytes: 3145728", "        - {from_bytes: 512, alpha: 1, beta: 1}");
    const std::string error = parseError(bad);
    QVERIFY2(error.find("'calibration.collectives[0].segments[1].from_bytes' must grow") != std::string::npos,
             error.c_str());
    const std::string zero =
        replaceLine(yaml, "{from_bytes: 3145728", "        - {from_bytes: 4096, alpha: 1, beta: 0}");
    QVERIFY2(parseError(zero).find("'calibration.collectives[0].segments[1].beta' must be a finite number > 0") !=
                 std::string::npos,
             parseError(zero).c_str());
  }

  void checkComparesEveryMeasuredPoint() {
    const plan::HardwareCalibration profile = sampleCalibration();
    plan::HardwareCalibration later = sampleCalibration();
    for (auto& point : later.collectives[1].points) {
      point.seconds *= 1.25;  // all_gather a quarter slower now
    }
    later.collectives.push_back(later.collectives[0]);
    later.collectives.back().ranks = 3;  // not in the profile: not checked
    const auto checks = calibrate::checkFits(profile, later);
    QCOMPARE(checks.size(), 4 * profile.collectives[0].points.size());
    double worstGather = 0.0;
    for (const auto& check : checks) {
      QCOMPARE(check.ranks, 2);
      if (check.kind == CollectiveKind::AllGather) {
        worstGather = std::max(worstGather, std::abs(check.error()));
      }
    }
    QVERIFY2(worstGather > 0.15 && worstGather < 0.25, std::to_string(worstGather).c_str());
  }

  void fitRefusesTooLittle() {
    QVERIFY_THROWS_EXCEPTION(ConfigError, calibrate::fitAlphaBeta(CollectiveKind::AllReduce, 2, {{1024, 1e-4}}));
    QVERIFY_THROWS_EXCEPTION(ConfigError,
                             calibrate::fitAlphaBeta(CollectiveKind::AllReduce, 2, {{1024, 1e-4}, {1024, 2e-4}}));
    QVERIFY_THROWS_EXCEPTION(ConfigError,
                             calibrate::fitAlphaBeta(CollectiveKind::AllReduce, 1, {{1024, 1e-4}, {4096, 2e-4}}));
    QVERIFY_THROWS_EXCEPTION(ConfigError,
                             calibrate::fitAlphaBeta(CollectiveKind::AllReduce, 2, {{1024, 0.0}, {4096, 2e-4}}));
  }

  void profileComesFromTheMeasurements() {
    const plan::HardwareSpec hw = calibrate::profileFromCalibration(sampleCalibration(), sampleFacts());
    QCOMPARE(hw.name, std::string("this-machine"));
    QVERIFY(hw.device == plan::DeviceKind::Cpu);
    QCOMPARE(hw.gpusPerNode, 2);
    // The node full: 2 processes on 2 cores, 1 thread each.
    QCOMPARE(hw.peak.fp32, 5.5e9);
    QCOMPARE(hw.peak.bf16, 1.5e11);
    QCOMPARE(hw.peak.fp16, 0.0);
    QCOMPARE(hw.memoryBandwidth, 2e10);
    const plan::CollectiveFit* ar = hw.calibration->collective(CollectiveKind::AllReduce, 2);
    QVERIFY(ar != nullptr);
    QCOMPARE(hw.intraNode.bandwidth, ar->beta);
    QCOMPARE(hw.intraNode.latency, ar->alpha / 2.0);  // 2(N-1) ring steps at N = 2
    QCOMPARE(hw.interNode.bandwidth, hw.intraNode.bandwidth);
    QCOMPARE(hw.frameworkOverheadBytes, 150LL << 20);
  }

  void yamlRoundTrips() {
    const plan::HardwareSpec hw = calibrate::profileFromCalibration(sampleCalibration(), sampleFacts());
    const plan::HardwareSpec back = plan::parseHardware(plan::formatHardwareYaml(hw), "rt.yaml");
    QCOMPARE(back.name, hw.name);
    QVERIFY(back.device == plan::DeviceKind::Cpu);
    QCOMPARE(back.peak.fp32, hw.peak.fp32);
    QCOMPARE(back.peak.bf16, hw.peak.bf16);
    QCOMPARE(back.memoryBandwidth, hw.memoryBandwidth);
    QCOMPARE(back.intraNode.latency, hw.intraNode.latency);
    QCOMPARE(back.memoryBytes, hw.memoryBytes);
    QVERIFY(back.calibration.has_value());
    const auto& c = *back.calibration;
    const auto& o = *hw.calibration;
    QCOMPARE(c.measuredAt, o.measuredAt);
    QCOMPARE(c.host, o.host);
    QCOMPARE(c.matmul.size(), o.matmul.size());
    QCOMPARE(c.matmul[3].flops, o.matmul[3].flops);
    QCOMPARE(c.matmul[3].threads, 2);
    QCOMPARE(c.matmul.back().layout, plan::MatmulLayout::NT);
    QCOMPARE(c.matmul.back().flops, 2.6e9);
    QCOMPARE(c.elementwise.size(), std::size_t{2});
    QCOMPARE(c.elementwise[1].processes, 2);
    QCOMPARE(c.elementwise[1].secondsPerElement, 2e-9);
    QCOMPARE(c.elementwise[1].secondsPerCall, 9e-7);
    QCOMPARE(c.optimizer.size(), std::size_t{2});
    QCOMPARE(c.optimizer[1].name, std::string("sgd"));
    QCOMPARE(c.optimizer[1].secondsPerParameter, 3e-10);
    QCOMPARE(c.memoryAddBandwidth, o.memoryAddBandwidth);
    QCOMPARE(c.collectives.size(), std::size_t{4});
    QCOMPARE(c.collectives[2].kind, CollectiveKind::ReduceScatter);
    QCOMPARE(c.collectives[2].alpha, o.collectives[2].alpha);
    QCOMPARE(c.collectives[2].points.size(), o.collectives[2].points.size());
    QCOMPARE(c.collectives[2].points.back().seconds, o.collectives[2].points.back().seconds);
  }

  void badCalibrationNamesTheKey_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not a map") << "calibration:"
                               << "calibration: 3\nx:"
                               << "'calibration' must be a map";
    QTest::newRow("measured_at missing") << "measured_at:"
                                         << "  host0: x"
                                         << "'calibration.measured_at' is missing";
    QTest::newRow("measured_at not UTC") << "measured_at:"
                                         << "  measured_at: yesterday"
                                         << "'calibration.measured_at' must be a UTC time";
    QTest::newRow("device") << "  device: cpu"
                            << "  device: tpu"
                            << "'calibration.device' must be one of cpu, cuda";
    QTest::newRow("backend") << "backend:"
                             << "  backend: mpi"
                             << "'calibration.backend' must be one of gloo, nccl";
    QTest::newRow("mode") << "mode:"
                          << "  mode: fast"
                          << "'calibration.mode' must be one of";
    QTest::newRow("cpu_cores zero") << "cpu_cores:"
                                    << "  cpu_cores: 0"
                                    << "'calibration.cpu_cores'";
    QTest::newRow("seconds negative") << "  seconds:"
                                      << "  seconds: -1"
                                      << "'calibration.seconds' must be a finite";
    QTest::newRow("matmul empty") << "  matmul:"
                                  << "  matmul: []\n  ignored:"
                                  << "'calibration.matmul' must be a non-empty list";
    QTest::newRow("dtype") << "{dtype: fp32, layout: nn, processes: 1, threads: 1"
                           << "    - {dtype: int4, processes: 1, threads: 1, m: 1, k: 1, n: 1, flops: 1}"
                           << "'calibration.matmul[0].dtype' must be one of fp32";
    QTest::newRow("flops negative") << "{dtype: fp32, layout: nn, processes: 1, threads: 1"
                                    << "    - {dtype: fp32, processes: 1, threads: 1, m: 1, k: 1, n: 1, flops: -5}"
                                    << "'calibration.matmul[0].flops' must be a finite number > 0";
    QTest::newRow("flops infinite") << "{dtype: fp32, layout: nn, processes: 1, threads: 1"
                                    << "    - {dtype: fp32, processes: 1, threads: 1, m: 1, k: 1, n: 1, flops: .inf}"
                                    << "'calibration.matmul[0].flops' must be a finite number";
    QTest::newRow("processes zero") << "{dtype: fp32, layout: nn, processes: 1, threads: 1"
                                    << "    - {dtype: fp32, processes: 0, threads: 1, m: 1, k: 1, n: 1, flops: 1}"
                                    << "'calibration.matmul[0].processes'";
    QTest::newRow("shape fraction") << "{dtype: fp32, layout: nn, processes: 1, threads: 1"
                                    << "    - {dtype: fp32, processes: 1, threads: 1, m: 1.5, k: 1, n: 1, flops: 1}"
                                    << "'calibration.matmul[0].m'";
    QTest::newRow("layout") << "{dtype: fp32, layout: nn, processes: 1, threads: 1"
                            << "    - {dtype: fp32, layout: tt, processes: 1, threads: 1, m: 1, k: 1, n: 1, flops: 1}"
                            << "'calibration.matmul[0].layout' must be one of nn, nt, tn, got 'tt'";
    QTest::newRow("elementwise not a list") << "  elementwise:"
                                            << "  elementwise: 3\n  other:"
                                            << "'calibration.elementwise' must be a list of measured rates";
    QTest::newRow("seconds_per_element zero")
        << "{processes: 1, threads: 1, seconds_per_element:"
        << "    - {processes: 1, threads: 1, seconds_per_element: 0, seconds_per_call: 1e-6}"
        << "'calibration.elementwise[0].seconds_per_element' must be a finite number > 0";
    QTest::newRow("seconds_per_call missing") << "{processes: 1, threads: 1, seconds_per_element:"
                                              << "    - {processes: 1, threads: 1, seconds_per_element: 1e-9}"
                                              << "'calibration.elementwise[0].seconds_per_call' is missing";
    QTest::newRow("optimizer name") << "{name: adamw"
                                    << "    - {name: lion, processes: 1, threads: 1, seconds_per_parameter: 1e-9}"
                                    << "'calibration.optimizer[0].name' must be one of adamw, sgd, got 'lion'";
    QTest::newRow("optimizer threads zero")
        << "{name: adamw"
        << "    - {name: adamw, processes: 1, threads: 0, seconds_per_parameter: 1e-9}"
        << "'calibration.optimizer[0].threads'";
    QTest::newRow("memory not a map") << "  memory_bandwidth:"
                                      << "  memory_bandwidth: 5\n  other:"
                                      << "'calibration.memory_bandwidth' must be a map";
    QTest::newRow("copy zero") << "    copy:"
                               << "    copy: 0"
                               << "'calibration.memory_bandwidth.copy' must be";
    QTest::newRow("kind") << "- kind: all_reduce"
                          << "    - kind: all_to_all"
                          << "'calibration.collectives[0].kind' must be all_reduce";
    QTest::newRow("ranks one") << "ranks: 2"
                               << "      ranks: 1"
                               << "'calibration.collectives[0].ranks'";
    QTest::newRow("alpha NaN") << "alpha:"
                               << "      alpha: .nan"
                               << "'calibration.collectives[0].alpha' must be a finite number >= 0";
    QTest::newRow("beta text") << "beta:"
                               << "      beta: fast"
                               << "'calibration.collectives[0].beta' must be a number, got 'fast'";
    QTest::newRow("point not a pair") << "        - [1024,"
                                      << "        - [1024]"
                                      << "'calibration.collectives[0].points[0]' must be a [bytes, seconds] pair";
    QTest::newRow("point zero time") << "        - [1024,"
                                     << "        - [1024, 0]"
                                     << "'calibration.collectives[0].points[0][1]' must be a finite number > 0";
    QTest::newRow("repeated fit") << "- kind: all_gather"
                                  << "    - kind: all_reduce"
                                  << "'calibration.collectives[1]' repeats all_reduce at 2 ranks";
  }
  void badCalibrationNamesTheKey() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, expected);
    const std::string yaml = replaceLine(sampleYaml(), from.toStdString(), to.toStdString());
    const std::string error = parseError(yaml);
    QVERIFY2(error.find(expected.toStdString()) != std::string::npos, (error + "\n---\n" + yaml).c_str());
    QVERIFY2(error.rfind("hw.yaml", 0) == 0, error.c_str());
  }

  void filesBeforeTheTimeModelStillLoad() {
    // Written before layouts, element-wise and optimizer rates were measured: nn products, no other rates.
    std::string yaml = sampleYaml();
    for (const char* key : {"  elementwise:", "  optimizer:"}) {
      // The key's line and its list items (the lines indented deeper).
      const auto at = yaml.find(key);
      QVERIFY(at != std::string::npos);
      auto next = yaml.find('\n', at);
      while (next != std::string::npos && yaml.compare(next + 1, 4, "    ") == 0) {
        next = yaml.find('\n', next + 1);
      }
      yaml.erase(at, next - at + 1);
    }
    std::string::size_type layout;
    while ((layout = yaml.find("layout: nn, ")) != std::string::npos) {
      yaml.erase(layout, std::string("layout: nn, ").size());
    }
    const plan::HardwareSpec hw = plan::parseHardware(yaml, "old.yaml");
    QVERIFY(hw.calibration->elementwise.empty());
    QVERIFY(hw.calibration->optimizer.empty());
    QCOMPARE(hw.calibration->matmul.front().layout, plan::MatmulLayout::NN);
  }

  void thisMachineIsFoundInTheUserFolder() {
    QTemporaryDir config;
    const EnvGuard xdg("XDG_CONFIG_HOME", config.path().toStdString());
    QCOMPARE(plan::userHardwareDir().string(), config.path().toStdString() + "/fathom/hardware");
    try {
      plan::loadHardware("this-machine");
      QFAIL("loaded a profile that does not exist");
    } catch (const ConfigError& e) {
      QVERIFY2(std::string(e.what()).find("run `fathom calibrate`") != std::string::npos, e.what());
    }
    QVERIFY(plan::userHardwareProfiles().empty());

    const plan::HardwareSpec hw = calibrate::profileFromCalibration(sampleCalibration(), sampleFacts());
    calibrate::writeHardwareProfile(hw, calibrate::defaultProfilePath());
    QCOMPARE(calibrate::defaultProfilePath().string(),
             config.path().toStdString() + "/fathom/hardware/this-machine.yaml");
    const plan::HardwareSpec loaded = plan::loadHardware("this-machine");
    QCOMPARE(loaded.peak.fp32, hw.peak.fp32);
    QVERIFY(loaded.calibration.has_value());
    // A shipped preset's name always means the preset, even when the user folder has a file of that name.
    std::ofstream(config.path().toStdString() + "/fathom/hardware/cpu-host.yaml") << "not: a profile\n";
    QCOMPARE(plan::loadHardware("cpu-host").peak.fp32, 5.1e12);

    const auto profiles = plan::userHardwareProfiles();
    QCOMPARE(profiles.size(), std::size_t{2});
    QCOMPARE(profiles[0].name, std::string("cpu-host"));
    QVERIFY(!profiles[0].error.empty());  // listed with its error, not thrown
    QCOMPARE(profiles[1].name, std::string("this-machine"));
    QCOMPARE(profiles[1].measuredAt, std::string("2026-11-28T04:50:12Z"));
    QVERIFY(profiles[1].error.empty());
  }

  void profileWrittenOnTheDevelopmentMachineLoads() {
    // tests/data/hardware/this-machine-quick.yaml: `fathom calibrate --quick` on the 2-core development VM.
    const plan::HardwareSpec hw = plan::loadHardware(FATHOM_TEST_DATA_DIR "/hardware/this-machine-quick.yaml");
    QCOMPARE(hw.name, std::string("this-machine"));
    QVERIFY(hw.device == plan::DeviceKind::Cpu);
    QVERIFY(hw.calibration.has_value());
    QCOMPARE(hw.calibration->mode, std::string("quick"));
    QCOMPARE(hw.calibration->collectives.size(), std::size_t{4});
    QCOMPARE(hw.calibration->collectives[0].points.size(), std::size_t{4});
    // The written figures are the ones profileFromCalibration derives from the section.
    const plan::HardwareSpec again =
        calibrate::profileFromCalibration(*hw.calibration, {.processesPerNode = hw.gpusPerNode,
                                                            .memoryBytes = hw.memoryBytes,
                                                            .hostMemoryBytes = hw.hostMemoryBytes,
                                                            .frameworkOverheadBytes = hw.frameworkOverheadBytes});
    QCOMPARE(again.peak.fp32, hw.peak.fp32);
    QCOMPARE(again.peak.bf16, hw.peak.bf16);
    QCOMPARE(again.intraNode.bandwidth, hw.intraNode.bandwidth);
    QCOMPARE(again.intraNode.latency, hw.intraNode.latency);
    QCOMPARE(again.memoryBandwidth, hw.memoryBandwidth);
  }

  void presetsStillLoadWithoutCalibration() {
    const plan::HardwareSpec h = plan::loadHardware("cpu-host");
    QVERIFY(!h.calibration.has_value());
    // And a preset survives formatHardwareYaml too (no calibration key written).
    const std::string yaml = plan::formatHardwareYaml(h);
    QVERIFY(yaml.find("calibration") == std::string::npos);
    QCOMPARE(plan::parseHardware(yaml, "p.yaml").peak.bf16, h.peak.bf16);
  }
};

QTEST_GUILESS_MAIN(TestCalibrateProfile)
#include "tst_calibrate_profile.moc"
