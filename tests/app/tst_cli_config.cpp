// SPDX-License-Identifier: Apache-2.0
// Drives `fathom config` (questionnaire with piped answers, default, update, show) as a user would.
#include "cli_runner.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {
using Run = fathom::test::CliRun;
using fathom::test::runFathom;

// A clean environment: the cache under `cache`, no ACCELERATE_*/FATHOM_*/HF_HOME from the machine running the tests.
QProcessEnvironment cleanEnv(const QString& cache) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const QString& name : env.keys()) {
    if (name.startsWith(u"ACCELERATE_"_s) || name.startsWith(u"FATHOM_"_s) || name.startsWith(u"FSDP_"_s) ||
        name == u"HF_HOME"_s) {
      env.remove(name);
    }
  }
  env.insert(u"XDG_CACHE_HOME"_s, cache);
  return env;
}

QByteArray readFile(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& text) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(text);
}

QJsonObject showJson(const QString& file, const QProcessEnvironment& env) {
  const Run r = runFathom({u"config"_s, u"show"_s, u"--config_file"_s, file, u"--json"_s}, env);
  [&] { QVERIFY2(r.exitCode == 0, r.err.constData()); }();
  return QJsonDocument::fromJson(r.out).object();
}
}  // namespace

class TestCliConfig : public QObject {
  Q_OBJECT

private slots:
  void questionnaireWithPipedAnswers() {
    QTemporaryDir cache;
    const auto env = cleanEnv(cache.path());
    const QString file = cache.filePath(u"fsdp.yaml"_s);
    // multi-GPU, 1 machine, no debug, no DeepSpeed, FSDP version "2" (by name), reshard default, no offload,
    // transformer wrap of GPT2Block, default state dict, default module-state sync, a bad process count then 4, all
    // GPUs, bf16 by name, two trackers.
    const QByteArray answers = "2\n1\nno\nno\nyes\n2\n\nno\n0\nGPT2Block\n\n\nabc\n4\nall\nbf16\nsqlite, tensorboard\n";
    const Run r = runFathom({u"config"_s, u"--config_file"_s, file}, env, answers);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("Which type of machine are you using?"));
    QVERIFY2(r.out.contains("key 'num_processes': expected an integer, got 'abc'"), r.out.constData());
    QVERIFY(r.out.contains("fathom configuration saved at " + file.toUtf8()));

    const QJsonObject o = showJson(file, env);
    QCOMPARE(o.value(u"distributed_type"_s).toString(), u"FSDP"_s);
    QCOMPARE(o.value(u"num_processes"_s).toInt(), 4);
    QCOMPARE(o.value(u"mixed_precision"_s).toString(), u"bf16"_s);
    QCOMPARE(o.value(u"gpu_ids"_s).toString(), u"all"_s);
    const QJsonObject fsdp = o.value(u"fsdp_config"_s).toObject();
    QCOMPARE(fsdp.value(u"fsdp_version"_s).toInt(), 2);
    QCOMPARE(fsdp.value(u"fsdp_reshard_after_forward"_s).toBool(), true);
    QCOMPARE(fsdp.value(u"fsdp_transformer_layer_cls_to_wrap"_s).toString(), u"GPT2Block"_s);
    QCOMPARE(fsdp.value(u"fsdp_state_dict_type"_s).toString(), u"SHARDED_STATE_DICT"_s);
    QCOMPARE(fsdp.value(u"fsdp_sync_module_states"_s).toBool(), true);
    QCOMPARE(o.value(u"fathom"_s).toObject().value(u"trackers"_s).toArray(),
             QJsonArray({u"sqlite"_s, u"tensorboard"_s}));
  }

  void questionnaireMultiNodeCpu() {
    QTemporaryDir cache;
    const auto env = cleanEnv(cache.path());
    const QString file = cache.filePath(u"cpu.yaml"_s);
    // multi-CPU by name, 2 machines (after 4294967298, refused: it used to be narrowed to 2 and the next answer taken
    // for the next question), rank 1, IP, default port, debug, 8 processes, bf16 (by number), no trackers.
    const QByteArray answers = "MULTI_CPU\n4294967298\n2\n1\n10.0.0.1\n\nyes\n8\n2\n\n";
    const Run r = runFathom({u"config"_s, u"--config_file"_s, file}, env, answers);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("Please enter an integer from 1 to 65536."), r.out.constData());
    const QJsonObject o = showJson(file, env);
    QCOMPARE(o.value(u"distributed_type"_s).toString(), u"MULTI_CPU"_s);
    QCOMPARE(o.value(u"use_cpu"_s).toBool(), true);
    QCOMPARE(o.value(u"num_machines"_s).toInt(), 2);
    QCOMPARE(o.value(u"machine_rank"_s).toInt(), 1);
    QCOMPARE(o.value(u"main_process_ip"_s).toString(), u"10.0.0.1"_s);
    QCOMPARE(o.value(u"main_process_port"_s).toInt(), 29500);
    QCOMPARE(o.value(u"debug"_s).toBool(), true);
    QCOMPARE(o.value(u"num_processes"_s).toInt(), 8);
    QCOMPARE(o.value(u"mixed_precision"_s).toString(), u"bf16"_s);
    QVERIFY(!o.contains(u"fathom"_s));
    // Issue 17: what nothing in Fathom reads is not asked (Accelerate's defaults are written for its keys).
    QCOMPARE(o.value(u"rdzv_backend"_s).toString(), u"static"_s);
    for (const char* section : {"mpirun_config", "dynamo_config", "fp8_config", "megatron_lm_config"}) {
      QVERIFY2(!o.contains(QLatin1String(section)), section);
    }
    for (const char* question : {"dynamo", "mpirun", "Megatron", "FP8", "rendezvous", "numa"}) {
      QVERIFY2(!r.out.contains(question), question);
    }
  }

  // Issue 17: `fathom config` offers what Fathom runs end to end, from the vocabulary's tables; an unsupported
  // answer typed anyway is refused and asked again.
  void questionnaireOffersOnlyWhatRuns() {
    QTemporaryDir cache;
    const auto env = cleanEnv(cache.path());
    const QString file = cache.filePath(u"ds.yaml"_s);
    // multi-GPU, 1 machine, no debug, DeepSpeed stage 3, nvme typed (refused) then cpu, params on the CPU, default
    // accumulation, 2 GPUs, GPUs 0 and 1, no mixed precision, wandb (refused) then tensorboard.
    const QByteArray answers = "MULTI_GPU\n1\nno\nyes\n3\nnvme\ncpu\ncpu\n\n2\n0,1\nno\nwandb\ntensorboard\n";
    const Run r = runFathom({u"config"_s, u"--config_file"_s, file}, env, answers);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    for (const char* offered : {"[0] NO", "[2] MULTI_GPU", "[0] 1  (", "[1] cpu"}) {
      QVERIFY2(r.out.contains(offered), offered);
    }
    for (const char* refused : {"MULTI_XPU", "] fp8", "] nvme", "] 0  (", "wandb,"}) {
      QVERIFY2(!r.out.contains(refused), refused);
    }
    QVERIFY2(r.out.contains("Please choose one of 0..1 or a name listed above."), r.out.constData());
    QVERIFY(r.out.contains("answer: tracker 'wandb' is not supported by Fathom"));
    const QJsonObject o = showJson(file, env);
    QCOMPARE(o.value(u"distributed_type"_s).toString(), u"DEEPSPEED"_s);
    const QJsonObject ds = o.value(u"deepspeed_config"_s).toObject();
    QCOMPARE(ds.value(u"zero_stage"_s).toInt(), 3);
    QCOMPARE(ds.value(u"offload_optimizer_device"_s).toString(), u"cpu"_s);
    QCOMPARE(ds.value(u"offload_param_device"_s).toString(), u"cpu"_s);
    QCOMPARE(o.value(u"gpu_ids"_s).toString(), u"0,1"_s);
    QCOMPARE(o.value(u"fathom"_s).toObject().value(u"trackers"_s).toArray(), QJsonArray({u"tensorboard"_s}));
  }

  void questionnaireDefaultsOnEmptyInput() {
    QTemporaryDir cache;
    const auto env = cleanEnv(cache.path());
    const Run r = runFathom({u"config"_s}, env, "");
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString file = cache.filePath(u"fathom/default_config.yaml"_s);
    const QByteArray text = readFile(file);
    QVERIFY2(text.contains("distributed_type: 'NO'\n"), text.constData());
    QVERIFY(text.contains("mixed_precision: 'no'\n"));
    QVERIFY(text.contains("num_processes: 1\n"));
    QVERIFY(text.contains("use_cpu: false\n"));
  }

  void defaultWritesOnceAndChecksItsFlag() {
    QTemporaryDir cache;
    const auto env = cleanEnv(cache.path());
    const Run r = runFathom({u"config"_s, u"default"_s, u"--mixed_precision"_s, u"BF16"_s}, env);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString file = cache.filePath(u"fathom/default_config.yaml"_s);
    QVERIFY(r.out.contains("fathom configuration saved at " + file.toUtf8()));
    const QByteArray first = readFile(file);
    QVERIFY(first.contains("mixed_precision: bf16\n"));
    QVERIFY(first.contains("compute_environment: LOCAL_MACHINE\n"));
    QVERIFY(first.contains("enable_cpu_affinity: false\n"));

    const Run again = runFathom({u"config"_s, u"default"_s, u"--mixed-precision"_s, u"fp16"_s}, env);
    QCOMPARE(again.exitCode, 0);
    QVERIFY(again.out.contains("Configuration already exists at"));
    QCOMPARE(readFile(file), first);

    const QString other = cache.filePath(u"other.yaml"_s);
    const Run bad =
        runFathom({u"config"_s, u"default"_s, u"--mixed_precision"_s, u"fp7"_s, u"--config_file"_s, other}, env);
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("'fp7'"), bad.err.constData());
    QVERIFY(!QFile::exists(other));
  }

  void updateNormalisesAndNeverWritesABadFile() {
    QTemporaryDir cache;
    const auto env = cleanEnv(cache.path());
    const QString file = cache.filePath(u"old.yaml"_s);
    writeFile(file, "distributed_type: FSDP\nfp16: true\nfsdp_config:\n  sharding_strategy: 1\n");
    const Run r = runFathom({u"config"_s, u"update"_s, u"--config_file"_s, file}, env);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("Successfully updated the configuration file at"));
    const QByteArray text = readFile(file);
    QVERIFY2(text.contains("mixed_precision: fp16\n"), text.constData());
    QVERIFY(text.contains("  fsdp_sharding_strategy: FULL_SHARD\n"));
    QVERIFY(text.contains("use_cpu: false\n"));
    QVERIFY(!text.contains("fp16: true"));

    const QByteArray broken = "distributed_type: FSDP\nfsdp_config:\n  fsdp_auto_wrap_policy: EVERYTHING\n";
    writeFile(file, broken);
    const Run bad = runFathom({u"config"_s, u"update"_s, u"--config_file"_s, file}, env);
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains((file + u":3:26: key 'fsdp_config.fsdp_auto_wrap_policy'"_s).toUtf8()),
             bad.err.constData());
    QVERIFY(bad.err.contains("allowed values: TRANSFORMER_BASED_WRAP, SIZE_BASED_WRAP, NO_WRAP"));
    QCOMPARE(readFile(file), broken);
    QCOMPARE(QDir(cache.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);  // no temp file left

    const Run missing = runFathom({u"config"_s, u"update"_s, u"--config_file"_s, cache.filePath(u"nope.yaml"_s)}, env);
    QCOMPARE(missing.exitCode, 2);
    QVERIFY(missing.err.contains("doesn't exist"));
  }

  void showAppliesPrecedenceAndSaysWhere() {
    QTemporaryDir cache;
    auto env = cleanEnv(cache.path());
    const QString file = cache.filePath(u"c.yaml"_s);
    writeFile(file, "distributed_type: MULTI_GPU\nmixed_precision: bf16\nnum_processes: 2\n");
    env.insert(u"ACCELERATE_MIXED_PRECISION"_s, u"fp16"_s);
    const QJsonObject o = showJson(file, env);
    QCOMPARE(o.value(u"mixed_precision"_s).toString(), u"fp16"_s);
    QCOMPARE(o.value(u"num_processes"_s).toInt(), 2);
    QCOMPARE(o.value(u"compute_environment"_s).toString(), u"LOCAL_MACHINE"_s);

    const Run text = runFathom({u"config"_s, u"show"_s, u"--config_file"_s, file}, env);
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("[environment ACCELERATE_MIXED_PRECISION; overrides " + file.toUtf8() + ":2:18 = bf16]"),
             text.out.constData());
    QVERIFY(text.out.contains("num_processes: 2"));
    QVERIFY(text.out.contains("[config file " + file.toUtf8() + ":3:16]"));
  }

  void showFallsBackToAcceleratesDefaultFile() {
    QTemporaryDir cache;
    const auto env = cleanEnv(cache.path());
    const QString acc = cache.filePath(u"huggingface/accelerate/default_config.yaml"_s);
    writeFile(acc, "distributed_type: MULTI_CPU\nnum_processes: 3\n");
    const Run r = runFathom({u"config"_s, u"show"_s}, env);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("Config file: " + acc.toUtf8() + " (Accelerate's default config"), r.out.constData());
    QVERIFY(r.err.contains("using Accelerate's default config " + acc.toUtf8()));  // the log line
    QVERIFY(r.out.contains("num_processes: 3"));

    writeFile(acc, "distributed_type: MULTI_CPU\nnum_processes: [3]\n");
    const Run bad = runFathom({u"config"_s, u"show"_s}, env);
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains((acc + u":2:16: key 'num_processes'"_s).toUtf8()), bad.err.constData());
  }
};

QTEST_GUILESS_MAIN(TestCliConfig)
#include "tst_cli_config.moc"
