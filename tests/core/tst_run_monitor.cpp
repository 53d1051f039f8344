// SPDX-License-Identifier: Apache-2.0
// The run monitor's parts without processes: the collective wavefront a CommRecorder keeps, the Heartbeat frame
// that carries it (round trip and malformed bodies), and RunMonitor's hang and straggler rules on made-up reports.
#include <fathom/common/error.h>  // first: moc (Qt 6.4) cannot parse <concepts> when a store header leads
#include <fathom/parallel/collective_wavefront.h>
#include <fathom/telemetry/run_monitor.h>
#include <telemetry/protocol.h>

#include <QTest>

#include <cmath>
#include <cstring>
#include <thread>

using namespace fathom;
using namespace fathom::telemetry;
using parallel::CollectivePosition;
using parallel::CommKind;
using parallel::WavefrontSnapshot;
using Clock = RunMonitor::Clock;

namespace {

CollectivePosition call(std::uint64_t sequence, CommKind kind = CommKind::AllReduce) {
  return {sequence, kind, "world", 2, 4};
}

/// A rank that entered `entered` and finished `finished` (no call when negative), at wavefront step `step` with
/// `work` seconds of its own.
RankReport report(int rank, int entered, int finished, std::int64_t step = 1, double work = 0) {
  RankReport r;
  r.rank = rank;
  r.step = step;
  if (entered >= 0) {
    r.wavefront.entered = call(static_cast<std::uint64_t>(entered));
  }
  if (finished >= 0) {
    r.wavefront.finished = call(static_cast<std::uint64_t>(finished));
  }
  r.wavefront.step = step;
  r.wavefront.workSecondsAtStep = work;
  return r;
}

/// Heartbeat body bytes after the seq, as the sender writes them (the frame header and seq stripped).
std::string heartbeatBody(const protocol::HeartbeatBody& beat) {
  std::string frame;
  protocol::FrameWriter(frame).heartbeat(1, beat);
  return frame.substr(4 + 1 + 8);
}

protocol::HeartbeatBody decode(const std::string& body) {
  protocol::BodyReader in(body, "heartbeat");
  return protocol::decodeHeartbeat(in);
}

}  // namespace

class TestRunMonitor : public QObject {
  Q_OBJECT

private slots:
  void wavefrontFollowsBeginAndFinish() {
    parallel::CollectiveWavefront w;
    QVERIFY(w.snapshot() == WavefrontSnapshot{});
    w.entered(call(0));
    w.entered(call(1));  // an asynchronous call in flight with the first
    QCOMPARE(w.snapshot().entered->sequence, std::uint64_t{1});
    QVERIFY(!w.snapshot().finished);
    w.finished(call(1));
    w.finished(call(0));  // out of order: finished keeps the highest
    QCOMPARE(w.snapshot().finished->sequence, std::uint64_t{1});
    // Work seconds count only the time with no call in flight.
    w.markStep(1);
    const double atOne = w.snapshot().workSecondsAtStep;
    w.entered(call(2));
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    w.finished(call(2));
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    w.markStep(2);
    const double own = w.snapshot().workSecondsAtStep - atOne;
    QVERIFY2(own >= 0.025 && own < 0.055, QByteArray::number(own));
    QCOMPARE(w.snapshot().step, std::int64_t{2});
    // A call that threw ends its in-flight time and leaves `finished` alone.
    w.entered(call(3));
    w.abandoned();
    QCOMPARE(w.snapshot().finished->sequence, std::uint64_t{2});
  }

  void heartbeatRoundTrips() {
    protocol::HeartbeatBody plain{1700000000.25, 42, std::nullopt};
    QVERIFY(decode(heartbeatBody(plain)) == plain);
    WavefrontSnapshot w;
    w.entered = CollectivePosition{9, CommKind::ReduceScatter, "hybrid.shard.1", 4, 1 << 20};
    w.finished = CollectivePosition{8, CommKind::Barrier, "world", 8, 0};
    w.step = 17;
    w.workSecondsAtStep = 3.5;
    protocol::HeartbeatBody full{1700000001.0, 16, w};
    QVERIFY(decode(heartbeatBody(full)) == full);
    w.entered.reset();
    w.finished.reset();
    protocol::HeartbeatBody paceOnly{1700000002.0, 0, w};  // a rank before its first collective
    QVERIFY(decode(heartbeatBody(paceOnly)) == paceOnly);
  }

  void malformedHeartbeatsAreRefused_data() {
    QTest::addColumn<QByteArray>("body");
    WavefrontSnapshot w;
    w.entered = call(3);
    const std::string good = heartbeatBody({1.0, 2, w});
    const std::size_t flags = 16;            // f64 time, i64 step
    const std::size_t kind = flags + 1 + 8;  // after the flags, the entered call's u64 sequence
    auto with = [&](std::size_t at, std::uint8_t byte) {
      std::string b = good;
      b[at] = static_cast<char>(byte);
      return QByteArray::fromStdString(b);
    };
    QTest::newRow("unknown flag bit") << with(flags, 0x08 | 0x05);
    QTest::newRow("a call without the pace") << with(flags, 0x01);
    QTest::newRow("unknown kind") << with(kind, static_cast<std::uint8_t>(parallel::kCommKindCount));
    std::string zeroGroup = good;
    std::memset(zeroGroup.data() + kind + 1, 0, 4);
    QTest::newRow("group size 0") << QByteArray::fromStdString(zeroGroup);
    std::string negative = good;
    std::memset(negative.data() + kind + 1 + 4, 0xff, 8);
    QTest::newRow("negative bytes") << QByteArray::fromStdString(negative);
    QTest::newRow("cut short") << QByteArray::fromStdString(good.substr(0, good.size() - 3));
    QTest::newRow("bytes left over") << QByteArray::fromStdString(good + "x");
    QTest::newRow("empty") << QByteArray();
  }

  void malformedHeartbeatsAreRefused() {
    QFETCH(QByteArray, body);
    QVERIFY_THROWS_EXCEPTION(CommError, decode(body.toStdString()));
  }

  void aRankBehindIsAHangAfterTheTimeout() {
    RunMonitor monitor({.hangTimeout = std::chrono::duration<double>(5.0)});
    const auto t0 = Clock::now();
    monitor.observe(report(0, 4, 3), t0);  // waits in call 4
    monitor.observe(report(1, 3, 3), t0);  // finished 3, never entered 4
    QVERIFY(monitor.check(t0 + std::chrono::seconds(4), 100).empty());
    // Heartbeats that repeat the same wavefront are no progress.
    monitor.observe(report(0, 4, 3), t0 + std::chrono::seconds(4));
    auto updates = monitor.check(t0 + std::chrono::milliseconds(5100), 105);
    QCOMPARE(updates.size(), std::size_t{1});
    const store::RunAlert& alert = updates[0].alert;
    QVERIFY(updates[0].raised);
    QVERIFY(alert.kind == store::AlertKind::Hang);
    QCOMPARE(alert.behind(), std::vector<int>{1});
    QCOMPARE(alert.waitingIn->sequence, std::uint64_t{4});
    QCOMPARE(alert.time, 105.0);
    QVERIFY(alert.stalledSeconds >= 5.0);
    QCOMPARE(alert.ranks.size(), std::size_t{2});
    QCOMPARE(alert.ranks[1].entered->sequence, std::uint64_t{3});
    QVERIFY(QString::fromStdString(store::describeAlert(alert)).startsWith(u"hang: rank 1 behind"));
    // One alert per episode, not one per check.
    QVERIFY(monitor.check(t0 + std::chrono::seconds(30), 130).empty());
    // Rank 1 catches up: the episode ends.
    monitor.observe(report(1, 4, 4), t0 + std::chrono::seconds(31));
    updates = monitor.check(t0 + std::chrono::seconds(31), 131);
    QCOMPARE(updates.size(), std::size_t{1});
    QVERIFY(!updates[0].raised);
    QCOMPARE(updates[0].alert.resolvedAt.value(), 131.0);
    QCOMPARE(updates[0].key, 1);
  }

  void agreeingRanksAreNoHang() {
    RunMonitor monitor({.hangTimeout = std::chrono::duration<double>(1.0)});
    const auto t0 = Clock::now();
    // Both inside the same call (a slow network, a long collective): they agree.
    monitor.observe(report(0, 5, 4), t0);
    monitor.observe(report(1, 5, 4), t0);
    QVERIFY(monitor.check(t0 + std::chrono::seconds(10), 10).empty());
    // Both between calls (a long evaluation without collectives): they agree.
    monitor.observe(report(0, 5, 5), t0 + std::chrono::seconds(11));
    monitor.observe(report(1, 5, 5), t0 + std::chrono::seconds(11));
    QVERIFY(monitor.check(t0 + std::chrono::seconds(20), 20).empty());
    // A rank that left (finished, died) is not waited for.
    monitor.observe(report(0, 6, 5), t0 + std::chrono::seconds(21));
    monitor.rankLeft(1);
    QVERIFY(monitor.check(t0 + std::chrono::seconds(30), 30).empty());
  }

  void aZeroTimeoutDisablesHangs() {
    RunMonitor monitor({.hangTimeout = std::chrono::duration<double>(0.0)});
    const auto t0 = Clock::now();
    monitor.observe(report(0, 4, 3), t0);
    monitor.observe(report(1, 3, 3), t0);
    QVERIFY(monitor.check(t0 + std::chrono::hours(1), 1).empty());
  }

  void aSlowRankIsAStraggler() {
    RunMonitor monitor({.hangTimeout = std::chrono::duration<double>(0.0)});
    const auto t0 = Clock::now();
    // Heartbeats every 10 steps: ranks 0 and 2 work 20 ms a step, rank 1 80 ms (the others wait for it inside
    // their collectives, so their wall time per step is the same).
    std::vector<MonitorUpdate> raised;
    for (int beat = 0; beat <= 4; ++beat) {
      const std::int64_t step = 1 + 10 * beat;
      for (int rank = 0; rank < 3; ++rank) {
        const double perStep = rank == 1 ? 0.080 : 0.020;
        monitor.observe(report(rank, static_cast<int>(step), static_cast<int>(step), step, 5 + perStep * step),
                        t0 + std::chrono::seconds(beat));
      }
      auto updates = monitor.check(t0 + std::chrono::seconds(beat), beat);
      if (beat < 2) {
        QVERIFY(updates.empty());  // the window (10 steps past a base of step >= 2) is not full yet
      }
      raised.insert(raised.end(), updates.begin(), updates.end());
    }
    QCOMPARE(raised.size(), std::size_t{1});
    const store::RunAlert& alert = raised[0].alert;
    QVERIFY(alert.kind == store::AlertKind::Straggler);
    QCOMPARE(alert.behind(), std::vector<int>{1});
    QCOMPARE(alert.ranks.size(), std::size_t{3});
    QVERIFY(std::abs(*alert.ranks[1].stepSeconds - 0.080) < 1e-9);
    QVERIFY(std::abs(*alert.medianStepSeconds - 0.020) < 1e-9);
    // It catches up: 20 ms a step from now on, until the window holds only fast steps.
    std::vector<MonitorUpdate> resolved;
    for (int beat = 5; beat <= 8; ++beat) {
      const std::int64_t step = 1 + 10 * beat;
      for (int rank = 0; rank < 3; ++rank) {
        const double work = rank == 1 ? 5 + 0.080 * 41 + 0.020 * (step - 41) : 5 + 0.020 * step;
        monitor.observe(report(rank, static_cast<int>(step), static_cast<int>(step), step, work),
                        t0 + std::chrono::seconds(beat));
      }
      auto updates = monitor.check(t0 + std::chrono::seconds(beat), beat);
      resolved.insert(resolved.end(), updates.begin(), updates.end());
    }
    QCOMPARE(resolved.size(), std::size_t{1});
    QVERIFY(!resolved[0].raised);
    QCOMPARE(resolved[0].key, raised[0].key);
  }

  void evenAndNoisyRunsAreNoStragglers() {
    RunMonitor monitor({.hangTimeout = std::chrono::duration<double>(0.0)});
    const auto t0 = Clock::now();
    for (int beat = 0; beat <= 6; ++beat) {
      const std::int64_t step = 1 + 10 * beat;
      // 5 ms steps with rank 1 50 % slower: under the 10 ms floor, so noise rather than a straggler.
      monitor.observe(report(0, 1, 1, step, 0.005 * step), t0 + std::chrono::seconds(beat));
      monitor.observe(report(1, 1, 1, step, 0.0075 * step), t0 + std::chrono::seconds(beat));
      QVERIFY(monitor.check(t0 + std::chrono::seconds(beat), beat).empty());
    }
    RunMonitor even;
    for (int beat = 0; beat <= 6; ++beat) {
      const std::int64_t step = 1 + 10 * beat;
      even.observe(report(0, 1, 1, step, 0.050 * step), t0 + std::chrono::seconds(beat));
      even.observe(report(1, 1, 1, step, 0.055 * step), t0 + std::chrono::seconds(beat));  // 10 %: within 20 %
      QVERIFY(even.check(t0 + std::chrono::seconds(beat), beat).empty());
    }
  }

  void aStragglerMustStaySlowAndStayCaughtUp() {
    // Hysteresis: heartbeats every 5 steps; rank 1's verdict must hold over a whole window (10 steps) to change.
    RunMonitor monitor({.hangTimeout = std::chrono::duration<double>(0.0)});
    const auto t0 = Clock::now();
    double work0 = 0;
    double work1 = 0;
    std::int64_t step = 1;
    std::vector<MonitorUpdate> updates;
    // Each phase: rank 1's seconds per step (rank 0: 20 ms) for a number of heartbeats.
    const auto run = [&](double perStep1, int beats) {
      updates.clear();
      for (int b = 0; b < beats; ++b) {
        step += 5;
        work0 += 0.020 * 5;
        work1 += perStep1 * 5;
        const auto at = t0 + std::chrono::seconds(step);
        monitor.observe(report(0, 1, 1, step, work0), at);
        monitor.observe(report(1, 1, 1, step, work1), at);
        const auto u = monitor.check(at, static_cast<double>(step));
        updates.insert(updates.end(), u.begin(), u.end());
      }
    };
    run(0.020, 6);  // even: windows full, nothing
    QVERIFY(updates.empty());
    // A slow spell of 5 steps: the window average (the last 10 steps) is above the threshold in two comparisons,
    // 5 steps apart: less than a window of steps.
    run(0.060, 1);
    run(0.020, 4);
    QVERIFY2(updates.empty(), updates.empty() ? "" : store::describeAlert(updates[0].alert).c_str());
    // Slower for good: raised once it stayed slower for a window (the third slow comparison, 10 steps after the
    // first).
    run(0.060, 2);
    QCOMPARE(updates.size(), std::size_t{0});
    run(0.060, 1);
    QCOMPARE(updates.size(), std::size_t{1});
    QVERIFY(updates[0].raised);
    // Flapping around the threshold (one beat fast, one slow) never resolves it: no "resolved after 0.0 s".
    for (int i = 0; i < 4; ++i) {
      run(0.020, 2);  // the window average falls under the threshold for one comparison only
      QVERIFY(updates.empty());
      run(0.060, 2);
      QVERIFY(updates.empty());
    }
    // Caught up for good: resolved once it stayed not slower for a window.
    run(0.020, 6);
    QCOMPARE(updates.size(), std::size_t{1});
    QVERIFY(!updates[0].raised);
    QVERIFY(updates[0].alert.end == store::AlertEnd::Resolved);
    QVERIFY(*updates[0].alert.resolvedAt - updates[0].alert.time >= 10.0);
  }

  void theRunsEndClosesItsOpenAlerts() {
    RunMonitor monitor({.hangTimeout = std::chrono::duration<double>(5.0)});
    const auto t0 = Clock::now();
    monitor.observe(report(0, 4, 3), t0);
    monitor.observe(report(1, 3, 3), t0);
    QCOMPARE(monitor.check(t0 + std::chrono::seconds(6), 106).size(), std::size_t{1});
    // --hang_action abort: the ranks are stopped and leave; the hang is still open when the run ends.
    monitor.rankLeft(0);
    monitor.rankLeft(1);
    QVERIFY(monitor.check(t0 + std::chrono::seconds(7), 107).empty());
    const auto closed = monitor.closeAll(108);
    QCOMPARE(closed.size(), std::size_t{1});
    QVERIFY(!closed[0].raised);
    QCOMPARE(closed[0].key, 1);
    QCOMPARE(closed[0].alert.resolvedAt.value(), 108.0);
    QVERIFY(closed[0].alert.end == store::AlertEnd::RunEnded);
    // Nothing more after the end, and nothing twice.
    QVERIFY(monitor.check(t0 + std::chrono::seconds(60), 160).empty());
    QVERIFY(monitor.closeAll(161).empty());
  }

  void invalidOptionsAreRefused() {
    QVERIFY_THROWS_EXCEPTION(ConfigError, RunMonitor({.hangTimeout = std::chrono::duration<double>(-1.0)}));
    QVERIFY_THROWS_EXCEPTION(ConfigError, RunMonitor({.stragglerThreshold = -0.1}));
    QVERIFY_THROWS_EXCEPTION(ConfigError, RunMonitor({.stragglerWindowSteps = 0}));
  }
};

QTEST_GUILESS_MAIN(TestRunMonitor)
#include "tst_run_monitor.moc"
