// SPDX-License-Identifier: Apache-2.0
// config::RunSpec: read from Accelerate's templates and written back over them, checked at the front door, and the
// one value the launcher, the FSDP/ZeRO engines' variables and the planner all read, so every precedence level
// (default, file, environment, command line) reaches the planner exactly as it reaches the workers.
#include "error_helpers.h"

#include <fathom/common/error.h>
#include <fathom/config/config_reader.h>
#include <fathom/config/config_writer.h>
#include <fathom/config/run_spec.h>
#include <fathom/launch/launch_config.h>
#include <fathom/launch/worker_environment.h>
#include <fathom/parallel/fsdp_options.h>
#include <fathom/plan/plan_file.h>
#include <fathom/telemetry/run_monitor.h>

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <map>

using namespace fathom;
using config::RunSpec;
using namespace Qt::StringLiterals;

namespace {

using fathom::test::messageOf;

QString templatesDir() {
  return QStringLiteral(FATHOM_TEST_DATA_DIR "/accelerate_templates");
}

std::map<std::string, std::string> workerEnvironment(const launch::LaunchOptions& options) {
  launch::LaunchOptions o = options;
  o.command = {"true"};
  const auto vars = launch::workerVariables(o, {.localRank = 0, .masterPort = 29500}, std::nullopt);
  return {vars.begin(), vars.end()};
}

std::filesystem::path writeFile(const QTemporaryDir& dir, const char* name, const std::string& text) {
  const std::filesystem::path p = std::filesystem::path(dir.path().toStdString()) / name;
  std::ofstream(p) << text;
  return p;
}

}  // namespace

class TestRunSpec : public QObject {
  Q_OBJECT

private slots:
  void templatesRoundTrip_data() {
    QTest::addColumn<QString>("file");
    for (const QString& f : QDir(templatesDir()).entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name)) {
      QTest::newRow(qPrintable(f)) << templatesDir() + u'/' + f;
    }
  }

  // Accelerate's file stays the file format: written over the file it came from, the spec changes nothing, keys it
  // has no field for (fp8_config, rdzv_backend, same_network, ...) included; written alone it reads back the same.
  void templatesRoundTrip() {
    QFETCH(QString, file);
    const config::AccelerateConfig original = config::loadConfigFile(file.toStdString()).config;
    const RunSpec spec = config::runSpecFromConfig(original);
    const config::AccelerateConfig again = config::toConfig(spec, original);
    QVERIFY2(again == original, config::emitConfig(again).c_str());
    QVERIFY(config::runSpecFromConfig(config::toConfig(spec)) == spec);
    QVERIFY(config::runSpecFromConfig(config::parseConfig(config::emitConfig(again), "again").config) == spec);
  }

  void templatesAreTyped() {
    const auto load = [](const char* name) {
      return config::runSpecFromConfig(
          config::loadConfigFile((templatesDir() + u'/' + QLatin1String(name)).toStdString()).config);
    };
    const RunSpec fsdp = load("fsdp.yaml");
    QVERIFY(fsdp.distributedType == config::DistributedType::Fsdp);
    QVERIFY(fsdp.mixedPrecision == config::MixedPrecision::Bf16);
    QCOMPARE(fsdp.numProcesses, std::optional<int>(2));
    QVERIFY(fsdp.fsdp.shardingStrategy == config::FsdpShardingStrategy::FullShard);
    QVERIFY(fsdp.fsdp.autoWrapPolicy == config::FsdpWrapPolicy::TransformerBased);
    QVERIFY(fsdp.fsdp.stateDictType == config::FsdpStateDictType::ShardedStateDict);
    QCOMPARE(fsdp.fsdp.useOrigParams, std::optional<bool>(true));
    QVERIFY(!fsdp.fsdp.version.has_value());
    const RunSpec node = load("multi_node.yaml");
    QCOMPARE(node.mainProcessIp, std::optional<std::string>("1234"));
    QCOMPARE(node.mainProcessPort, std::optional<int>(9999));
    QCOMPARE(node.numMachines, 2);
    QCOMPARE(node.numProcesses, std::optional<int>(8));
    const RunSpec ds = load("deepspeed.yaml");
    QVERIFY(ds.distributedType == config::DistributedType::DeepSpeed);
    QCOMPARE(ds.deepspeed.configFile,
             std::optional<std::string>("../deepspeed_config_templates/zero_stage1_config.json"));
    QCOMPARE(ds.deepspeed.zero3InitFlag, std::optional<bool>(false));
    QVERIFY(!ds.deepspeed.zeroStage.has_value());
    const RunSpec fp8 = load("fp8.yaml");
    QVERIFY(fp8.mixedPrecision == config::MixedPrecision::Fp8);
  }

  // A spec edited field by field (as the wizard will) and saved over its file: the edited keys change, keys of
  // sections the spec no longer uses go, the rest of the file stays.
  void editedSpecWritesBack() {
    const config::AccelerateConfig original =
        config::loadConfigFile((templatesDir() + u"/fsdp.yaml"_s).toStdString()).config;
    RunSpec spec = config::runSpecFromConfig(original);
    spec.distributedType = config::DistributedType::DeepSpeed;
    spec.fsdp = {};
    spec.deepspeed.zeroStage = config::ZeroStage::Parameters;
    spec.deepspeed.offloadOptimizerDevice = config::OffloadDevice::Cpu;
    spec.gpuIds = std::vector<int>{0, 2};
    spec.fathom.trackers = {config::Tracker::Tensorboard};
    spec.fathom.profiler.enabled = true;
    const config::AccelerateConfig saved = config::toConfig(spec, original);
    QCOMPARE(saved.getString("distributed_type"), std::optional<std::string>("DEEPSPEED"));
    QCOMPARE(saved.getInt("deepspeed_config.zero_stage"), std::optional<std::int64_t>(3));
    QCOMPARE(saved.getString("deepspeed_config.offload_optimizer_device"), std::optional<std::string>("cpu"));
    QCOMPARE(saved.getString("gpu_ids"), std::optional<std::string>("0,2"));
    QCOMPARE(saved.getBool("fathom.profiler.enabled"), std::optional<bool>(true));
    QVERIFY(!saved.contains("fsdp_config.fsdp_sharding_strategy"));
    QCOMPARE(saved.getString("mixed_precision"), std::optional<std::string>("bf16"));
    QVERIFY(config::runSpecFromConfig(saved) == spec);

    // DefaultKeys::Write: a new file gets every top-level key `accelerate config` writes.
    const config::AccelerateConfig fresh = config::toConfig(RunSpec{}, {}, config::DefaultKeys::Write);
    for (const char* key :
         {"distributed_type", "mixed_precision", "use_cpu", "debug", "num_machines", "machine_rank", "num_processes"}) {
      QVERIFY2(fresh.contains(key), key);
    }
    QVERIFY(!config::toConfig(RunSpec{}).contains("mixed_precision"));
  }

  void frontDoorChecksNameTheKey() {
    config::AccelerateConfig c;
    c.set("distributed_type", std::string("MULTI_GPU"));
    c.set("num_processes", std::int64_t{0});
    QCOMPARE(messageOf([&] { config::runSpecFromConfig(c); }),
             std::string("num_processes must be >= 1, got 0 (num_processes)"));
    c.set("num_processes", std::int64_t{-1});
    QVERIFY(!config::runSpecFromConfig(c).numProcesses.has_value());
    c.set("gpu_ids", std::string("0,x"));
    QVERIFY(messageOf([&] { config::runSpecFromConfig(c); }).find("key 'gpu_ids': '0,x' is not `all`") !=
            std::string::npos);
    c.set("gpu_ids", std::string(" 0, 2"));
    QCOMPARE(config::runSpecFromConfig(c).gpuIds, std::optional(std::vector<int>{0, 2}));
    c.set("gpu_ids", std::string("all"));
    QCOMPARE(config::runSpecFromConfig(c).gpuIds, std::optional(std::vector<int>{}));

    // With provenance, the message says where the value came from.
    QTemporaryDir dir;
    config::ResolveInputs in;
    in.configFile = writeFile(dir, "c.yaml", "distributed_type: MULTI_GPU\nnum_processes: 0\n");
    in.environment = std::map<std::string, std::string>{};
    QVERIFY(messageOf([&] { config::runSpecFromConfig(config::resolveConfig(in)); }).find("c.yaml:2:16") !=
            std::string::npos);
  }

  // The done-when of issue 17: each precedence level decides what the workers get and what the planner plans, and
  // both read it from the one RunSpec. The FSDP engine's options come from the very variables the launcher sets.
  void everyLevelReachesThePlannerAsTheLauncher_data() {
    QTest::addColumn<QString>("level");
    QTest::addColumn<QString>("precision");  // the workers' ACCELERATE_MIXED_PRECISION
    QTest::addColumn<int>("processes");
    QTest::addColumn<QString>("sharding");  // FSDP_SHARDING_STRATEGY; "" when not FSDP
    QTest::addColumn<int>("accumulation");
    QTest::newRow("default") << u"default"_s << u"no"_s << 1 << QString() << 1;
    QTest::newRow("file") << u"file"_s << u"bf16"_s << 4 << u"SHARD_GRAD_OP"_s << 2;
    QTest::newRow("environment") << u"environment"_s << u"fp16"_s << 4 << u"NO_SHARD"_s << 3;
    // gradient_accumulation_steps keeps the environment's 3: ACCELERATE_GRADIENT_ACCUMULATION_STEPS wins over every
    // other level (Accelerate's rule, docs/config.md "Quirks"), for the planner as for the workers.
    QTest::newRow("command line") << u"command line"_s << u"no"_s << 8 << u"HYBRID_SHARD"_s << 3;
  }

  void everyLevelReachesThePlannerAsTheLauncher() {
    QFETCH(QString, level);
    QFETCH(QString, precision);
    QFETCH(int, processes);
    QFETCH(QString, sharding);
    QFETCH(int, accumulation);
    QTemporaryDir dir;
    config::ResolveInputs in;
    in.useDefaultConfigFile = false;
    in.environment = std::map<std::string, std::string>{};
    if (level != u"default"_s) {
      in.configFile = writeFile(dir, "run.yaml",
                                "distributed_type: FSDP\nmixed_precision: bf16\nnum_processes: 4\n"
                                "fsdp_config:\n  fsdp_sharding_strategy: SHARD_GRAD_OP\n"
                                "deepspeed_config:\n  gradient_accumulation_steps: 7\n"
                                "fathom:\n  planner:\n    gradient_accumulation_steps: 2\n");
    }
    if (level == u"environment"_s || level == u"command line"_s) {
      in.environment = std::map<std::string, std::string>{{"ACCELERATE_MIXED_PRECISION", "fp16"},
                                                          {"FSDP_SHARDING_STRATEGY", "NO_SHARD"},
                                                          {"ACCELERATE_GRADIENT_ACCUMULATION_STEPS", "3"}};
    }
    if (level == u"command line"_s) {
      in.commandLine = {{"mixed_precision", "no"},
                        {"num_processes", "8"},
                        {"fsdp_config.fsdp_sharding_strategy", "HYBRID_SHARD"},
                        {"gradient_accumulation_steps", "5"}};
    }
    const RunSpec spec = config::runSpecFromConfig(config::resolveConfig(in));
    const launch::LaunchOptions launched = launch::launchOptionsFromRunSpec(spec);
    const auto env = workerEnvironment(launched);
    const plan::PlanInputs planned = plan::planFromRunSpec(spec);

    QCOMPARE(QString::fromStdString(env.at("ACCELERATE_MIXED_PRECISION")), precision);
    QVERIFY(planned.plan.precision == config::kMixedPrecisions.parse(precision.toStdString()));
    QCOMPARE(launched.numProcesses, processes);
    QCOMPARE(planned.plan.numGpus, processes);
    // The file's num_processes run on its one machine; a world size from a flag alone is laid out by the hardware
    // preset (0: the preset's GPUs per node), as `fathom plan --num_processes N` always planned.
    QCOMPARE(planned.plan.gpusPerNode, level == u"file"_s || level == u"environment"_s ? 4 : 0);
    const int workersAccumulation = env.count("ACCELERATE_GRADIENT_ACCUMULATION_STEPS")
                                        ? std::stoi(env.at("ACCELERATE_GRADIENT_ACCUMULATION_STEPS"))
                                        : 1;
    if (level != u"file"_s) {
      QCOMPARE(workersAccumulation, accumulation);
    }
    QCOMPARE(planned.plan.gradAccum, accumulation);
    if (sharding.isEmpty()) {
      QVERIFY(!env.count("ACCELERATE_USE_FSDP"));
      QVERIFY(planned.plan.strategy == plan::Strategy::Ddp);
      return;
    }
    QCOMPARE(QString::fromStdString(env.at("FSDP_SHARDING_STRATEGY")), sharding);
    QVERIFY(planned.plan.strategy == plan::Strategy::Fsdp);
    // What the FSDP engine builds from the workers' variables is what the planner planned.
    const parallel::FsdpOptions engine =
        parallel::fsdpOptionsFromEnvironment([&env](const std::string& name) -> std::optional<std::string> {
          const auto it = env.find(name);
          return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
        });
    QVERIFY(engine.shardingStrategy == planned.plan.fsdpSharding);
  }

  // FSDP2's `fsdp_reshard_after_forward: false` keeps parameters gathered: the engine runs SHARD_GRAD_OP, and the
  // planner plans it (it used to plan FULL_SHARD).
  void reshardAfterForwardFalseIsShardGradOp() {
    config::AccelerateConfig c;
    c.set("distributed_type", std::string("FSDP"));
    c.set("num_processes", std::int64_t{2});
    c.set("fsdp_config.fsdp_version", std::int64_t{2});
    c.set("fsdp_config.fsdp_reshard_after_forward", false);
    const RunSpec spec = config::runSpecFromConfig(c);
    const auto env = workerEnvironment(launch::launchOptionsFromRunSpec(spec));
    const parallel::FsdpOptions engine =
        parallel::fsdpOptionsFromEnvironment([&env](const std::string& name) -> std::optional<std::string> {
          const auto it = env.find(name);
          return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
        });
    QVERIFY(engine.shardingStrategy == config::FsdpShardingStrategy::ShardGradOp);
    QVERIFY(plan::planFromRunSpec(spec).plan.fsdpSharding == config::FsdpShardingStrategy::ShardGradOp);
  }

  // gpu_ids become CUDA_VISIBLE_DEVICES; the fathom section travels to the workers as FATHOM_* variables and reads
  // back as the same settings (what `fathom train` does).
  void theWorkersGetGpuIdsAndTheFathomSection() {
    RunSpec spec;
    spec.distributedType = config::DistributedType::MultiGpu;
    spec.numProcesses = 2;
    spec.gpuIds = std::vector<int>{1, 3};
    spec.fathom.trackers = {config::Tracker::Tensorboard, config::Tracker::Csv};
    spec.fathom.projectDir = "/runs/p";
    spec.fathom.profiler.enabled = true;
    spec.fathom.profiler.activities = {config::ProfilerActivity::Cpu};
    spec.fathom.profiler.scheduleWait = 0;
    spec.fathom.profiler.scheduleActive = 2;
    spec.fathom.profiler.outputTraceDir = "traces";
    spec.fathom.profiler.recordShapes = true;
    const auto env = workerEnvironment(launch::launchOptionsFromRunSpec(spec));
    QCOMPARE(env.at("CUDA_VISIBLE_DEVICES"), std::string("1,3"));
    QCOMPARE(env.at("FATHOM_TRACKERS"), std::string("tensorboard,csv"));
    QCOMPARE(env.at("FATHOM_PROFILER__ENABLED"), std::string("true"));
    const config::FathomSpec back = config::workerSettingsFromEnvironment(env);
    QVERIFY(back.trackers == spec.fathom.trackers);
    QVERIFY(back.projectDir == spec.fathom.projectDir);
    QVERIFY(back.profiler == spec.fathom.profiler);
    QVERIFY(!workerEnvironment(launch::launchOptionsFromRunSpec(RunSpec{})).count("CUDA_VISIBLE_DEVICES"));
  }

  // The run monitor's keys: typed in the spec, written back only when set, defaults from config::MonitorSpec (what
  // the run monitor runs with when the file is silent); a negative number is refused wherever it comes from, naming
  // the file's line, the variable or the flag.
  void monitorSettings() {
    const RunSpec silent = config::runSpecFromConfig(config::parseConfig("distributed_type: 'NO'\n", "s.yaml").config);
    QVERIFY(silent.fathom.monitor == config::MonitorSpec{});
    QCOMPARE(silent.fathom.monitor.hangTimeoutSeconds(), config::MonitorSpec::kDefaultHangTimeoutSeconds);
    QVERIFY(!config::toConfig(silent).contains("fathom.hang_timeout"));
    const telemetry::MonitorOptions defaults = telemetry::MonitorOptions::fromSpec(silent.fathom.monitor);
    QCOMPARE(defaults.hangTimeout.count(), telemetry::MonitorOptions{}.hangTimeout.count());
    QCOMPARE(defaults.stragglerThreshold, telemetry::MonitorOptions{}.stragglerThreshold);
    QCOMPARE(defaults.stragglerThreshold, config::MonitorSpec::kDefaultStragglerThresholdPercent / 100.0);

    const config::AccelerateConfig file = config::parseConfig("distributed_type: 'NO'\nfathom:\n  hang_timeout: 90\n"
                                                              "  straggler_threshold: 12.5\n  hang_action: abort\n",
                                                              "m.yaml")
                                              .config;
    const RunSpec spec = config::runSpecFromConfig(file);
    QCOMPARE(spec.fathom.monitor.hangTimeout, std::optional<double>(90));
    QCOMPARE(spec.fathom.monitor.stragglerThreshold, std::optional<double>(12.5));
    QVERIFY(spec.fathom.monitor.hangAction == config::HangAction::Abort);
    QVERIFY(config::toConfig(spec, file) == file);
    const telemetry::MonitorOptions options = telemetry::MonitorOptions::fromSpec(spec.fathom.monitor);
    QCOMPARE(options.hangTimeout.count(), 90.0);
    QCOMPARE(options.stragglerThreshold, 0.125);
    // 0 is allowed: it turns a detector off.
    QCOMPARE(config::runSpecFromConfig(
                 config::parseConfig("distributed_type: 'NO'\nfathom:\n  hang_timeout: 0\n", "z.yaml").config)
                 .fathom.monitor.hangTimeout,
             std::optional<double>(0));

    config::ResolveInputs in;
    in.useDefaultConfigFile = false;
    in.environment = std::map<std::string, std::string>{{"FATHOM_HANG_TIMEOUT", "-1"}};
    std::string refused = messageOf([&] { config::resolveConfig(in); });
    QVERIFY2(refused.find("FATHOM_HANG_TIMEOUT: key 'fathom.hang_timeout': out of range") == 0, refused.c_str());
    in.environment = std::map<std::string, std::string>{};
    in.commandLine = {{"fathom.straggler_threshold", "-20"}};
    refused = messageOf([&] { config::resolveConfig(in); });
    QVERIFY2(refused.find("--straggler_threshold: key 'fathom.straggler_threshold': out of range: '-20.0'; allowed "
                          "values: numbers >= 0") == 0,
             refused.c_str());
    in.commandLine = {{"fathom.hang_action", "restart"}};
    refused = messageOf([&] { config::resolveConfig(in); });
    QVERIFY2(refused.find("--hang_action: key 'fathom.hang_action': invalid value 'restart'") == 0, refused.c_str());
  }

  void unsupportedSettingsAreRefusedOrNoted() {
    QTemporaryDir dir;
    config::ResolveInputs in;
    in.environment = std::map<std::string, std::string>{};
    in.configFile = writeFile(dir, "t.yaml", "distributed_type: NO\nfathom:\n  trackers: [tensorboard, wandb]\n");
    const RunSpec trackers = config::runSpecFromConfig(config::resolveConfig(in));
    const std::string refused = messageOf([&] { launch::launchOptionsFromRunSpec(trackers); });
    QVERIFY2(refused.find("fathom.trackers (") != std::string::npos && refused.find("t.yaml:3:") != std::string::npos &&
                 refused.find("tracker 'wandb' is not supported by Fathom") != std::string::npos,
             refused.c_str());

    // dynamo: a note from a file, an error from the command line.
    in.configFile = writeFile(dir, "d.yaml", "distributed_type: NO\ndynamo_config:\n  dynamo_backend: INDUCTOR\n");
    const RunSpec fromFile = config::runSpecFromConfig(config::resolveConfig(in));
    QCOMPARE(messageOf([&] { launch::launchOptionsFromRunSpec(fromFile); }), std::string("<no exception>"));
    QVERIFY(std::any_of(fromFile.notes.begin(), fromFile.notes.end(), [](const std::string& n) {
      return n.find("dynamo_backend inductor") != std::string::npos && n.find("is ignored") != std::string::npos;
    }));
    in.commandLine = {{"dynamo_config.dynamo_backend", "inductor"}};
    const RunSpec fromFlag = config::runSpecFromConfig(config::resolveConfig(in));
    QVERIFY(messageOf([&] {
              launch::launchOptionsFromRunSpec(fromFlag);
            }).find("--dynamo_backend inductor: LibTorch") == 0);
    in.commandLine = {{"dynamo_config.dynamo_backend", "no"}};
    QCOMPARE(messageOf([&] { launch::launchOptionsFromRunSpec(config::runSpecFromConfig(config::resolveConfig(in))); }),
             std::string("<no exception>"));
  }
};

QTEST_GUILESS_MAIN(TestRunSpec)
#include "tst_run_spec.moc"
