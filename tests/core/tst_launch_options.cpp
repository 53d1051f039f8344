// SPDX-License-Identifier: Apache-2.0
// fathom::launch option checks, the environment layer, and the variables each worker gets.
#include <fathom/common/error.h>
#include <fathom/launch/launch_options.h>
#include <fathom/launch/worker_environment.h>
#include <fathom/launch/worker_process.h>
#include <launch/rank_output.h>

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <map>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

using namespace fathom::launch;
using Vars = std::vector<std::pair<std::string, std::string>>;

namespace {

LaunchOptions withCommand(LaunchOptions o) {
  o.command = {"true"};
  return o;
}

std::map<std::string, std::string> asMap(const Vars& vars) {
  return {vars.begin(), vars.end()};
}

QString rejection(const LaunchOptions& o) {
  try {
    validate(o);
  } catch (const fathom::ConfigError& e) {
    return QString::fromUtf8(e.what());
  }
  return QStringLiteral("accepted");
}

}  // namespace

class TestLaunchOptions : public QObject {
  Q_OBJECT

private slots:
  void validationNamesTheFlag() {
    QCOMPARE(rejection(withCommand({})), QStringLiteral("accepted"));
    QCOMPARE(rejection({}), QStringLiteral("no program given: use `fathom launch [flags] PROGRAM [ARGS...]`"));
    QCOMPARE(rejection(withCommand({.numProcesses = 0})), QStringLiteral("--num_processes must be >= 1, got 0"));
    QCOMPARE(
        rejection(withCommand({.numProcesses = 3, .numMachines = 2})),
        QStringLiteral("--num_processes (3, the total over all machines) must be a multiple of --num_machines (2)"));
    QCOMPARE(rejection(withCommand({.numProcesses = 4, .numMachines = 2, .machineRank = 2})),
             QStringLiteral("--machine_rank must be in [0, 2), got 2"));
    QCOMPARE(rejection(withCommand({.numProcesses = 4, .numMachines = 2, .mainProcessIp = "10.0.0.1"})),
             QStringLiteral("--main_process_port is required with --num_machines 2 (a free port cannot be agreed "
                            "between machines)"));
    QCOMPARE(rejection(withCommand({.useFsdp = true, .useDeepSpeed = true})),
             QStringLiteral("You can only use one of `--cpu`, `--use_deepspeed`, `--use_fsdp` at a time (as "
                            "accelerate launch)"));
    QCOMPARE(rejection(withCommand({.gradientAccumulationSteps = 0})),
             QStringLiteral("--gradient_accumulation_steps must be >= 1, got 0"));
    QCOMPARE(rejection(withCommand({.zeroStage = 4})), QStringLiteral("--zero_stage must be 0, 1, 2 or 3, got 4"));
    QCOMPARE(rejection(withCommand({.useFsdp = true, .fsdp = {{"fsdp_offload_params", "sometimes"}}})),
             QStringLiteral("--fsdp_offload_params must be true or false, got sometimes"));
    QCOMPARE(rejection(withCommand({.useFsdp = true, .fsdp = {{"fsdp_sync_module_states", "false"}}})),
             QStringLiteral("When using `--fsdp_cpu_ram_efficient_loading` set `--fsdp_sync_module_states` to `True`"));
    QCOMPARE(rejection(withCommand({.maxRestarts = -1})), QStringLiteral("--max_restarts must be >= 0, got -1"));
    QCOMPARE(rejection(withCommand({.tee = TeeStreams::Both})),
             QStringLiteral("--tee 3 needs --log_dir: the log files are written there"));
  }

  void workerVariablesFollowTorchrunAndAccelerate() {
    LaunchOptions o = withCommand(
        {.numProcesses = 4, .numMachines = 2, .machineRank = 1, .mainProcessIp = "10.0.0.9", .mainProcessPort = 29600});
    auto vars = workerVariables(o, {.localRank = 1, .masterPort = 29600, .restartCount = 2}, std::nullopt);
    QCOMPARE(vars.front(), (std::pair<std::string, std::string>{"RANK", "3"}));
    auto m = asMap(vars);
    QCOMPARE(m["LOCAL_RANK"], std::string("1"));
    QCOMPARE(m["WORLD_SIZE"], std::string("4"));
    QCOMPARE(m["LOCAL_WORLD_SIZE"], std::string("2"));
    QCOMPARE(m["GROUP_RANK"], std::string("1"));
    QCOMPARE(m["MASTER_ADDR"], std::string("10.0.0.9"));
    QCOMPARE(m["MASTER_PORT"], std::string("29600"));
    QCOMPARE(m["TORCHELASTIC_RESTART_COUNT"], std::string("2"));
    QCOMPARE(m["OMP_NUM_THREADS"], std::string("1"));  // two local processes, launcher has none
    QCOMPARE(m["ACCELERATE_MIXED_PRECISION"], std::string("no"));
    QVERIFY(!m.count("ACCELERATE_GRADIENT_ACCUMULATION_STEPS"));  // would override the program's own value
    QVERIFY(!m.count("ACCELERATE_USE_FSDP"));
    QVERIFY(!m.count("ACCELERATE_USE_CPU"));

    // The launcher's OMP_NUM_THREADS is inherited, not overwritten; one process gets none either.
    QVERIFY(!asMap(workerVariables(o, {.masterPort = 1}, std::string("8"))).count("OMP_NUM_THREADS"));
    QVERIFY(!asMap(workerVariables(withCommand({}), {.masterPort = 1}, std::nullopt)).count("OMP_NUM_THREADS"));
    o.numCpuThreadsPerProcess = 3;
    QCOMPARE(asMap(workerVariables(o, {.masterPort = 1}, std::string("8")))["OMP_NUM_THREADS"], std::string("3"));
  }

  void fsdpAndDeepSpeedVariables() {
    LaunchOptions o =
        withCommand({.mixedPrecision = MixedPrecision::Bf16,
                     .gradientAccumulationSteps = 4,
                     .useFsdp = true,
                     .fsdp = {{"fsdp_offload_params", "True"}, {"fsdp_transformer_layer_cls_to_wrap", "Block"}},
                     .debug = true});
    auto m = asMap(workerVariables(o, {.masterPort = 1}, std::nullopt));
    QCOMPARE(m["ACCELERATE_MIXED_PRECISION"], std::string("bf16"));
    QCOMPARE(m["ACCELERATE_GRADIENT_ACCUMULATION_STEPS"], std::string("4"));
    QCOMPARE(m["ACCELERATE_DEBUG_MODE"], std::string("true"));
    QCOMPARE(m["ACCELERATE_USE_FSDP"], std::string("true"));
    QCOMPARE(m["FSDP_OFFLOAD_PARAMS"], std::string("true"));  // lower-cased, as str(...).lower()
    QCOMPARE(m["FSDP_TRANSFORMER_CLS_TO_WRAP"], std::string("Block"));
    QCOMPARE(m["FSDP_SHARDING_STRATEGY"], std::string("FULL_SHARD"));
    QCOMPARE(m["FSDP_MIN_NUM_PARAMS"], std::string("100000000"));
    QVERIFY(!m.count("FSDP_STATE_DICT_TYPE"));  // no default: only set when given

    auto ds =
        asMap(workerVariables(withCommand({.cpu = false, .useDeepSpeed = true}), {.masterPort = 1}, std::nullopt));
    QCOMPARE(ds["ACCELERATE_USE_DEEPSPEED"], std::string("true"));
    QCOMPARE(ds["ACCELERATE_DEEPSPEED_ZERO_STAGE"], std::string("2"));
    auto megatron = asMap(workerVariables(withCommand({.useMegatronLm = true}), {.masterPort = 1}, std::nullopt));
    QCOMPARE(megatron["ACCELERATE_USE_MEGATRON_LM"], std::string("true"));
    auto cpu = asMap(workerVariables(withCommand({.cpu = true}), {.masterPort = 1}, std::nullopt));
    QCOMPARE(cpu["ACCELERATE_USE_CPU"], std::string("True"));
  }

  void rankOutputPrefixesAndTees() {
    QTemporaryDir dir;
    int console[2];
    QCOMPARE(pipe2(console, O_NONBLOCK), 0);
    {
      RankOutput out({.rank = 3,
                      .stdoutFd = console[1],
                      .stderrFd = console[1],
                      .stdoutLog = (dir.path() + "/a/stdout.log").toStdString(),
                      .tailLines = 2});
      out.append(Stream::Stdout, "hel");
      out.append(Stream::Stdout, "lo\nwor");
      out.append(Stream::Stderr, "oops\r\n");
      out.append(Stream::Stdout, "ld\nlast");
      out.finish(Stream::Stdout);
      QCOMPARE(out.tail(), (std::vector<std::string>{"world", "last"}));
    }
    char buffer[256] = {};
    const auto n = read(console[0], buffer, sizeof(buffer) - 1);
    QCOMPARE(QByteArray(buffer, int(n)), QByteArray("[rank3]: hello\n[rank3]: oops\n[rank3]: world\n[rank3]: last\n"));
    QFile log(dir.path() + "/a/stdout.log");
    QVERIFY(log.open(QIODevice::ReadOnly));
    QCOMPARE(log.readAll(), QByteArray("hello\nworld\nlast\n"));
    close(console[0]);
    close(console[1]);
  }

  void workerProcessBasics() {
    QCOMPARE((ExitStatus{false, 7}.describe()), std::string("exit code 7"));
    QCOMPARE((ExitStatus{true, SIGKILL}.describe()), std::string("signal 9 (SIGKILL)"));
    QCOMPARE((ExitStatus{true, SIGTERM}.shellCode()), 143);
    QCOMPARE(WorkerProcess::resolveProgram("sh", "/nonexistent:/bin:/usr/bin").substr(0, 1), std::string("/"));
    QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, WorkerProcess::resolveProgram("no-such-program-fathom", "/bin"));
    try {
      WorkerProcess::spawn({"/nonexistent/program", {}, {}});
      QFAIL("spawned");
    } catch (const fathom::ConfigError& e) {
      QCOMPARE(QString::fromUtf8(e.what()),
               QStringLiteral("cannot execute /nonexistent/program: No such file or directory"));
    }
    auto p = WorkerProcess::spawn({"/bin/sh", {"-c", "exit 5"}, {}});
    for (int i = 0; i < 500 && !p->poll(); ++i) {
      QTest::qWait(10);
    }
    QVERIFY(p->status().has_value());
    QCOMPARE(p->status()->shellCode(), 5);
  }
};

QTEST_GUILESS_MAIN(TestLaunchOptions)
#include "tst_launch_options.moc"
