// SPDX-License-Identifier: Apache-2.0
// core/telemetry: the wire format, a collector and senders in one process (commit-then-ack, every frame kind,
// refusals of a wrong token, a wrong version and a stranger), backpressure from a locked workspace, and the
// built-in sqlite tracker with and without the launcher's variables.
#include "env_guard.h"
#include "error_helpers.h"

#include <fathom/common/error.h>
#include <fathom/store/workspace.h>
#include <fathom/telemetry/launch_recorder.h>
#include <fathom/telemetry/sqlite_tracker.h>
#include <fathom/telemetry/telemetry_collector.h>
#include <fathom/telemetry/telemetry_sender.h>
#include <fathom/track/tracker_registry.h>
#include <telemetry/protocol.h>

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>

using namespace fathom;
using namespace fathom::telemetry;
using fathom::test::contains;
using fathom::test::EnvGuard;
using fathom::test::messageOf;

namespace {

TelemetryEndpoint endpointOf(const TelemetryCollector& c, int rank, std::string token = {}) {
  return {"127.0.0.1", c.port(), token.empty() ? c.token() : token, rank};
}

/// The warning events the collector recorded (rank -1).
std::vector<std::string> collectorWarnings(const store::Workspace& ws) {
  std::vector<std::string> out;
  for (const auto& row : ws.eventsSince(store::EventId{0})) {
    if (row.event.rank == -1 && row.event.level == LogLevel::Warning) {
      out.push_back(row.event.text);
    }
  }
  return out;
}

/// Connects a plain socket to the collector, writes `bytes`, and returns what the collector answered before closing.
std::string rawExchange(std::uint16_t port, const std::string& bytes) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return "<connect failed>";
  }
  ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  std::string answer;
  char buffer[4096];
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0;) {
    answer.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return answer;
}

}  // namespace

class TestTelemetry : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string file(const char* name) const { return m_dir.filePath(QString::fromUtf8(name)).toStdString(); }

  /// A workspace with one run, for a collector.
  std::pair<store::Workspace, store::RunId> freshRun(const char* name) {
    store::Workspace ws(file(name));
    const auto run = ws.createRun({"telemetry", "tst_telemetry", "", ""});
    return {std::move(ws), run};
  }

private slots:
  // The run's launch configuration names the sharding the workers were told to use (the Studio's strategy column).
  /// A worker on another host than the launcher's reaches the collector through an ssh-forwarded Unix socket
  /// ("unix:/path"), or over TCP at "ADDRESS:PORT"; anything else is refused naming the variable.
  void endpointIsTcpOrUnixSocket() {
    const EnvGuard token("FATHOM_TELEMETRY_TOKEN", "abc");
    const EnvGuard rank("RANK", "3");
    {
      const EnvGuard endpoint("FATHOM_TELEMETRY_ENDPOINT", "unix:/tmp/fathom-telemetry-0123-1.sock");
      const auto e = TelemetryEndpoint::fromEnvironment();
      QVERIFY(e.has_value());
      QCOMPARE(e->unixPath, std::string("/tmp/fathom-telemetry-0123-1.sock"));
      QCOMPARE(e->rank, 3);
    }
    {
      const EnvGuard endpoint("FATHOM_TELEMETRY_ENDPOINT", "10.0.0.7:4711");
      const auto e = TelemetryEndpoint::fromEnvironment();
      QVERIFY(e.has_value() && e->unixPath.empty());
      QCOMPARE(e->host, std::string("10.0.0.7"));
      QCOMPARE(e->port, std::uint16_t{4711});
    }
    for (const char* bad : {"unix:relative.sock", "unix:", "unix:/", "localhost", "1.2.3.4:0", ":5"}) {
      const EnvGuard endpoint("FATHOM_TELEMETRY_ENDPOINT", bad);
      const std::string message = fathom::test::messageOf([] { TelemetryEndpoint::fromEnvironment(); });
      QVERIFY2(fathom::test::contains(message, std::string("FATHOM_TELEMETRY_ENDPOINT='") + bad + "' is not"),
               message.c_str());
    }
  }

  void launchRecorderNamesTheSharding() {
    QTemporaryDir dir;
    const std::filesystem::path path = dir.filePath("ws.sqlite").toStdString();
    auto recordedConfig = [&](const launch::LaunchOptions& options) {
      LaunchRecorder recorder(path, options);
      recorder.finish(0);
      const store::Workspace ws(path);
      return nlohmann::json::parse(ws.run(recorder.run())->configText);
    };
    launch::LaunchOptions ddp;
    ddp.command = {"/bin/true"};
    ddp.numProcesses = 2;
    nlohmann::json j = recordedConfig(ddp);
    QCOMPARE(j["world_size"].get<int>(), 2);
    QVERIFY(!j.contains("fsdp_sharding_strategy") && !j.contains("zero_stage"));
    launch::LaunchOptions fsdp = ddp;
    fsdp.useFsdp = true;
    QCOMPARE(recordedConfig(fsdp)["fsdp_sharding_strategy"].get<std::string>(), std::string("FULL_SHARD"));
    fsdp.fsdp["fsdp_sharding_strategy"] = "SHARD_GRAD_OP";
    QCOMPARE(recordedConfig(fsdp)["fsdp_sharding_strategy"].get<std::string>(), std::string("SHARD_GRAD_OP"));
    launch::LaunchOptions zero = ddp;
    zero.useDeepSpeed = true;
    QCOMPARE(recordedConfig(zero)["zero_stage"].get<int>(), 2);
    zero.zeroStage = 3;
    j = recordedConfig(zero);
    QCOMPARE(j["zero_stage"].get<int>(), 3);
    QVERIFY(!j.contains("fsdp_sharding_strategy"));
  }

  void framesRoundTrip() {
    std::string bytes;
    protocol::FrameWriter w(bytes);
    w.hello({protocol::kVersion, 3, 4242, "secret", "node7"});
    std::string points;
    protocol::encodePoint(points, 5, 1.5e9, "loss", 0.25);
    protocol::encodePoint(points, 6, 1.5e9 + 1, "lr", NAN);
    w.metrics(1, 2, points);
    // Frame 1: u32 length | u8 type | body.
    std::uint32_t length = 0;
    std::memcpy(&length, bytes.data(), 4);
    QCOMPARE(static_cast<int>(bytes[4]), static_cast<int>(protocol::FrameType::Hello));
    const auto hello = protocol::decodeHello(std::string_view(bytes).substr(5, length - 1));
    QCOMPARE(hello.rank, 3);
    QCOMPARE(hello.pid, std::int64_t{4242});
    QCOMPARE(hello.token, std::string("secret"));
    QCOMPARE(hello.host, std::string("node7"));
    const auto second = std::string_view(bytes).substr(4 + length);
    std::uint32_t length2 = 0;
    std::memcpy(&length2, second.data(), 4);
    QCOMPARE(std::size_t{length2} + 4, second.size());
    QCOMPARE(static_cast<int>(second[4]), static_cast<int>(protocol::FrameType::Metrics));
    protocol::BodyReader in(second.substr(5), "metrics");
    QCOMPARE(in.u64(), std::uint64_t{1});
    std::vector<store::MetricPoint> decoded;
    protocol::decodeMetrics(in, 3, decoded);
    QCOMPARE(decoded.size(), std::size_t{2});
    QCOMPARE(decoded[0].key, std::string("loss"));
    QCOMPARE(decoded[0].step, std::int64_t{5});
    QCOMPARE(decoded[0].value, 0.25);
    QCOMPARE(decoded[0].rank, 3);
    QVERIFY(std::isnan(decoded[1].value));
    // A lying count and a truncated body are errors, not crashes.
    std::string lie;
    protocol::FrameWriter(lie).metrics(1, 1'000'000, points);
    protocol::BodyReader bad(std::string_view(lie).substr(5), "metrics");
    bad.u64();
    QVERIFY(fathom::test::throwsType<CommError>([&] { protocol::decodeMetrics(bad, 0, decoded); }));
    QVERIFY(fathom::test::throwsType<CommError>([&] { protocol::decodeHello("FTHM\x01"); }));
    QVERIFY(contains(messageOf([&] { protocol::decodeHello("HTTP/1.1 200"); }), "magic"));
  }

  void commitsThenAcknowledgesEveryFrameKind() {
    auto [ws, run] = freshRun("kinds.sqlite");
    TelemetryCollector collector(std::move(ws), run);
    QVERIFY(collector.endpoint().rfind("127.0.0.1:", 0) == 0);
    QCOMPARE(collector.token().size(), std::size_t{64});
    const auto env = collector.workerEnvironment();
    QCOMPARE(env.size(), std::size_t{3});
    QCOMPARE(env[0].first, std::string(protocol::kEndpointVariable));
    QCOMPARE(env[2].second, std::to_string(run.value));

    std::atomic<std::uint64_t> lastCallback{0};
    SenderOptions options;
    options.batchPoints = 1000;
    options.heartbeatInterval = std::chrono::milliseconds(20);
    options.onAcknowledged = [&](std::uint64_t acked) { lastCallback = acked; };
    TelemetrySender sender(endpointOf(collector, 2), options);
    QCOMPARE(sender.runId(), run.value);
    constexpr int kPoints = 25'000;
    for (int i = 0; i < kPoints; ++i) {
      sender.addMetric(i / 5, 1.7e9 + i, i % 5 == 0 ? "loss" : "aux/" + std::to_string(i % 5), i);
    }
    sender.sendMemory({1.7e9, 7, 1000, 2000, 1500});
    sender.sendLog(LogLevel::Warning, "a warning line", 1.7e9);
    sender.sendTrace("trace.json", "{\"traceEvents\":[", 1.7e9);
    sender.sendTrace("trace.json", "]}", 1.7e9 + 1);
    sender.setStep(4999);
    sender.flush();
    QCOMPARE(sender.sentPoints(), std::uint64_t{kPoints + 3});
    QCOMPARE(sender.acknowledgedPoints(), std::uint64_t{kPoints + 3});
    QCOMPARE(lastCallback.load(), std::uint64_t{kPoints + 3});
    // Acknowledged means committed: a second connection to the file sees every point now, before stop().
    {
      store::Workspace reader(file("kinds.sqlite"), {.create = false, .reconcile = false});
      QCOMPARE(reader.metricSeries(run, "loss").size(), std::size_t{kPoints / 5});
      // An idle sender keeps sending heartbeats (every 20 ms here) with the latest step.
      QTRY_VERIFY_WITH_TIMEOUT(!reader.heartbeats(run).empty() && reader.heartbeats(run)[0].step == 4999, 10'000);
    }
    sender.close();
    sender.close();  // idempotent
    collector.stop();

    auto& out = collector.workspace();
    const auto loss = out.metricSeries(run, "loss", 2);
    QCOMPARE(loss.size(), std::size_t{kPoints / 5});
    QCOMPARE(loss.back().point.step, std::int64_t{kPoints / 5 - 1});
    QCOMPARE(loss.back().point.value, double(kPoints - 5));
    QCOMPARE(out.metricSeries(run, "memory/reserved_bytes").at(0).point.value, 2000.0);
    QCOMPARE(out.metricSeries(run, "memory/peak_allocated_bytes").at(0).point.step, std::int64_t{7});
    const auto events = out.eventsSince(store::EventId{0});
    QVERIFY(std::any_of(events.begin(), events.end(), [](const store::EventRow& e) {
      return e.event.rank == 2 && e.event.level == LogLevel::Warning && e.event.text == "a warning line";
    }));
    QCOMPARE(out.traceData(run, "trace.json", 2), std::string("{\"traceEvents\":[]}"));
    QCOMPARE(out.traces(run).at(0).chunks, std::int64_t{2});
    QCOMPARE(out.heartbeats(run).size(), std::size_t{1});
    QCOMPARE(out.heartbeats(run)[0].step, std::int64_t{4999});
    const auto ranks = out.ranks(run);
    QCOMPARE(ranks.size(), std::size_t{1});
    QCOMPARE(ranks[0].rank, 2);
    QCOMPARE(ranks[0].pid, static_cast<std::int64_t>(::getpid()));
    const auto stats = collector.stats();
    QCOMPARE(stats.pointsCommitted, std::uint64_t{kPoints + 3});
    QCOMPARE(stats.connectionsAccepted, std::uint64_t{1});
    QCOMPARE(stats.connectionsRefused, std::uint64_t{0});
  }

  // A worker may choose its own strategy (`fathom train --strategy zero2` under a launcher that selected nothing):
  // rank 0's setup report replaces what the launcher recorded; another rank's is read but not applied.
  void setupFromRankZeroReplacesTheLaunchersStrategy() {
    store::Workspace ws(file("setup.sqlite"));
    store::NewRun spec{"setup", "fathom launch fathom train --strategy zero2", "", ""};
    spec.layout.worldSize = 2;
    spec.layout.strategy = store::RunStrategy{};
    spec.layout.mixedPrecision = "no";
    const auto run = ws.createRun(spec);
    TelemetryCollector collector(std::move(ws), run);
    TelemetrySender one(endpointOf(collector, 1));
    one.sendSetup({store::RunStrategy{plan::Strategy::Zero3, {}}, "fp16"});
    one.close();
    TelemetrySender zero(endpointOf(collector, 0));
    zero.sendSetup({store::RunStrategy{plan::Strategy::Zero2, {}}, "bf16"});
    zero.close();
    collector.stop();
    const store::RunLayout layout = collector.workspace().run(run)->layout;
    QVERIFY(layout.strategy == (store::RunStrategy{plan::Strategy::Zero2, {}}));
    QCOMPARE(layout.mixedPrecision, std::string("bf16"));
    QCOMPARE(layout.worldSize, 2);  // the launcher's, untouched

    // A setup frame naming a strategy this build does not know is a protocol error.
    std::string bytes;
    protocol::FrameWriter(bytes).setup(1,
                                       {store::RunStrategy{plan::Strategy::Fsdp, plan::FsdpSharding::NoShard}, "no"});
    protocol::BodyReader in(std::string_view(bytes).substr(5 + 8), "setup");  // after length, type and seq
    const store::RunSetup decoded = protocol::decodeSetup(in);
    QVERIFY(decoded.strategy == (store::RunStrategy{plan::Strategy::Fsdp, plan::FsdpSharding::NoShard}));
    std::string bad;
    protocol::FrameWriter(bad).log(1, 0, LogLevel::Info, "x");  // a body of the wrong shape
    protocol::BodyReader wrong(std::string_view(bad).substr(5 + 8), "setup");
    QVERIFY(fathom::test::throwsType<CommError>([&] { protocol::decodeSetup(wrong); }));
  }

  // A device map a rank dispatched with travels whole (its record is kept unread) and is stored with the rank that
  // sent it; the run's maps read back in order, and from a cursor.
  void deviceMapsAreStoredWithTheirRank() {
    auto [ws, run] = freshRun("device_maps.sqlite");
    TelemetryCollector collector(std::move(ws), run);
    const std::string large(300'000, 'x');  // larger than a socket buffer: the frame arrives in pieces
    TelemetrySender one(endpointOf(collector, 1));
    one.sendDeviceMap("{\"first\": 1}", 100.5);
    one.sendDeviceMap(large, 101.0);
    one.close();
    TelemetrySender zero(endpointOf(collector, 0));
    zero.sendDeviceMap("{\"third\": 3}", 102.0);
    zero.close();
    collector.stop();
    const auto maps = collector.workspace().deviceMaps(run);
    QCOMPARE(maps.size(), std::size_t{3});
    QCOMPARE(maps[0].map.rank, 1);
    QCOMPARE(maps[0].map.createdAt, 100.5);
    QCOMPARE(maps[0].map.recordJson, std::string("{\"first\": 1}"));
    QCOMPARE(maps[1].map.recordJson, large);
    QCOMPARE(maps[2].map.rank, 0);
    QVERIFY(maps[0].id < maps[1].id && maps[1].id < maps[2].id);
    const auto after = collector.workspace().deviceMaps(run, maps[1].id);
    QCOMPARE(after.size(), std::size_t{1});
    QCOMPARE(after[0].map.recordJson, std::string("{\"third\": 3}"));
    // Deleting the run deletes its maps.
    collector.workspace().deleteRun(run, /*force=*/true);
    QVERIFY(collector.workspace().deviceMaps(run).empty());
  }

  void refusesWrongTokenVersionAndStrangers() {
    auto [ws, run] = freshRun("refuse.sqlite");
    TelemetryCollector collector(std::move(ws), run);
    const auto message = messageOf([&] { TelemetrySender bad(endpointOf(collector, 1, "not-the-token")); });
    QVERIFY2(contains(message, "refused rank 1"), message.c_str());
    QVERIFY2(contains(message, "wrong token"), message.c_str());
    QVERIFY(fathom::test::throwsType<CommError>([&] { TelemetrySender bad(endpointOf(collector, 1, "x")); }));

    // Another protocol version: refused with the reason, in a Refused frame.
    std::string hello;
    protocol::FrameWriter(hello).hello({99, 0, 1, collector.token(), "h"});
    const std::string answer = rawExchange(collector.port(), hello);
    QVERIFY(answer.size() > 5);
    QCOMPARE(static_cast<int>(answer[4]), static_cast<int>(protocol::FrameType::Refused));
    QVERIFY2(contains(answer, "protocol version 99 is not supported"), answer.c_str());
    // Not the protocol at all.
    const std::string http = rawExchange(collector.port(), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    QCOMPARE(static_cast<int>(http.size() > 4 ? http[4] : 0), static_cast<int>(protocol::FrameType::Refused));

    // The right token still works after all that.
    TelemetrySender good(endpointOf(collector, 0));
    good.addMetric(0, 1.7e9, "loss", 1.0);
    good.close();
    collector.stop();
    QCOMPARE(collector.stats().connectionsRefused, std::uint64_t{4});
    QCOMPARE(collector.stats().refused.wrongToken, std::uint64_t{2});
    QCOMPARE(collector.stats().refused.wrongVersion, std::uint64_t{1});
    QCOMPARE(collector.stats().refused.malformed, std::uint64_t{1});
    // Refusals are reported at a bounded rate (tst_telemetry_limits): the first in full, then the run's totals.
    const auto warnings = collectorWarnings(collector.workspace());
    QCOMPARE(warnings.size(), std::size_t{2});
    QVERIFY2(contains(warnings[0], "telemetry: refused a connection from 127.0.0.1:") &&
                 contains(warnings[0], "(rank 1, pid " + std::to_string(::getpid()) + "): wrong token"),
             warnings[0].c_str());
    QVERIFY2(contains(warnings[1], "4 connections refused during the run") &&
                 contains(warnings[1], ": 2 wrong token, 1 unsupported version, 1 malformed"),
             warnings[1].c_str());
    // The reasons themselves reached the peers, in their Refused frames.
    QVERIFY2(contains(http, "a first frame of 542393671 bytes"), http.c_str());
    // Only the accepted sender became a rank, and only its point is stored.
    QCOMPARE(collector.workspace().ranks(run).size(), std::size_t{1});
    QCOMPARE(collector.workspace().metricSeries(run, "loss").size(), std::size_t{1});
  }

  void slowDiskSlowsTheSenderWithoutLoss() {
    auto [ws, run] = freshRun("slow.sqlite");
    CollectorOptions small;
    small.queuePoints = 2'000;
    small.maxPointsPerCommit = 1'000;
    TelemetryCollector collector(std::move(ws), run, small);

    // Another connection holds the write lock: the collector's commits wait (busy timeout), like a stalled disk.
    sqlite3* blocker = nullptr;
    QCOMPARE(sqlite3_open(file("slow.sqlite").c_str(), &blocker), SQLITE_OK);
    QCOMPARE(sqlite3_exec(blocker, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);

    SenderOptions options;
    options.batchPoints = 500;
    options.maxQueuedFrames = 2;
    constexpr std::int64_t kPoints = 400'000;
    std::atomic<std::int64_t> queued{0};
    TelemetrySender sender(endpointOf(collector, 0), options);
    std::thread producer([&] {
      for (std::int64_t i = 0; i < kPoints; ++i) {
        sender.addMetric(i, 1.7e9, "x", static_cast<double>(i));
        queued = i + 1;
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    // Blocked: what got through is bounded by the queues and socket buffers, far below what was offered.
    const std::int64_t whileBlocked = queued.load();
    qInfo("queued while the workspace was locked: %lld of %lld points", static_cast<long long>(whileBlocked),
          static_cast<long long>(kPoints));
    QVERIFY2(whileBlocked < kPoints / 2, "the sender was not slowed down by a stalled workspace");
    QCOMPARE(sender.acknowledgedPoints(), std::uint64_t{0});
    QCOMPARE(sqlite3_exec(blocker, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(blocker);
    producer.join();
    sender.close();
    QCOMPARE(sender.acknowledgedPoints(), std::uint64_t{kPoints});
    collector.stop();
    const auto series = collector.workspace().metricSeries(run, "x");
    QCOMPARE(series.size(), static_cast<std::size_t>(kPoints));
    for (std::int64_t i = 0; i < kPoints; i += 9973) {
      QCOMPARE(series[static_cast<std::size_t>(i)].point.value, static_cast<double>(i));
    }
  }

  void senderFailsWhenTheCollectorGoes() {
    auto [ws, run] = freshRun("gone.sqlite");
    auto collector = std::make_unique<TelemetryCollector>(
        std::move(ws), run, CollectorOptions{.drainTimeout = std::chrono::milliseconds(200)});
    TelemetrySender sender(endpointOf(*collector, 0));
    sender.addMetric(0, 1.7e9, "loss", 1);
    sender.flush();
    collector.reset();  // stops: the connection is cut after the drain timeout
    const auto message = messageOf([&] {
      for (int i = 0; i < 1'000'000; ++i) {
        sender.addMetric(i, 1.7e9, "loss", 1);
      }
      sender.flush();
    });
    QVERIFY2(contains(message, "closed the connection"), message.c_str());
  }

  void sqliteTrackerWritesDirectlyWithoutTheLauncher() {
    EnvGuard noEndpoint(protocol::kEndpointVariable, nullptr);
    EnvGuard rank("RANK", "0");
    QCOMPARE(registerSqliteTracker(), std::string("sqlite"));
    QCOMPARE(registerSqliteTracker(), std::string("sqlite"));  // once per process
    const auto all = track::parseLogWith("all");
    QVERIFY(std::find(all.begin(), all.end(), "sqlite") != all.end());

    track::TrackerOptions options;
    options.workspace = file("direct.sqlite");
    options.runName = "direct-run";
    auto tracker = track::makeTracker("sqlite", options);
    QVERIFY(!tracker->mainProcessOnly());
    auto* sqlite = dynamic_cast<SqliteTracker*>(tracker.get());
    QVERIFY(sqlite != nullptr);
    QVERIFY(!sqlite->launched());
    sqlite->recordSetup({store::RunStrategy{plan::Strategy::Zero1, {}}, "bf16"}, 1);
    tracker->storeInitConfiguration({{"lr", 0.001}, {"model", "mlp"}});
    tracker->log({{"loss", 0.5}, {"tokens", std::int64_t{4096}}, {"phase", std::string("warmup")}}, 3);
    tracker->log({{"loss", 0.25}}, 4);
    sqlite->deviceMap("{\"a record\": 1}", 12.5);
    tracker->finish();
    QVERIFY(contains(messageOf([&] { sqlite->deviceMap("{}", 13.0); }), "after finish()"));

    store::Workspace ws(file("direct.sqlite"));
    const auto runs = ws.listRuns();
    QCOMPARE(runs.size(), std::size_t{1});
    QCOMPARE(runs[0].name, std::string("direct-run"));
    QVERIFY(store::toString(runs[0].status) == "succeeded");
    QCOMPARE(nlohmann::json::parse(runs[0].configText)["model"].get<std::string>(), std::string("mlp"));
    QVERIFY(contains(runs[0].commandLine, "tst_telemetry"));
    QCOMPARE(ws.metricSeries(runs[0].id, "loss").size(), std::size_t{2});
    QCOMPARE(ws.metricSeries(runs[0].id, "tokens").at(0).point.value, 4096.0);
    const auto events = ws.eventsSince(store::EventId{0});
    QCOMPARE(events.size(), std::size_t{1});
    QCOMPARE(events[0].event.text, std::string("phase = warmup"));
    QCOMPARE(ws.ranks(runs[0].id).size(), std::size_t{1});
    const auto maps = ws.deviceMaps(runs[0].id);
    QCOMPARE(maps.size(), std::size_t{1});
    QCOMPARE(maps[0].map.recordJson, std::string("{\"a record\": 1}"));
    QCOMPARE(maps[0].map.createdAt, 12.5);
    // The run this process wrote alone records the setup its Accelerator reported, typed.
    QCOMPARE(runs[0].layout.worldSize, 1);
    QVERIFY(runs[0].layout.strategy == (store::RunStrategy{plan::Strategy::Zero1, {}}));
    QCOMPARE(runs[0].layout.mixedPrecision, std::string("bf16"));
    QCOMPARE(runs[0].layout.hosts, std::vector<std::string>{store::currentHostName()});
  }

  void sqliteTrackerSendsUnderTheLauncher() {
    registerSqliteTracker();
    auto [ws, run] = freshRun("launched.sqlite");
    TelemetryCollector collector(std::move(ws), run);
    const auto env = collector.workerEnvironment();
    EnvGuard endpoint(env[0].first.c_str(), env[0].second.c_str());
    EnvGuard token(env[1].first.c_str(), env[1].second.c_str());
    EnvGuard rank("RANK", "1");
    track::TrackerOptions options;
    options.workspace = file("must-not-exist.sqlite");
    auto tracker = track::makeTracker("sqlite", options);
    auto* sqlite = dynamic_cast<SqliteTracker*>(tracker.get());
    QVERIFY(sqlite->launched());
    QCOMPARE(sqlite->run().value, run.value);
    tracker->storeInitConfiguration({{"lr", 0.1}});  // rank 1: not sent (rank 0 sends the hparams event)
    for (int step = 0; step < 100; ++step) {
      tracker->log({{"loss", 1.0 / (step + 1)}}, step);
    }
    tracker->finish();  // waits for the collector's ack
    QVERIFY(!std::filesystem::exists(file("must-not-exist.sqlite")));
    {
      EnvGuard badToken(env[1].first.c_str(), "0000");
      const auto message = messageOf([&] { track::makeTracker("sqlite", options); });
      QVERIFY2(contains(message, "refused rank 1: wrong token"), message.c_str());
      EnvGuard badEndpoint(env[0].first.c_str(), "nowhere");
      const auto malformed = messageOf([&] { track::makeTracker("sqlite", options); });
      QVERIFY2(contains(malformed, "FATHOM_TELEMETRY_ENDPOINT='nowhere'"), malformed.c_str());
    }
    collector.stop();
    const auto loss = collector.workspace().metricSeries(run, "loss", 1);
    QCOMPARE(loss.size(), std::size_t{100});
    QCOMPARE(loss[99].point.step, std::int64_t{99});
  }
};

QTEST_GUILESS_MAIN(TestTelemetry)
#include "tst_telemetry.moc"
