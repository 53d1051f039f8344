// SPDX-License-Identifier: Apache-2.0
// Drives `fathom launch` and `fathom test` as a user would: real processes, real signals. Every worker records
// its PID, and each test checks afterwards that none survived (process_survivors.h: by pid; a zombie counts as gone).
#include "process_survivors.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QMap>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using fathom::test::pidsInFiles;
using fathom::test::survivingProcesses;
using fathom::test::waitForFileCount;

namespace {

struct Run {
  int exitCode = -1;
  QByteArray out;
  QByteArray err;
  qint64 elapsedMs = 0;
};

QString fathomPath() {
  return qEnvironmentVariable("FATHOM_BIN_DIR", QStringLiteral(FATHOM_BINARY_DIR "/bin")) + u"/fathom"_s;
}

/// The test's environment without anything that would change what the launcher sets.
QProcessEnvironment cleanEnvironment() {
  auto env = QProcessEnvironment::systemEnvironment();
  for (const QString& name : env.keys()) {
    if (name.startsWith(u"ACCELERATE_"_s) || name.startsWith(u"FATHOM_NUM"_s) || name == u"OMP_NUM_THREADS"_s ||
        name == u"RANK"_s || name == u"WORLD_SIZE"_s || name == u"LOCAL_RANK"_s || name == u"MASTER_PORT"_s) {
      env.remove(name);
    }
  }
  // No default config file: neither Fathom's nor Accelerate's fallback.
  env.insert(u"XDG_CACHE_HOME"_s, QDir::tempPath() + u"/fathom-tst-launch-no-config"_s);
  env.insert(u"HF_HOME"_s, QDir::tempPath() + u"/fathom-tst-launch-no-config/hf"_s);
  return env;
}

void start(QProcess& p, const QStringList& args, const QMap<QString, QString>& extraEnv = {}) {
  auto env = cleanEnvironment();
  for (auto it = extraEnv.begin(); it != extraEnv.end(); ++it) {
    env.insert(it.key(), it.value());
  }
  p.setProcessEnvironment(env);
  p.start(fathomPath(), args);
}

Run finish(QProcess& p, const QElapsedTimer& timer, int timeoutMs = 60'000) {
  if (!p.waitForFinished(timeoutMs)) {
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    p.waitForFinished();
    return {-2, p.readAllStandardOutput(), p.readAllStandardError(), timer.elapsed()};
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
          p.readAllStandardError(), timer.elapsed()};
}

Run fathomRun(const QStringList& args, int timeoutMs = 60'000, const QMap<QString, QString>& extraEnv = {}) {
  QProcess p;
  QElapsedTimer timer;
  timer.start();
  start(p, args, extraEnv);
  return finish(p, timer, timeoutMs);
}

bool writeFile(const QString& path, const QByteArray& text) {
  QDir().mkpath(QFileInfo(path).path());
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

QStringList sortedLines(const QByteArray& text) {
  QStringList lines = QString::fromUtf8(text).split(u'\n', Qt::SkipEmptyParts);
  lines.sort();
  return lines;
}

/// A TCP port nobody listens on now (bind port 0 on 127.0.0.1, read it back, close).
std::uint16_t freePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(addr);
  std::uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

}  // namespace

class TestLaunch : public QObject {
  Q_OBJECT

private slots:
  // Every `fathom train`/`launch` of this test writes its workspace here, not into the test's directory.
  void initTestCase() {
    QVERIFY(m_workspaceDir.isValid());
    qputenv("FATHOM_WORKSPACE", m_workspaceDir.filePath(u"fathom.sqlite"_s).toLocal8Bit());
  }

  void threeRanksSeeTheirVariables() {
    const Run r = fathomRun({u"launch"_s, u"--num_processes"_s, u"3"_s, u"sh"_s, u"-c"_s,
                             u"echo $RANK/$WORLD_SIZE/$LOCAL_RANK/$MASTER_PORT"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QStringList lines = sortedLines(r.out);
    QCOMPARE(lines.size(), 3);
    static const QRegularExpression pattern(u"^\\[rank(\\d)\\]: (\\d)/3/(\\d)/(\\d+)$"_s);
    QString port;
    for (int rank = 0; rank < 3; ++rank) {
      const auto m = pattern.match(lines[rank]);
      QVERIFY2(m.hasMatch(), qPrintable(lines[rank]));
      QCOMPARE(m.captured(1).toInt(), rank);
      QCOMPARE(m.captured(2).toInt(), rank);
      QCOMPARE(m.captured(3).toInt(), rank);
      const int p = m.captured(4).toInt();
      QVERIFY2(p > 0 && p < 65536, qPrintable(lines[rank]));
      QVERIFY(port.isEmpty() || port == m.captured(4));  // one group, one port
      port = m.captured(4);
    }
  }

  void acceleratorVariablesAndDashedFlags() {
    const Run r = fathomRun({u"launch"_s, u"--num-processes"_s, u"2"_s, u"--mixed-precision"_s, u"bf16"_s,
                             u"--gradient_accumulation_steps"_s, u"4"_s, u"--use_fsdp"_s, u"--fsdp_offload_params"_s,
                             u"True"_s, u"--main_process_port"_s, u"0"_s, u"sh"_s, u"-c"_s,
                             u"echo $LOCAL_WORLD_SIZE $MASTER_ADDR $OMP_NUM_THREADS $ACCELERATE_MIXED_PRECISION "
                             "$ACCELERATE_GRADIENT_ACCUMULATION_STEPS $ACCELERATE_USE_FSDP $FSDP_OFFLOAD_PARAMS "
                             "$FSDP_SHARDING_STRATEGY $TORCHELASTIC_RESTART_COUNT"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(sortedLines(r.out), (QStringList{u"[rank0]: 2 127.0.0.1 1 bf16 4 true true FULL_SHARD 0"_s,
                                              u"[rank1]: 2 127.0.0.1 1 bf16 4 true true FULL_SHARD 0"_s}));
    QVERIFY2(r.err.contains("OMP_NUM_THREADS is not set: setting it to 1"), r.err.constData());
  }

  // Issue 17: the flags Accelerate and torchrun users type mean here what they mean there, or say what to use.
  void accelerateAndTorchrunFlags() {
    Run r = fathomRun({u"launch"_s, u"--multi_gpu"_s, u"--nproc_per_node"_s, u"2"_s, u"--nnodes"_s, u"1"_s,
                       u"--gpu_ids"_s, u"0,1"_s, u"--dynamo_backend"_s, u"no"_s, u"--rdzv_endpoint"_s, u"127.0.0.1:0"_s,
                       u"sh"_s, u"-c"_s, u"echo $WORLD_SIZE $LOCAL_WORLD_SIZE $CUDA_VISIBLE_DEVICES $MASTER_ADDR"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(sortedLines(r.out), (QStringList{u"[rank0]: 2 2 0,1 127.0.0.1"_s, u"[rank1]: 2 2 0,1 127.0.0.1"_s}));
    // --multi_gpu selects MULTI_GPU (as the config key), not FSDP or DeepSpeed.
    r = fathomRun({u"launch"_s, u"--multi_gpu"_s, u"--num_processes"_s, u"2"_s, u"sh"_s, u"-c"_s,
                   u"echo ${ACCELERATE_USE_FSDP:-none} ${ACCELERATE_USE_DEEPSPEED:-none}"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(sortedLines(r.out), (QStringList{u"[rank0]: none none"_s, u"[rank1]: none none"_s}));

    const auto refused = [](const QStringList& flags, const char* message) {
      const Run bad = fathomRun(QStringList{u"launch"_s} + flags + QStringList{u"true"_s});
      QCOMPARE(bad.exitCode, 2);
      QVERIFY2(bad.err.contains(message), bad.err.constData());
    };
    refused({u"--dynamo_backend"_s, u"inductor"_s},
            "--dynamo_backend inductor: LibTorch's C++ API has no torch.compile");
    refused({u"--nnodes"_s, u"1:4"_s}, "--nnodes 1:4: Fathom has no elastic launch");
    refused({u"--nproc_per_node"_s, u"2"_s, u"--num_processes"_s, u"2"_s},
            "give --nproc_per_node (torchrun's, per machine) or --num_processes");
    refused({u"--rdzv_endpoint"_s, u"10.0.0.1:29400"_s, u"--main_process_port"_s, u"1"_s},
            "give --rdzv_endpoint (torchrun's) or --main_process_ip/--main_process_port");
    refused({u"--gpu_ids"_s, u"first"_s}, "key 'gpu_ids': 'first' is not `all`");
  }

  // Issue 17: a configuration's fathom.trackers and fathom.profiler reach `fathom train` under `fathom launch`
  // (before, nothing was written and nothing said so); trackers Fathom does not implement stop the launch.
  void fathomSectionReachesFathomTrain() {
    QTemporaryDir dir;
    const QString file = dir.filePath(u"run.yaml"_s);
    const QString project = dir.filePath(u"project"_s);
    const QString traces = dir.filePath(u"traces"_s);
    QVERIFY(
        writeFile(file, "distributed_type: NO\nfathom:\n  trackers: [tensorboard]\n  project_dir: " + project.toUtf8() +
                            "\n  profiler:\n    enabled: true\n    activities: [cpu]\n    schedule_wait: 0\n"
                            "    schedule_warmup: 0\n    schedule_active: 1\n    schedule_repeat: 1\n"
                            "    output_trace_dir: " +
                            traces.toUtf8() + "\n"));
    Run r = fathomRun({u"launch"_s, u"--config_file"_s, file, fathomPath(), u"train"_s, u"--model"_s, u"mlp"_s,
                       u"--steps"_s, u"2"_s, u"--log_every"_s, u"0"_s},
                      180'000);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QStringList events = QDir(project + u"/fathom-train"_s).entryList({u"events.out.tfevents.*"_s}, QDir::Files);
    QCOMPARE(events.size(), 1);
    // The run is recorded in the workspace, so its traces are in the run's own folder, run_<id>/.
    const QStringList runDirs = QDir(traces).entryList({u"run_*"_s}, QDir::Dirs);
    QVERIFY2(runDirs.size() == 1 && QFile::exists(traces + u"/"_s + runDirs.front() + u"/profile_0.json"_s),
             qPrintable(QDir(traces).entryList().join(u", "_s) + u"\n"_s + QString::fromUtf8(r.err)));

    QVERIFY(writeFile(file, "distributed_type: NO\nfathom:\n  trackers: [tensorboard, wandb]\n"));
    r = fathomRun({u"launch"_s, u"--config_file"_s, file, fathomPath(), u"train"_s, u"--model"_s, u"mlp"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("tracker 'wandb' is not supported by Fathom"), r.err.constData());
    QVERIFY(r.out.isEmpty());
  }

  // Issue 17: the run records the run specification it was launched with (schema 6's run_spec): Accelerate YAML
  // with the precedence applied (--mixed_precision over the file), so `fathom launch --config_file` of it runs the
  // same again.
  void theRunRecordsItsSpecification() {
    QTemporaryDir dir;
    const QString file = dir.filePath(u"run.yaml"_s);
    const QString workspace = dir.filePath(u"ws.sqlite"_s);
    QVERIFY(writeFile(file, "distributed_type: FSDP\nnum_processes: 2\nmixed_precision: bf16\n"
                            "fsdp_config:\n  fsdp_sharding_strategy: SHARD_GRAD_OP\n"));
    Run r = fathomRun({u"launch"_s, u"--config_file"_s, file, u"--mixed_precision"_s, u"fp16"_s, u"--workspace"_s,
                       workspace, u"--quiet"_s, u"true"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    r = fathomRun({u"runs"_s, u"show"_s, u"1"_s, u"--workspace"_s, workspace, u"--json"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString spec = QJsonDocument::fromJson(r.out)[u"run_spec"_s].toString();
    for (const QString& line : {u"distributed_type: FSDP"_s, u"num_processes: 2"_s, u"mixed_precision: fp16"_s,
                                u"fsdp_sharding_strategy: SHARD_GRAD_OP"_s}) {
      QVERIFY2(spec.contains(line), qPrintable(line + u" not in:\n"_s + spec));
    }
    // Launching that text again runs the same: two processes, fp16.
    QVERIFY(writeFile(file, spec.toUtf8()));
    r = fathomRun(
        {u"launch"_s, u"--config_file"_s, file, u"--workspace"_s, workspace, u"--quiet"_s, u"sh"_s, u"-c"_s,
         u"if [ $RANK = 0 ]; then echo $WORLD_SIZE $ACCELERATE_MIXED_PRECISION $FSDP_SHARDING_STRATEGY; fi"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("2 fp16 SHARD_GRAD_OP"), r.out.constData());
  }

  void precedenceFlagOverEnvironmentOverFile() {
    QTemporaryDir dir;
    const QString file = dir.filePath(u"run.yaml"_s);
    QVERIFY(writeFile(file, "distributed_type: MULTI_CPU\nnum_processes: 2\nmixed_precision: fp16\n"));
    const QStringList show{u"sh"_s, u"-c"_s, u"echo $WORLD_SIZE $ACCELERATE_MIXED_PRECISION"_s};
    const QStringList withFile{u"launch"_s, u"--config_file"_s, file};
    Run r = fathomRun(withFile + show);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(sortedLines(r.out), (QStringList{u"[rank0]: 2 fp16"_s, u"[rank1]: 2 fp16"_s}));
    r = fathomRun(withFile + show, 60'000, {{u"ACCELERATE_MIXED_PRECISION"_s, u"bf16"_s}});
    QCOMPARE(sortedLines(r.out), (QStringList{u"[rank0]: 2 bf16"_s, u"[rank1]: 2 bf16"_s}));
    r = fathomRun(withFile + QStringList{u"--mixed_precision"_s, u"no"_s, u"--num_processes"_s, u"1"_s} + show, 60'000,
                  {{u"ACCELERATE_MIXED_PRECISION"_s, u"bf16"_s}});
    QCOMPARE(sortedLines(r.out), (QStringList{u"[rank0]: 1 no"_s}));

    // The default file is read when no --config_file is given; FSDP settings become FSDP_* variables.
    QTemporaryDir cache;
    QVERIFY(writeFile(cache.filePath(u"fathom/default_config.yaml"_s),
                      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  fsdp_offload_params: true\n"
                      "  fsdp_state_dict_type: SHARDED_STATE_DICT\n"));
    r = fathomRun({u"launch"_s, u"sh"_s, u"-c"_s,
                   u"echo $WORLD_SIZE $ACCELERATE_USE_FSDP $FSDP_OFFLOAD_PARAMS $FSDP_STATE_DICT_TYPE"_s},
                  60'000, {{u"XDG_CACHE_HOME"_s, cache.path()}});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(sortedLines(r.out),
             (QStringList{u"[rank0]: 2 true true SHARDED_STATE_DICT"_s, u"[rank1]: 2 true true SHARDED_STATE_DICT"_s}));
    // ... but not under --cpu (Accelerate's rule).
    r = fathomRun({u"launch"_s, u"--cpu"_s, u"sh"_s, u"-c"_s, u"echo $WORLD_SIZE $ACCELERATE_USE_CPU"_s}, 60'000,
                  {{u"XDG_CACHE_HOME"_s, cache.path()}});
    QCOMPARE(sortedLines(r.out), (QStringList{u"[rank0]: 1 True"_s}));

    // A bad file stops the launch before anything runs, naming the file.
    QVERIFY(writeFile(file, "distributed_type: MULTI_CPU\nnum_processes: two\n"));
    r = fathomRun(withFile + show);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(file.toUtf8() + ":2:"), r.err.constData());
    QVERIFY(r.out.isEmpty());
  }

  // A config file's FSDP and DeepSpeed sections reach the workers as the variables the Accelerator reads
  // (parallel::fsdpOptionsFromEnvironment / zeroOptionsFromEnvironment, docs/sharding.md).
  void configFileShardingReachesTheWorkers() {
    QTemporaryDir dir;
    const QString file = dir.filePath(u"fsdp.yaml"_s);
    QVERIFY(writeFile(file, "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n"
                            "  fsdp_sharding_strategy: HYBRID_SHARD\n  fsdp_auto_wrap_policy: SIZE_BASED_WRAP\n"
                            "  fsdp_min_num_params: 2000\n  fsdp_transformer_layer_cls_to_wrap: Block\n"
                            "  fsdp_backward_prefetch: BACKWARD_POST\n  fsdp_sync_module_states: false\n"
                            "  fsdp_cpu_ram_efficient_loading: false\n"));
    Run r = fathomRun({u"launch"_s, u"--config_file"_s, file, u"sh"_s, u"-c"_s,
                       u"echo $ACCELERATE_USE_FSDP $FSDP_SHARDING_STRATEGY $FSDP_AUTO_WRAP_POLICY $FSDP_MIN_NUM_PARAMS "
                       "$FSDP_TRANSFORMER_CLS_TO_WRAP $FSDP_BACKWARD_PREFETCH $FSDP_SYNC_MODULE_STATES "
                       "${ACCELERATE_USE_DEEPSPEED:-none}"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(sortedLines(r.out),
             (QStringList{u"[rank0]: true HYBRID_SHARD SIZE_BASED_WRAP 2000 Block BACKWARD_POST false none"_s,
                          u"[rank1]: true HYBRID_SHARD SIZE_BASED_WRAP 2000 Block BACKWARD_POST false none"_s}));
    // A flag beats the file, key by key.
    r = fathomRun({u"launch"_s, u"--config_file"_s, file, u"--fsdp_sharding_strategy"_s, u"SHARD_GRAD_OP"_s, u"sh"_s,
                   u"-c"_s, u"echo $FSDP_SHARDING_STRATEGY $FSDP_AUTO_WRAP_POLICY"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(sortedLines(r.out),
             (QStringList{u"[rank0]: SHARD_GRAD_OP SIZE_BASED_WRAP"_s, u"[rank1]: SHARD_GRAD_OP SIZE_BASED_WRAP"_s}));

    const QString ds = dir.filePath(u"ds.yaml"_s);
    QVERIFY(writeFile(ds, "distributed_type: DEEPSPEED\nnum_processes: 2\ndeepspeed_config:\n  zero_stage: 3\n"
                          "  offload_optimizer_device: cpu\n"));
    r = fathomRun({u"launch"_s, u"--config_file"_s, ds, u"sh"_s, u"-c"_s,
                   u"echo $ACCELERATE_USE_DEEPSPEED $ACCELERATE_DEEPSPEED_ZERO_STAGE "
                   "$ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE ${ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE:-unset} "
                   "${ACCELERATE_USE_FSDP:-none}"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(sortedLines(r.out),
             (QStringList{u"[rank0]: true 3 cpu unset none"_s, u"[rank1]: true 3 cpu unset none"_s}));
    r = fathomRun({u"launch"_s, u"--config_file"_s, ds, u"--zero_stage"_s, u"1"_s, u"--offload_param_device"_s,
                   u"CPU"_s, u"sh"_s, u"-c"_s,
                   u"echo $ACCELERATE_DEEPSPEED_ZERO_STAGE $ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(sortedLines(r.out), (QStringList{u"[rank0]: 1 cpu"_s, u"[rank1]: 1 cpu"_s}));
  }

  void stderrIsPrefixedAndTeedToLogFiles() {
    QTemporaryDir logs;
    const Run r = fathomRun({u"launch"_s, u"--num_processes"_s, u"2"_s, u"--log_dir"_s, logs.path(), u"sh"_s, u"-c"_s,
                             u"echo out $RANK; echo err $RANK >&2; printf 'no newline'"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("[rank1]: out 1\n"));
    QVERIFY(r.out.contains("[rank0]: no newline\n"));
    QVERIFY(r.err.contains("[rank1]: err 1\n"));
    QFile out(logs.filePath(u"attempt_0/rank_1/stdout.log"_s));
    QVERIFY(out.open(QIODevice::ReadOnly));
    QCOMPARE(out.readAll(), QByteArray("out 1\nno newline\n"));
    QFile err(logs.filePath(u"attempt_0/rank_1/stderr.log"_s));
    QVERIFY(err.open(QIODevice::ReadOnly));
    QCOMPARE(err.readAll(), QByteArray("err 1\n"));

    QTemporaryDir onlyOut;
    QCOMPARE(fathomRun({u"launch"_s, u"--log_dir"_s, onlyOut.path(), u"--tee"_s, u"1"_s, u"sh"_s, u"-c"_s,
                        u"echo x; echo y >&2"_s})
                 .exitCode,
             0);
    QVERIFY(QFile::exists(onlyOut.filePath(u"attempt_0/rank_0/stdout.log"_s)));
    QVERIFY(!QFile::exists(onlyOut.filePath(u"attempt_0/rank_0/stderr.log"_s)));
  }

  void failingRankStopsTheGroup() {
    // Rank 1 exits 7 once every rank is up; the others would sleep a minute, rank 0 also in a grandchild.
    QTemporaryDir dir;
    const QString script = uR"(cd '%1'; echo $$ > pid.$RANK
if [ "$RANK" = 0 ]; then sleep 60 & echo $! > pid.child; fi
if [ "$RANK" = 1 ]; then while [ $(ls pid.* | wc -l) -lt 4 ]; do sleep 0.05; done; echo "about to fail"; exit 7; fi
exec sleep 60)"_s.arg(dir.path());
    const Run r = fathomRun({u"launch"_s, u"--num_processes"_s, u"3"_s, u"sh"_s, u"-c"_s, script});
    QCOMPARE(r.exitCode, 7);
    QVERIFY2(r.elapsedMs < 10'000, qPrintable(u"took %1 ms"_s.arg(r.elapsedMs)));
    QVERIFY2(r.err.contains("rank 1 (local rank 1, pid "), r.err.constData());
    QVERIFY2(r.err.contains(") failed with exit code 7"), r.err.constData());
    QVERIFY2(r.err.contains("last 1 lines of rank 1:\n    about to fail"), r.err.constData());
    const auto pids = pidsInFiles(dir.path(), u"pid.*"_s);
    QCOMPARE(pids.size(), 4);
    QVERIFY2(survivingProcesses(pids, 1000).isEmpty(), qPrintable(u"still alive: "_s + survivingProcesses(pids, 1000)));
    static const QRegularExpression stopped(u"stopped the other processes in (\\d+) ms"_s);
    const auto m = stopped.match(QString::fromUtf8(r.err));
    QVERIFY2(m.hasMatch(), r.err.constData());
    qInfo("launch with a failing rank: exit after %lld ms in total, group torn down in %s ms", r.elapsedMs,
          qPrintable(m.captured(1)));
  }

  void rankIgnoringSigtermIsKilled() {
    QTemporaryDir dir;
    // Rank 0 ignores SIGTERM (and so do its children) before it announces itself; rank 1 then fails.
    const QString script = uR"(cd '%1'
if [ "$RANK" = 1 ]; then echo $$ > pid.1; while [ ! -f pid.0 ]; do sleep 0.05; done; exit 3; fi
trap '' TERM; echo $$ > pid.0; while :; do sleep 0.1; done)"_s.arg(dir.path());
    const Run r = fathomRun(
        {u"launch"_s, u"--num_processes"_s, u"2"_s, u"--terminate_grace_period"_s, u"1"_s, u"sh"_s, u"-c"_s, script});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.elapsedMs < 10'000, qPrintable(u"took %1 ms"_s.arg(r.elapsedMs)));
    QVERIFY2(r.err.contains("sending SIGKILL"), r.err.constData());
    QVERIFY(survivingProcesses(pidsInFiles(dir.path(), u"pid.*"_s), 1000).isEmpty());
  }

  void killedRankReportsTheSignal() {
    const Run r = fathomRun({u"launch"_s, u"--num_processes"_s, u"2"_s, u"sh"_s, u"-c"_s,
                             u"if [ $RANK = 0 ]; then kill -9 $$; fi; sleep 30"_s});
    QCOMPARE(r.exitCode, 137);
    QVERIFY2(r.err.contains("rank 0 (local rank 0, pid "), r.err.constData());
    QVERIFY2(r.err.contains("failed with signal 9 (SIGKILL)"), r.err.constData());
    QVERIFY(r.elapsedMs < 10'000);
  }

  void maxRestartsRestartsTheWholeGroup() {
    QTemporaryDir dir;
    // Rank 1 fails on the first two attempts; every rank counts its starts.
    const QString script = uR"(cd '%1'; echo $TORCHELASTIC_RESTART_COUNT >> starts.$RANK
if [ $RANK = 1 ] && [ $TORCHELASTIC_RESTART_COUNT -lt 2 ]; then exit 5; fi; echo done)"_s.arg(dir.path());
    const Run ok =
        fathomRun({u"launch"_s, u"--num_processes"_s, u"2"_s, u"--max_restarts"_s, u"2"_s, u"sh"_s, u"-c"_s, script});
    QVERIFY2(ok.exitCode == 0, ok.err.constData());
    QVERIFY2(ok.err.contains("restarting the whole group (restart 1 of 2)"), ok.err.constData());
    QVERIFY2(ok.err.contains("restarting the whole group (restart 2 of 2)"), ok.err.constData());
    // Rank 1 records every attempt before failing. Rank 0 may be torn down before its shell gets to run in a
    // failed attempt (rank 1 can exit first on a loaded machine), so it must have run the last attempt and
    // otherwise only attempts that happened, in order.
    QFile rank1Starts(dir.filePath(u"starts.1"_s));
    QVERIFY(rank1Starts.open(QIODevice::ReadOnly));
    QCOMPARE(rank1Starts.readAll(), QByteArray("0\n1\n2\n"));
    QFile rank0Starts(dir.filePath(u"starts.0"_s));
    QVERIFY(rank0Starts.open(QIODevice::ReadOnly));
    const QByteArray rank0 = rank0Starts.readAll();
    QVERIFY2(rank0 == "0\n1\n2\n" || rank0 == "0\n2\n" || rank0 == "1\n2\n" || rank0 == "2\n", rank0.constData());

    QTemporaryDir again;
    const Run fail = fathomRun({u"launch"_s, u"--num_processes"_s, u"2"_s, u"--max-restarts"_s, u"1"_s, u"sh"_s,
                                u"-c"_s, QString(script).replace(dir.path(), again.path())});
    QCOMPARE(fail.exitCode, 5);
    QFile starts1(again.filePath(u"starts.1"_s));
    QVERIFY(starts1.open(QIODevice::ReadOnly));
    QCOMPARE(starts1.readAll(), QByteArray("0\n1\n"));
  }

  void signalsToTheLauncherStopTheGroup_data() {
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGTERM") << int(SIGTERM);
    QTest::newRow("SIGINT") << int(SIGINT);
  }

  void signalsToTheLauncherStopTheGroup() {
    QFETCH(int, signal);
    QTemporaryDir dir;
    // Each rank notes the signal it receives, then exits 0: the launcher still reports the interruption.
    const QString script = uR"(cd '%1'
trap 'echo TERM > got.$RANK; exit 0' TERM; trap 'echo INT > got.$RANK; exit 0' INT
echo $$ > pid.$RANK; while :; do sleep 0.1; done)"_s.arg(dir.path());
    QProcess p;
    QElapsedTimer timer;
    timer.start();
    start(p, {u"launch"_s, u"--num_processes"_s, u"2"_s, u"sh"_s, u"-c"_s, script});
    QVERIFY(waitForFileCount(dir.path(), u"pid.*"_s, 2));
    QElapsedTimer stopTimer;
    stopTimer.start();
    QCOMPARE(::kill(static_cast<pid_t>(p.processId()), signal), 0);
    const Run r = finish(p, timer);
    QCOMPARE(r.exitCode, 128 + signal);
    QVERIFY2(stopTimer.elapsed() < 10'000, "the group did not stop in time");
    const QByteArray name = signal == SIGTERM ? "TERM" : "INT";
    QVERIFY2(r.err.contains("received SIG" + name + ": stopping all 2 processes"), r.err.constData());
    for (int rank = 0; rank < 2; ++rank) {
      QFile got(dir.filePath(u"got.%1"_s.arg(rank)));
      QVERIFY2(got.open(QIODevice::ReadOnly), "the signal was not forwarded");
      QCOMPARE(got.readAll().trimmed(), name);
    }
    QVERIFY(survivingProcesses(pidsInFiles(dir.path(), u"pid.*"_s), 1000).isEmpty());
  }

  void secondSignalKillsAtOnce() {
    // The workers ignore SIGTERM and the grace period is long: only the second signal's SIGKILL ends them.
    QTemporaryDir dir;
    const QString script =
        uR"(cd '%1'; trap '' TERM; echo $$ > pid.$RANK; while :; do sleep 0.1; done)"_s.arg(dir.path());
    QProcess p;
    QElapsedTimer timer;
    timer.start();
    start(p, {u"launch"_s, u"--num_processes"_s, u"2"_s, u"--terminate_grace_period"_s, u"60"_s, u"sh"_s, u"-c"_s,
              script});
    QVERIFY(waitForFileCount(dir.path(), u"pid.*"_s, 2));
    QElapsedTimer stopTimer;
    stopTimer.start();
    QCOMPARE(::kill(static_cast<pid_t>(p.processId()), SIGTERM), 0);
    QTest::qWait(300);
    QCOMPARE(::kill(static_cast<pid_t>(p.processId()), SIGTERM), 0);
    const Run r = finish(p, timer);
    QCOMPARE(r.exitCode, 128 + SIGTERM);
    QVERIFY2(stopTimer.elapsed() < 10'000, "the second signal did not kill the group");
    QVERIFY2(r.err.contains("received SIGTERM again: killing all processes"), r.err.constData());
    QVERIFY(survivingProcesses(pidsInFiles(dir.path(), u"pid.*"_s), 1000).isEmpty());
  }

  void badInvocationsAreUsageErrors() {
    Run r = fathomRun({u"launch"_s, u"--num_processes"_s, u"0"_s, u"true"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("fathom: error: num_processes must be >= 1, got 0 (--num_processes)"), r.err.constData());
    r = fathomRun({u"launch"_s, u"no-such-program-for-fathom"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("program `no-such-program-for-fathom` was not found in PATH"), r.err.constData());
    r = fathomRun({u"launch"_s, u"--tee"_s, u"3"_s, u"true"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--tee 3 needs --log_dir"), r.err.constData());
    r = fathomRun({u"launch"_s, u"--mixed_precision"_s, u"fp64"_s, u"true"_s});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("fp64"), r.err.constData());
    // The run monitor's settings are checked by the schema, naming the flag (config::MonitorSpec).
    r = fathomRun({u"launch"_s, u"--hang_timeout=-1"_s, u"true"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--hang_timeout: key 'fathom.hang_timeout': out of range: '-1.0'; allowed values: numbers "
                            ">= 0"),
             r.err.constData());
    r = fathomRun({u"launch"_s, u"--num_procs"_s, u"2"_s, u"true"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("unknown flag --num_procs for `fathom launch`"), r.err.constData());
    r = fathomRun({u"launch"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no program given"), r.err.constData());
  }

  // Issue 20: a whole number that the flag's key or variable cannot hold is refused naming the flag, the value and
  // the range, before anything runs (4294967298 was "Could not convert"; through a file it ran 2 ranks).
  void outOfRangeFlagsNameTheRange() {
    Run r = fathomRun({u"launch"_s, u"--num_processes"_s, u"4294967298"_s, u"true"_s});
    QCOMPARE(r.exitCode, 105);  // CLI11's ValidationError
    QVERIFY2(r.err.contains("--num_processes: 4294967298 is out of range (allowed -1..1048576)"), r.err.constData());
    r = fathomRun({u"launch"_s, u"--num_machines"_s, u"99999999999999999999"_s, u"true"_s});
    QCOMPARE(r.exitCode, 105);
    QVERIFY2(r.err.contains("--num_machines: 99999999999999999999 is out of range (allowed 1..65536)"),
             r.err.constData());
    r = fathomRun({u"launch"_s, u"--gradient_accumulation_steps"_s, u"4294967298"_s, u"true"_s});
    QCOMPARE(r.exitCode, 105);
    QVERIFY2(r.err.contains("--gradient_accumulation_steps: 4294967298 is out of range (allowed 1..2147483647)"),
             r.err.constData());
    r = fathomRun({u"launch"_s, u"--max_restarts"_s, u"4294967296"_s, u"true"_s});  // no key: int's range
    QCOMPARE(r.exitCode, 105);
    QVERIFY2(r.err.contains("--max_restarts: 4294967296 is out of range (allowed -2147483648..2147483647)"),
             r.err.constData());
    r = fathomRun({u"launch"_s, u"--nproc_per_node"_s, u"65536"_s, u"--num_machines"_s, u"65536"_s, u"true"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("fathom: error: --nproc_per_node 65536 x --num_machines 65536 processes: 4294967296 is out "
                            "of range (allowed 1..1048576)"),
             r.err.constData());
  }

  void twoMachinesOnOneHost() {
    // Two launchers as machine 0 and 1 of a 4-process group, meeting at one free port on 127.0.0.1; every rank
    // runs the self-check, so RANK arithmetic and the cross-launcher rendezvous are both exercised.
    const QString port = QString::number(freePort());
    QProcess machines[2];
    QElapsedTimer timer;
    timer.start();
    for (int m = 0; m < 2; ++m) {
      start(machines[m], {u"launch"_s, u"--num_processes"_s, u"4"_s, u"--num_machines"_s, u"2"_s, u"--machine_rank"_s,
                          QString::number(m), u"--main_process_ip"_s, u"127.0.0.1"_s, u"--main_process_port"_s, port,
                          fathomPath(), u"test-worker"_s, u"--timeout"_s, u"60"_s});
    }
    for (int m = 0; m < 2; ++m) {
      const Run r = finish(machines[m], timer, 120'000);
      QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
      for (int local = 0; local < 2; ++local) {
        const int rank = 2 * m + local;
        const QByteArray line = "[rank" + QByteArray::number(rank) + "]: self-check passed on rank " +
                                QByteArray::number(rank) + " of 4 (gloo, cpu)";
        QVERIFY2(r.out.contains(line), r.out.constData());
      }
    }
  }

  void selfCheckWithFourProcesses() {
    const Run r = fathomRun({u"test"_s, u"--num_processes"_s, u"4"_s}, 120'000);
    QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());
    QVERIFY2(r.out.contains("Test is a success! You are ready for your distributed training!"), r.out.constData());
    for (int rank = 0; rank < 4; ++rank) {
      const QByteArray line = "[rank" + QByteArray::number(rank) + "]: self-check passed on rank " +
                              QByteArray::number(rank) + " of 4 (gloo, cpu): rendezvous ok (";
      QVERIFY2(r.out.contains(line), r.out.constData());
    }
    QVERIFY(r.out.contains("gather (uneven sizes) ok"));
    qInfo("fathom test --num_processes 4: %lld ms", r.elapsedMs);
  }

private:
  QTemporaryDir m_workspaceDir;
};

QTEST_GUILESS_MAIN(TestLaunch)
#include "tst_launch.moc"
