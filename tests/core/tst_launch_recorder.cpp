// SPDX-License-Identifier: Apache-2.0
// LaunchRecorder: what `fathom launch` records of a run before any worker starts (the typed layout, the run's name,
// the launcher's whole command line), and the launch events of `fathom launch --json` (telemetry/launch_events.h)
// that a program reads instead of the launcher's messages for people.
#include "error_helpers.h"

#include <fathom/common/error.h>
#include <fathom/store/process_identity.h>
#include <fathom/store/workspace.h>
#include <fathom/telemetry/launch_events.h>
#include <fathom/telemetry/launch_recorder.h>
#include <fathom/telemetry/telemetry_sender.h>

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

using namespace fathom;
using namespace fathom::telemetry;
using fathom::test::contains;
using fathom::test::messageOf;

class TestLaunchRecorder : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::filesystem::path m_path = m_dir.filePath(QStringLiteral("ws.sqlite")).toStdString();

  /// Records a launch of `options` (finished at once) and reads its row back.
  store::RunInfo record(const launch::LaunchOptions& options, RunRecordOptions run = {}) {
    LaunchRecorder recorder(m_path, options, std::move(run));
    recorder.finish(0);
    const store::Workspace ws(m_path);
    store::RunInfo info = *ws.run(recorder.run());
    m_lastName = recorder.runName();
    return info;
  }

  std::string m_lastName;  ///< LaunchRecorder::runName() of the last record()

  static launch::LaunchOptions twoProcesses() {
    launch::LaunchOptions o;
    o.command = {"/bin/true"};
    o.numProcesses = 2;
    return o;
  }

private slots:
  // The collector's connection cap is sized by the launch's local world size: maxPendingConnections + 4 per rank.
  void connectionCapFollowsTheLocalWorldSize() {
    launch::LaunchOptions options;
    options.command = {"/bin/true"};
    options.numProcesses = 2;
    CollectorOptions collector;
    collector.maxPendingConnections = 1;
    LaunchRecorder recorder(m_path, options, {}, collector);
    const auto endpoint = [&](int rank) {
      return TelemetryEndpoint{"127.0.0.1", recorder.collector().port(), recorder.collector().token(), rank};
    };
    std::vector<std::unique_ptr<TelemetrySender>> senders;
    for (int rank = 0; rank < 9; ++rank) {  // 1 + 4 x 2
      senders.push_back(std::make_unique<TelemetrySender>(endpoint(rank)));
    }
    const std::string refused = messageOf([&] { TelemetrySender tenth(endpoint(9)); });
    QVERIFY2(contains(refused, "too many connections (9 open, at most 9)"), refused.c_str());
    for (auto& sender : senders) {
      sender->close();
    }
    recorder.finish(0);
  }

  // The layout is typed columns, written with the run: no reader parses the configuration JSON to learn it.
  void recordsTheLayoutTyped() {
    using plan::FsdpSharding;
    using plan::Strategy;
    const std::string host = store::currentHostName();
    store::RunLayout expected;
    expected.worldSize = 2;
    expected.numMachines = 1;
    expected.strategy = store::RunStrategy{};
    expected.mixedPrecision = "no";
    expected.hosts = {host};
    QVERIFY(record(twoProcesses()).layout == expected);

    launch::LaunchOptions fsdp = twoProcesses();
    fsdp.useFsdp = true;
    fsdp.mixedPrecision = launch::MixedPrecision::Bf16;
    expected.strategy = store::RunStrategy{Strategy::Fsdp, FsdpSharding::FullShard};  // Accelerate's default
    expected.mixedPrecision = "bf16";
    QVERIFY(record(fsdp).layout == expected);
    fsdp.fsdp["fsdp_sharding_strategy"] = "SHARD_GRAD_OP";
    expected.strategy = store::RunStrategy{Strategy::Fsdp, FsdpSharding::ShardGradOp};
    QVERIFY(record(fsdp).layout == expected);

    launch::LaunchOptions zero = twoProcesses();
    zero.useDeepSpeed = true;
    expected.mixedPrecision = "no";
    expected.strategy = store::RunStrategy{Strategy::Zero2, {}};  // Accelerate's default stage
    QVERIFY(record(zero).layout == expected);
    zero.zeroStage = 3;
    expected.strategy = store::RunStrategy{Strategy::Zero3, {}};
    QVERIFY(record(zero).layout == expected);
    zero.zeroStage = 0;
    expected.strategy = store::RunStrategy{};  // stage 0 partitions nothing: plain data parallelism
    QVERIFY(record(zero).layout == expected);

    // Machine 1 of 2 knows only its own host.
    launch::LaunchOptions second = twoProcesses();
    second.numProcesses = 4;
    second.numMachines = 2;
    second.machineRank = 1;
    second.mainProcessIp = "10.0.0.1";
    second.mainProcessPort = 29500;
    const store::RunLayout layout = record(second).layout;
    QCOMPARE(layout.worldSize, 4);
    QCOMPARE(layout.numMachines, 2);
    QCOMPARE(layout.hosts, (std::vector<std::string>{"", host}));
  }

  // "fathom train" for every run was no name: the default is the program and the run id, and a name may be given.
  void namesRuns() {
    launch::LaunchOptions train = twoProcesses();
    train.command = {"/usr/local/bin/fathom", "train", "--model", "gpt-tiny"};
    store::RunInfo run = record(train);
    QCOMPARE(run.name, "train-" + std::to_string(run.id.value));
    QCOMPARE(m_lastName, run.name);  // what `fathom launch` prints and puts in its "run" JSON line
    run = record(twoProcesses());
    QCOMPARE(run.name, "true-" + std::to_string(run.id.value));
    QCOMPARE(record(twoProcesses(), {.name = "baseline lr 0.1"}).name, std::string("baseline lr 0.1"));
    QVERIFY(fathom::test::throwsType<ConfigError>([&] { record(twoProcesses(), {.name = "  "}); }));
    const auto message = messageOf([&] { record(twoProcesses(), {.name = "two\nlines"}); });
    QVERIFY2(contains(message, "line break"), message.c_str());
  }

  // The launcher's own flags belong to the run's command line: `fathom launch --num_processes 2 --use_fsdp fathom
  // train` was stored as `fathom launch fathom train`.
  void recordsTheLaunchersCommandLine() {
    const std::vector<std::string> argv{"fathom", "launch", "--num_processes", "2",    "--use_fsdp", "fathom", "train",
                                        "--lr",   "0.1",    "--note",          "a b's"};
    QCOMPARE(record(twoProcesses(), {.launcherArguments = argv}).commandLine,
             std::string("fathom launch --num_processes 2 --use_fsdp fathom train --lr 0.1 --note 'a b'\\''s'"));
    QCOMPARE(record(twoProcesses()).commandLine, std::string("fathom launch /bin/true"));
    QCOMPARE(store::shellCommandLine({"sh", "-c", "echo $RANK; exit 3", ""}),
             std::string("sh -c 'echo $RANK; exit 3' ''"));
  }

  void launchEventsRoundTrip() {
    const std::vector<LaunchEvent> events{
        RunCreated{12, "train-12", "/data/ws.sqlite", 4, {2, 3}},
        RankStarted{3, 1, 0, 4242},
        RankEnded{3, 1, 0, 4242, 137, 9},
        RankEnded{2, 0, 1, 4243, 0, std::nullopt},
        LaunchFinished{12, store::RunStatus::Failed, 137, 2, 3, std::nullopt},
        LaunchFinished{12, store::RunStatus::Failed, 130, 1, std::nullopt, 2},
        LaunchError{"ws.sqlite: not a Fathom workspace"},
        SlurmJobUpdate{"4711", "PENDING"},
    };
    for (const LaunchEvent& event : events) {
      const std::string line = toJsonLine(event);
      QVERIFY2(line.find('\n') == std::string::npos, line.c_str());
      const auto back = parseLaunchEvent(line);
      QVERIFY2(back.has_value(), line.c_str());
      QCOMPARE(toJsonLine(*back), line);
      QCOMPARE(back->index(), event.index());
    }
    // The line format as documented (docs/launch.md): an "event" key, the version in "run" lines.
    const auto run = nlohmann::json::parse(toJsonLine(events[0]));
    QCOMPARE(run.at("event").get<std::string>(), std::string("run"));
    QCOMPARE(run.at("version").get<int>(), kLaunchEventVersion);
    QCOMPARE(run.at("run_id").get<std::int64_t>(), std::int64_t{12});
    QVERIFY(run.at("ranks") == nlohmann::json::array({2, 3}));
    const auto finished = nlohmann::json::parse(toJsonLine(events[4]));
    QCOMPARE(finished.at("status").get<std::string>(), std::string("failed"));
    QVERIFY(finished.at("interrupted_by").is_null());
    // Anything else is not an event: text for people, other JSON, a known kind with a field missing.
    for (const char* other : {"", "fathom launch: run 12 (train-12) in ws.sqlite", "[rank0]: {\"event\":\"run\"}",
                              "{\"event\":\"log\",\"step\":3}", "[1,2]", "{\"event\":\"run\",\"run_id\":\"x\"}",
                              "{\"event\":\"finished\"}"}) {
      QVERIFY2(!parseLaunchEvent(other), other);
    }
    // The stream's lines among text for people: any object with a string "event" (alerts too), nothing else.
    QVERIFY(isEventLine(toJsonLine(events[0])));
    QVERIFY(isEventLine(R"({"event":"alert","kind":"hang"})"));
    for (const char* other : {"", "fathom launch: job 4711 RUNNING", "[rank0]: {\"event\":\"run\"}", "[1,2]",
                              "{\"event\":3}", "{\"event\":\"run\""}) {
      QVERIFY2(!isEventLine(other), other);
    }
    // Numbers are taken exactly or the line is no event (found by fuzz_text_values: a world size of 1.4e28 reached
    // nlohmann's cast to int, undefined behaviour; 2^32 + 2 ranks became 2).
    const std::string runLine = R"({"event":"run","version":2,"run_id":3,"name":"r","workspace":"w.sqlite",)";
    QVERIFY(parseLaunchEvent(runLine + R"("world_size":2,"ranks":[0,1]})"));
    QVERIFY(parseLaunchEvent(runLine + R"("world_size":2.0,"ranks":[0,1]})"));  // a whole number written as a double
    for (const std::string tail :
         {R"("world_size":1.44444e28,"ranks":[0,1]})", R"("world_size":4294967298,"ranks":[0]})",
          R"("world_size":2,"ranks":[0,1.5]})", R"("world_size":2,"ranks":[0,1e300]})"}) {
      QVERIFY2(!parseLaunchEvent(runLine + tail), tail.c_str());
    }
    QVERIFY(!parseLaunchEvent(R"({"event":"rank_ended","rank":0,"local_rank":0,"attempt":0,"pid":7,"exit_code":1,)"
                              R"("signal":1e40})"));
  }
};

QTEST_GUILESS_MAIN(TestLaunchRecorder)
#include "tst_launch_recorder.moc"
