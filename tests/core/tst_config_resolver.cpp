// SPDX-License-Identifier: Apache-2.0
// Precedence, one test per level, plus Accelerate's documented exceptions and the default-file fallback.
#include "env_guard.h"

#include <fathom/common/error.h>
#include <fathom/common/log.h>
#include <fathom/config/config_format.h>
#include <fathom/config/config_resolver.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cstdlib>
#include <fstream>

using namespace fathom::config;

namespace {
using fathom::test::EnvGuard;

std::filesystem::path writeFile(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
  return p;
}

// A file that sets mixed_precision (line 2, column 18) and num_processes.
ResolveInputs withFile(const QTemporaryDir& dir) {
  ResolveInputs in;
  in.configFile = writeFile(std::filesystem::path(dir.path().toStdString()) / "c.yaml",
                            "distributed_type: MULTI_GPU\nmixed_precision: bf16\nnum_processes: 4\n"
                            "fsdp_config:\n  fsdp_version: 1\n");
  in.environment = std::map<std::string, std::string>{};
  return in;
}

std::string mp(const EffectiveConfig& e) {
  return std::get<std::string>(e.find("mixed_precision")->value);
}
}  // namespace

class TestConfigResolver : public QObject {
  Q_OBJECT

private slots:
  void defaultsLevel() {
    ResolveInputs in;
    in.useDefaultConfigFile = false;
    in.environment = std::map<std::string, std::string>{};
    const auto e = resolveConfig(in);
    QVERIFY(!e.configFile);
    QCOMPARE(mp(e), std::string("no"));
    QVERIFY(e.find("mixed_precision")->source == ValueSource::Default);
    QCOMPARE(e.config.distributedType(), std::string("NO"));
    QCOMPARE(e.config.numProcesses(), 1);  // process_config: 1 for distributed_type NO
    QCOMPARE(std::get<std::int64_t>(e.find("gradient_accumulation_steps")->value), 1);
    QVERIFY(!e.notes.empty() && e.notes.back().find("defaults used instead") != std::string::npos);
  }

  void configFileLevel() {
    QTemporaryDir dir;
    const auto in = withFile(dir);
    const auto e = resolveConfig(in);
    QCOMPARE(mp(e), std::string("bf16"));
    QVERIFY(e.find("mixed_precision")->source == ValueSource::ConfigFile);
    QCOMPARE(e.find("mixed_precision")->origin, in.configFile->string() + ":2:18");
    QCOMPARE(e.config.numProcesses(), 4);
    QVERIFY(e.find("use_cpu")->source == ValueSource::Default);  // the file did not set it
  }

  void environmentLevel() {
    QTemporaryDir dir;
    auto in = withFile(dir);
    in.environment = std::map<std::string, std::string>{{"ACCELERATE_MIXED_PRECISION", "fp16"}, {"FSDP_VERSION", "2"}};
    const auto e = resolveConfig(in);
    QCOMPARE(mp(e), std::string("fp16"));
    QVERIFY(e.find("mixed_precision")->source == ValueSource::Environment);
    QCOMPARE(e.find("mixed_precision")->origin, std::string("ACCELERATE_MIXED_PRECISION"));
    QCOMPARE(e.find("mixed_precision")->overridden.size(), std::size_t(1));
    QCOMPARE(e.config.getInt("fsdp_config.fsdp_version").value(), 2);
  }

  void fathomVariablesBeatAccelerateOnes() {
    ResolveInputs in;
    in.useDefaultConfigFile = false;
    in.environment = std::map<std::string, std::string>{{"ACCELERATE_MIXED_PRECISION", "fp16"},
                                                        {"FATHOM_MIXED_PRECISION", "bf16"},
                                                        {"FATHOM_FSDP_CONFIG__FSDP_OFFLOAD_PARAMS", "yes"},
                                                        {"FATHOM_PROFILER__ENABLED", "1"}};
    const auto e = resolveConfig(in);
    QCOMPARE(mp(e), std::string("bf16"));
    QCOMPARE(e.find("mixed_precision")->origin, std::string("FATHOM_MIXED_PRECISION"));
    QCOMPARE(e.config.getBool("fsdp_config.fsdp_offload_params").value(), true);
    QCOMPARE(e.config.getBool("fathom.profiler.enabled").value(), true);
  }

  void commandLineLevel() {
    QTemporaryDir dir;
    auto in = withFile(dir);
    in.environment = std::map<std::string, std::string>{{"ACCELERATE_MIXED_PRECISION", "fp16"}};
    in.commandLine = {{"mixed_precision", "fp8"}, {"num_processes", "2"}};
    const auto e = resolveConfig(in);
    QCOMPARE(mp(e), std::string("fp8"));
    QVERIFY(e.find("mixed_precision")->source == ValueSource::CommandLine);
    QCOMPARE(e.find("mixed_precision")->origin, std::string("--mixed_precision"));
    QCOMPARE(e.config.numProcesses(), 2);
    QVERIFY(e.find("num_processes")->overridden.front().rfind(in.configFile->string() + ":3:16 = 4", 0) == 0);
  }

  void codeLevel() {
    QTemporaryDir dir;
    auto in = withFile(dir);
    in.environment = std::map<std::string, std::string>{{"ACCELERATE_MIXED_PRECISION", "fp16"}};
    in.commandLine = {{"mixed_precision", "fp8"}};
    in.code = {{"mixed_precision", std::string("no")}};
    const auto e = resolveConfig(in);
    // state.py: Accelerator(mixed_precision=...) overrides ACCELERATE_MIXED_PRECISION.
    QCOMPARE(mp(e), std::string("no"));
    QVERIFY(e.find("mixed_precision")->source == ValueSource::Code);
    QCOMPARE(e.find("mixed_precision")->overridden.size(), std::size_t(3));
  }

  void gradientAccumulationEnvironmentBeatsCode() {
    ResolveInputs in;
    in.useDefaultConfigFile = false;
    in.environment = std::map<std::string, std::string>{{"ACCELERATE_GRADIENT_ACCUMULATION_STEPS", "8"}};
    in.code = {{"gradient_accumulation_steps", std::int64_t{4}}};
    in.commandLine = {{"gradient_accumulation_steps", "2"}};
    auto e = resolveConfig(in);
    QCOMPARE(std::get<std::int64_t>(e.find("gradient_accumulation_steps")->value), 8);
    QVERIFY(e.find("gradient_accumulation_steps")->source == ValueSource::Environment);
    QVERIFY(std::any_of(e.notes.begin(), e.notes.end(), [](const std::string& n) {
      return n.find("overrides the gradient_accumulation_steps") != std::string::npos;
    }));
    in.environment->clear();
    e = resolveConfig(in);
    QCOMPARE(std::get<std::int64_t>(e.find("gradient_accumulation_steps")->value), 4);  // then code > flag as usual
  }

  void accelerateUseVariablesSelectTheMode() {
    ResolveInputs in;
    in.useDefaultConfigFile = false;
    in.environment =
        std::map<std::string, std::string>{{"ACCELERATE_USE_FSDP", "true"}, {"ACCELERATE_USE_DEEPSPEED", "false"}};
    auto e = resolveConfig(in);
    QCOMPARE(e.config.distributedType(), std::string("FSDP"));
    QCOMPARE(e.config.numProcesses(), -1);  // not NO: Accelerate's field default -1 ("pass --num_processes")
    in.environment =
        std::map<std::string, std::string>{{"ACCELERATE_USE_FSDP", "true"}, {"ACCELERATE_USE_DEEPSPEED", "1"}};
    e = resolveConfig(in);
    QCOMPARE(e.config.distributedType(), std::string("DEEPSPEED"));
  }

  void cpuFlagSkipsTheDefaultFile() {
    QTemporaryDir cache;
    EnvGuard xdg("XDG_CACHE_HOME", qPrintable(cache.path()));
    writeFile(std::filesystem::path(cache.path().toStdString()) / "fathom/default_config.yaml",
              "distributed_type: MULTI_CPU\nnum_processes: 3\n");
    ResolveInputs in;
    in.environment = std::map<std::string, std::string>{};
    auto e = resolveConfig(in);
    QVERIFY(e.configFile);
    QCOMPARE(e.config.numProcesses(), 3);
    QVERIFY(!e.usedAccelerateFallback);
    in.commandLine = {{"use_cpu", "true"}};
    e = resolveConfig(in);
    QVERIFY(!e.configFile);
    QCOMPARE(e.config.numProcesses(), 1);
  }

  // docs/config.md: fathom.workspace, FATHOM_WORKSPACE; `fathom train`/`runs` use resolveWorkspace().
  void workspacePrecedenceIsFlagEnvironmentConfigDefault() {
    QTemporaryDir cache;
    EnvGuard xdg("XDG_CACHE_HOME", qPrintable(cache.path()));
    const std::map<std::string, std::string> env{{"FATHOM_WORKSPACE", "/env/ws.sqlite"},
                                                 {"ACCELERATE_MIXED_PRECISION", "not-a-precision"}};
    ResolveInputs in;
    in.environment = std::map<std::string, std::string>{};
    // Nothing set: ./fathom.sqlite.
    WorkspaceSetting w = resolveWorkspace(std::nullopt, in);
    QCOMPARE(w.path, std::filesystem::path("fathom.sqlite"));
    QVERIFY(w.source == ValueSource::Default);
    // The default config file's fathom.workspace.
    writeFile(std::filesystem::path(cache.path().toStdString()) / "fathom/default_config.yaml",
              "distributed_type: MULTI_CPU\nnum_processes: 2\nfathom:\n  workspace: /file/ws.sqlite\n");
    w = resolveWorkspace(std::nullopt, in);
    QCOMPARE(w.path, std::filesystem::path("/file/ws.sqlite"));
    QVERIFY(w.source == ValueSource::ConfigFile);
    QVERIFY2(w.origin.find("default_config.yaml:4:") != std::string::npos, w.origin.c_str());
    // FATHOM_WORKSPACE beats the file; an unrelated bad variable is not read.
    in.environment = env;
    w = resolveWorkspace(std::nullopt, in);
    QCOMPARE(w.path, std::filesystem::path("/env/ws.sqlite"));
    QVERIFY(w.source == ValueSource::Environment);
    QCOMPARE(w.origin, std::string("FATHOM_WORKSPACE"));
    // The flag beats everything.
    w = resolveWorkspace(std::string("flag.sqlite"), in);
    QCOMPARE(w.path, std::filesystem::path("flag.sqlite"));
    QVERIFY(w.source == ValueSource::CommandLine);
    // An explicit config file (fathom launch --config_file) replaces the default one.
    in.environment = std::map<std::string, std::string>{};
    in.configFile = writeFile(std::filesystem::path(cache.path().toStdString()) / "other.yaml",
                              "distributed_type: MULTI_CPU\nnum_processes: 2\nfathom:\n  workspace: other.sqlite\n");
    QCOMPARE(resolveWorkspace(std::nullopt, in).path, std::filesystem::path("other.sqlite"));
    // The full resolution (fathom launch) agrees: flag > environment > file.
    in.commandLine = {{"fathom.workspace", "cli.sqlite"}};
    in.environment = std::map<std::string, std::string>{{"FATHOM_WORKSPACE", "/env/ws.sqlite"}};
    QCOMPARE(workspaceSetting(resolveConfig(in)).path, std::filesystem::path("cli.sqlite"));
    in.commandLine.clear();
    QCOMPARE(workspaceSetting(resolveConfig(in)).path, std::filesystem::path("/env/ws.sqlite"));
    in.environment = std::map<std::string, std::string>{};
    QCOMPARE(workspaceSetting(resolveConfig(in)).path, std::filesystem::path("other.sqlite"));
  }

  void accelerateDefaultFileIsTheFallback() {
    QTemporaryDir cache;
    EnvGuard xdg("XDG_CACHE_HOME", qPrintable(cache.path()));
    EnvGuard hf("HF_HOME", nullptr);
    const auto acc =
        writeFile(std::filesystem::path(cache.path().toStdString()) / "huggingface/accelerate/default_config.yaml",
                  "distributed_type: MULTI_GPU\nnum_processes: 2\n");
    std::vector<std::string> logged;
    fathom::setLogSink([&](fathom::LogLevel, std::string_view m) { logged.emplace_back(m); });
    ResolveInputs in;
    in.environment = std::map<std::string, std::string>{};
    const auto e = resolveConfig(in);
    fathom::setLogSink({});
    QVERIFY(e.usedAccelerateFallback);
    QCOMPARE(e.configFile->string(), acc.string());
    QCOMPARE(e.config.numProcesses(), 2);
    QCOMPARE(logged.size(), std::size_t(1));
    QVERIFY(logged.front().find(acc.string()) != std::string::npos);
    QVERIFY(formatEffectiveConfigText(e).find("Accelerate's default config") != std::string::npos);
  }

  void badInputsNameTheirOrigin() {
    ResolveInputs in;
    in.useDefaultConfigFile = false;
    in.environment = std::map<std::string, std::string>{{"ACCELERATE_MIXED_PRECISION", "fp9"}};
    try {
      resolveConfig(in);
      QFAIL("no error");
    } catch (const fathom::ConfigError& e) {
      const std::string m = e.what();
      QVERIFY2(m.find("ACCELERATE_MIXED_PRECISION") != std::string::npos && m.find("'fp9'") != std::string::npos &&
                   m.find("allowed values: no, fp16, bf16, fp8") != std::string::npos,
               m.c_str());
    }
    in.environment->clear();
    in.commandLine = {{"num_processes", "lots"}};
    try {
      resolveConfig(in);
      QFAIL("no error");
    } catch (const fathom::ConfigError& e) {
      QVERIFY2(std::string(e.what()).find("--num_processes") != std::string::npos, e.what());
    }
    in.commandLine.clear();
    in.configFile = "/nonexistent/c.yaml";
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, resolveConfig(in));
  }

  void jsonUsesAccelerateKeyNames() {
    QTemporaryDir dir;
    auto in = withFile(dir);
    in.environment = std::map<std::string, std::string>{{"FATHOM_TRACKERS", "sqlite,tensorboard"}};
    const auto json = QJsonDocument::fromJson(QByteArray::fromStdString(formatEffectiveConfigJson(resolveConfig(in))));
    QVERIFY(json.isObject());
    const QJsonObject o = json.object();
    QCOMPARE(o.value(QStringLiteral("distributed_type")).toString(), QStringLiteral("MULTI_GPU"));
    QCOMPARE(o.value(QStringLiteral("num_processes")).toInt(), 4);
    QCOMPARE(o.value(QStringLiteral("use_cpu")).toBool(true), false);
    QCOMPARE(o.value(QStringLiteral("fsdp_config")).toObject().value(QStringLiteral("fsdp_version")).toInt(), 1);
    QCOMPARE(o.value(QStringLiteral("fathom")).toObject().value(QStringLiteral("trackers")).toArray().size(), 2);
  }
};

QTEST_GUILESS_MAIN(TestConfigResolver)
#include "tst_config_resolver.moc"
