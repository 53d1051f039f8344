// SPDX-License-Identifier: Apache-2.0
// Planner inputs: shipped hardware presets, user hardware files, plan files (Fathom and Accelerate shapes), and
// the plan search.
#include "plan_test_support.h"

#include <fathom/common/error.h>
#include <fathom/plan/hardware.h>
#include <fathom/plan/plan_file.h>
#include <fathom/plan/search.h>

#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>
#include <fstream>

using namespace fathom::plan;

namespace {
void write(const QString& path, const std::string& text) {
  std::ofstream(path.toStdString()) << text;
}

/// parseHardware's error for `text` (as hw.yaml), or "accepted".
std::string message(const std::string& text) {
  try {
    parseHardware(text, "hw.yaml");
  } catch (const fathom::ConfigError& e) {
    return std::string(e.what());
  }
  return std::string("accepted");
}
}  // namespace

class TestPlanInputs : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { qunsetenv("FATHOM_HARDWARE_DIR"); }

  void presetsShip() {
    const auto names = hardwarePresetNames();
    for (const char* expected :
         {"a100-40gb", "a100-80gb", "cpu-host", "h100-sxm-80gb", "h200-141gb", "l4", "rtx-4090"}) {
      QVERIFY2(std::find(names.begin(), names.end(), expected) != names.end(), expected);
      const HardwareSpec hw = loadHardware(expected);  // validates every field
      QCOMPARE(QString::fromStdString(hw.name), QString::fromLatin1(expected));
    }
    const HardwareSpec h100 = loadHardware("h100");  // alias
    QCOMPARE(h100.name, std::string("h100-sxm-80gb"));
    QCOMPARE(h100.memoryBytes, 81559LL * 1024 * 1024);
    QCOMPARE(h100.peak.bf16, 989.4e12);
    QCOMPARE(h100.gpusPerNode, 8);
    QCOMPARE(loadHardware("a100-80gb").peak.bf16, 312e12);
    QCOMPARE(loadHardware("a100-80gb").peak.fp8, 0.0);
    // A rank of the CPU preset is a process; every other preset is a GPU (the default when `device` is absent).
    QVERIFY(loadHardware("cpu").device == DeviceKind::Cpu);
    QVERIFY(h100.device == DeviceKind::Gpu);
  }

  void userFilesAndOverride() {
    QTemporaryDir dir;
    const QString file = dir.filePath("mine.json");
    write(file, R"({"name": "mine", "memory_bytes": 1000, "peak_flops": {"fp32": 1e12, "bf16": 2e12},
      "memory_bandwidth": 1e11, "gpus_per_node": 4, "intra_node": {"bandwidth": 1e10, "latency": 1e-6},
      "inter_node": {"bandwidth": 1e9, "latency": 1e-5}})");
    QCOMPARE(loadHardware(file.toStdString()).gpusPerNode, 4);
    qputenv("FATHOM_HARDWARE_DIR", dir.path().toUtf8());
    QCOMPARE(loadHardware("mine").memoryBytes, 1000LL);
    try {
      loadHardware("h100");
      QFAIL("preset found outside FATHOM_HARDWARE_DIR");
    } catch (const fathom::ConfigError& e) {
      QVERIFY2(std::string(e.what()).find("unknown hardware 'h100'") != std::string::npos, e.what());
      QVERIFY2(std::string(e.what()).find("mine") != std::string::npos, e.what());
    }
    qunsetenv("FATHOM_HARDWARE_DIR");
  }

  void badHardwareNamesTheKey() {
    QVERIFY(message("name: x\n").find("missing 'memory_bytes'") != std::string::npos);
    QVERIFY(message("name: x\nmemory_bytes: lots\n").find("'memory_bytes' must be a number") != std::string::npos);
    QVERIFY(message("name: x\nmemory_bytes: 10\npeak_flops: {fp32: 1}\nmemory_bandwidth: 1\ngpus_per_node: 0\n"
                    "intra_node: {bandwidth: 1, latency: 0}\ninter_node: {bandwidth: 1, latency: 0}\n")
                .find("gpus_per_node must be >= 1, got 0") != std::string::npos);
    QVERIFY(message("name: x\ndevice: tpu\n").find("'device' must be gpu or cpu, got 'tpu'") != std::string::npos);
    // A description that is not UTF-8 text is refused at the door: `fathom plan --json` and the Studio write it into
    // JSON, where nlohmann threw type_error 316 (found by fuzz_hardware; tests/fuzz/regressions/hardware/).
    const std::string bytes = message("name: x\ndescription: \"a\xfc\"\nmemory_bytes: 10\npeak_flops: {fp32: 1}\n"
                                      "memory_bandwidth: 1\ngpus_per_node: 1\nintra_node: {bandwidth: 1, latency: 0}\n"
                                      "inter_node: {bandwidth: 1, latency: 0}\n");
    QVERIFY2(bytes.find("hw.yaml: 'description' is not UTF-8 text") != std::string::npos, bytes.c_str());
  }

  // Issue 20: a byte count that does not fit 64 bits is refused naming the file, line, key and value (1e30 bytes of
  // memory became -9223372036854775808 through a cast); so is a fraction of a byte, and a plan file's huge params.
  void hugeByteCountsAreRefused() {
    const std::string rest = "peak_flops: {fp32: 1}\nmemory_bandwidth: 1\ngpus_per_node: 8\n"
                             "intra_node: {bandwidth: 1, latency: 0}\ninter_node: {bandwidth: 1, latency: 0}\n";
    QCOMPARE(message("name: x\nmemory_bytes: 1e30\n" + rest),
             std::string("hw.yaml:2: 'memory_bytes': 1e+30 is out of range (allowed 0..9223372036854775807)"));
    QCOMPARE(
        message("name: x\nmemory_bytes: 9223372036854775808\n" + rest),  // 2^63: one past the end
        std::string("hw.yaml:2: 'memory_bytes': 9223372036854775808 is out of range (allowed 0..9223372036854775807)"));
    QCOMPARE(message("name: x\nmemory_bytes: 1000.5\n" + rest),
             std::string("hw.yaml:2: 'memory_bytes': 1000.5 is not a whole number"));
    QCOMPARE(message("name: x\nmemory_bytes: 1000\nhost_memory_bytes: -1e300\n" + rest),
             std::string("hw.yaml:3: 'host_memory_bytes': -1e+300 is out of range (allowed 0..9223372036854775807)"));
    QCOMPARE(message("name: x\nmemory_bytes: 1000\npeak_flops: {fp32: 1}\nmemory_bandwidth: 1\n"
                     "gpus_per_node: 4294967304\nintra_node: {bandwidth: 1, latency: 0}\n"
                     "inter_node: {bandwidth: 1, latency: 0}\n"),
             std::string("hw.yaml:5: 'gpus_per_node': 4294967304 is out of range (allowed 0..2147483647)"));

    QTemporaryDir dir;
    const QString file = dir.filePath("plan.yaml");
    write(file, "params: 1e30\n");
    try {
      loadPlanFile(file.toStdString());
      QFAIL("params 1e30 accepted");
    } catch (const fathom::ConfigError& e) {
      QVERIFY2(std::string(e.what()).find(": params: 1e+30 is out of range") != std::string::npos, e.what());
    }
  }

  void fathomPlanFile() {
    QTemporaryDir dir;
    const QString file = dir.filePath("plan.yaml");
    write(file, "strategy: fsdp\nfsdp_sharding_strategy: SHARD_GRAD_OP\nnum_gpus: 16\nmicro_batch: 4\n"
                "precision: bf16\nrecompute: selective\nhf_config: cfg/config.json\nhardware: a100-80gb\n");
    const PlanInputs in = loadPlanFile(file.toStdString());
    QVERIFY(in.plan.strategy == Strategy::Fsdp);
    QVERIFY(in.plan.fsdpSharding == FsdpSharding::ShardGradOp);
    // Accelerate's spelling of torch's _HYBRID_SHARD_ZERO2 reaches the planner from a plan file too.
    write(file,
          "strategy: fsdp\nfsdp_sharding_strategy: HYBRID_SHARD_ZERO2\nnum_gpus: 16\nhf_config: cfg/config.json\n");
    QVERIFY(loadPlanFile(file.toStdString()).plan.fsdpSharding == FsdpSharding::HybridShardZero2);
    QCOMPARE(in.plan.numGpus, 16);
    QCOMPARE(in.plan.microBatch, 4);
    QVERIFY(in.plan.recompute == Recompute::Selective);
    QCOMPARE(QString::fromStdString(in.hfConfig), dir.filePath("cfg/config.json"));
    QCOMPARE(in.hardware, std::string("a100-80gb"));
    write(file, "strategy: fsdp\nnum_gpu: 16\n");
    try {
      loadPlanFile(file.toStdString());
      QFAIL("a misspelt key was accepted");
    } catch (const fathom::ConfigError& e) {
      QVERIFY2(std::string(e.what()).find("unknown key 'num_gpu'") != std::string::npos, e.what());
    }
  }

  void accelerateConfigFile() {
    QTemporaryDir dir;
    const QString file = dir.filePath("default_config.yaml");
    write(file, "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nnum_machines: 2\nnum_processes: 16\n"
                "mixed_precision: bf16\ndeepspeed_config:\n  zero_stage: 3\n  offload_optimizer_device: cpu\n"
                "  offload_param_device: none\n  gradient_accumulation_steps: 4\nfathom:\n  planner:\n    arch: llama\n"
                "    layers: 32\n    hidden: 4096\n    heads: 32\n    vocab: 32000\n");
    const PlanInputs in = loadPlanFile(file.toStdString());
    QVERIFY(in.plan.strategy == Strategy::Zero3);
    QCOMPARE(in.plan.numGpus, 16);
    QCOMPARE(in.plan.gpusPerNode, 8);
    QCOMPARE(in.plan.gradAccum, 4);
    QVERIFY(in.plan.offloadOptimizer);
    QVERIFY(!in.plan.offloadParams);
    QVERIFY(in.plan.bytes == BytesConvention::DeepSpeed);
    QVERIFY(in.dims.has_value());
    QCOMPARE(modelFromDims(*in.dims).totalParams, 6'738'415'616LL);
  }

  void searchRanksFittingPlans() {
    auto hw = plantest::bigDevice();
    hw.memoryBytes = 40'000'000'000LL;
    TransformerDims d;
    d.arch = Arch::Llama;
    d.layers = 32;
    d.hidden = 4096;
    d.heads = 32;
    d.vocab = 32000;
    d.tiedEmbeddings = false;
    const ModelSpec model = modelFromDims(d);
    Plan base;
    base.numGpus = 16;
    base.seqLen = 4096;
    SearchOptions opt;
    opt.limit = 1000;
    const SearchOutcome out = search(model, hw, base, opt);
    QVERIFY(out.evaluated > 100);
    QVERIFY(out.fitting > 0 && out.fitting < out.evaluated);
    QCOMPARE(out.results.size(), static_cast<std::size_t>(out.fitting));
    for (std::size_t i = 0; i < out.results.size(); ++i) {
      QVERIFY(out.results[i].prediction.fits);
      QVERIFY(out.results[i].prediction.memory.total <= 40e9);
      if (i > 0) {
        QVERIFY(out.results[i - 1].prediction.time.tokensPerS >= out.results[i].prediction.time.tokensPerS);
      }
    }
    // 7B with Adam on 16 x 40 GB: plain DDP cannot fit (18 B/param = 121 GB), so the best plan shards something.
    QVERIFY(!out.results.empty());  // the loops below check something only when there is something to walk
    for (const auto& r : out.results) {
      QVERIFY(!(r.plan.strategy == Strategy::Ddp && r.plan.tp == 1 && r.plan.pp == 1));
    }
    // A fixed global batch pins the accumulation steps.
    opt.globalBatch = 64;
    const SearchOutcome pinned = search(model, hw, base, opt);
    QVERIFY(!pinned.results.empty());
    for (const auto& r : pinned.results) {
      QCOMPARE(r.plan.microBatch * r.plan.gradAccum * r.prediction.dataParallel, 64);
    }
  }
};

QTEST_GUILESS_MAIN(TestPlanInputs)
#include "tst_plan_inputs.moc"
