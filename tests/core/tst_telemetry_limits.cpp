// SPDX-License-Identifier: Apache-2.0
// The collector's limits (issue 20): finished connections give back their descriptor and thread at once; at the
// process's descriptor limit accept() pauses instead of spinning; a hello is small and has one deadline; data
// buffers grow with the bytes that arrive; connections are capped; refusals are reported at a bounded rate.
// Real collector, real sockets, real workspace files.
#include "error_helpers.h"
#include "raw_telemetry_client.h"

#include <fathom/common/error.h>
#include <fathom/common/log.h>
#include <fathom/store/workspace.h>
#include <fathom/telemetry/telemetry_collector.h>
#include <fathom/telemetry/telemetry_sender.h>
#include <telemetry/protocol.h>

#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <functional>
#include <mutex>
#include <thread>

using namespace fathom;
using namespace fathom::telemetry;
using namespace std::chrono_literals;
using fathom::test::Answer;
using fathom::test::connectRaw;
using fathom::test::contains;
using fathom::test::messageOf;
using fathom::test::readAnswer;
using fathom::test::sendRaw;
using protocol::FrameType;

namespace {

TelemetryEndpoint endpointOf(const TelemetryCollector& c, int rank, std::string token = {}) {
  return {"127.0.0.1", c.port(), token.empty() ? c.token() : token, rank};
}

/// The process's CPU time (user + system), in seconds.
double cpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

/// Captures what the core logs (the launcher's stderr lines) while it lives.
class LogCapture {
public:
  LogCapture() {
    setLogSink([this](LogLevel, std::string_view text) {
      std::lock_guard lock(m_mutex);
      m_lines.emplace_back(text);
    });
  }
  ~LogCapture() { setLogSink({}); }
  std::vector<std::string> lines(const std::string& containing) const {
    std::lock_guard lock(m_mutex);
    std::vector<std::string> out;
    for (const auto& l : m_lines) {
      if (contains(l, containing)) {
        out.push_back(l);
      }
    }
    return out;
  }

private:
  mutable std::mutex m_mutex;
  std::vector<std::string> m_lines;
};

}  // namespace

class TestTelemetryLimits : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  std::pair<store::Workspace, store::RunId> freshRun(const char* name) {
    store::Workspace ws(m_dir.filePath(QString::fromUtf8(name)).toStdString());
    const auto run = ws.createRun({"limits", "tst_telemetry_limits", "", ""});
    return {std::move(ws), run};
  }

  /// The warning events of rank -1 (the collector's own) in a stopped collector's workspace.
  static std::vector<std::string> collectorWarnings(TelemetryCollector& c) {
    std::vector<std::string> out;
    for (const auto& row : c.workspace().eventsSince(store::EventId{0})) {
      if (row.event.rank == -1 && row.event.level == LogLevel::Warning) {
        out.push_back(row.event.text);
      }
    }
    return out;
  }

private slots:
  // 1,000 connect/close cycles of strangers and 30 of real senders: every descriptor and thread comes back.
  void finishedConnectionsReleaseTheirDescriptorAndThread() {
    auto [ws, run] = freshRun("cycles.sqlite");
    TelemetryCollector collector(std::move(ws), run);
    const std::size_t fds = test::openDescriptors();
    const std::size_t threads = test::threadCount();
    const std::int64_t vm = test::statusKiB("VmSize");
    for (int i = 0; i < 1'000; ++i) {
      const int fd = connectRaw(collector.port());
      QVERIFY(fd >= 0);
      if (i % 2 == 1) {
        sendRaw(fd, test::helloFrame("wrong"));
      }
      ::close(fd);
    }
    for (int i = 0; i < 30; ++i) {
      TelemetrySender sender(endpointOf(collector, i));
      sender.addMetric(0, 1.7e9, "loss", i);
      sender.close();
    }
    QTRY_VERIFY_WITH_TIMEOUT(test::openDescriptors() <= fds, 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(test::threadCount() <= threads, 5'000);
    QTRY_VERIFY_WITH_TIMEOUT(collector.stats().connectionsRefused == 1'000, 5'000);
    QTRY_VERIFY_WITH_TIMEOUT(collector.stats().openConnections == 0, 5'000);
    // An exited but unjoined thread keeps its stack (8 MiB of address space; 1,000 of them 7.8 GiB): joined, they
    // are returned. What may stay is malloc's per-thread arenas (64 MiB each, at most 8 per core: 1 GiB here).
    const std::int64_t grownMiB = (test::statusKiB("VmSize") - vm) / 1024;
    qInfo("after 1,030 connections: %zu -> %zu descriptors, %zu -> %zu threads, address space %+lld MiB", fds,
          test::openDescriptors(), threads, test::threadCount(), static_cast<long long>(grownMiB));
    QVERIFY2(grownMiB < 2'048, qPrintable(QString::number(grownMiB) + " MiB more address space"));
    const auto stats = collector.stats();
    QCOMPARE(stats.refused.noHello, std::uint64_t{500});
    QCOMPARE(stats.refused.wrongToken, std::uint64_t{500});
    QCOMPARE(stats.pendingConnections, std::size_t{0});
    collector.stop();
    QCOMPARE(collector.workspace().metricSeries(run, "loss").size(), std::size_t{30});
  }

  // At the descriptor limit accept() fails (EMFILE) while connections wait in the backlog: the collector pauses
  // instead of spinning, keeps serving its rank, and accepts again once descriptors are free.
  void descriptorLimitPausesAcceptInsteadOfSpinning() {
    auto [ws, run] = freshRun("emfile.sqlite");
    TelemetryCollector collector(std::move(ws), run);
    SenderOptions quick;
    quick.ackTimeout = 10'000ms;
    TelemetrySender rank(endpointOf(collector, 0), quick);
    int ready[2];
    int release[2];
    QCOMPARE(::pipe2(ready, O_CLOEXEC), 0);
    QCOMPARE(::pipe2(release, O_CLOEXEC), 0);
    rlimit saved{};
    QCOMPARE(::getrlimit(RLIMIT_NOFILE, &saved), 0);
    pid_t child = -1;
    // Whatever fails below: the limit comes back, the child is released and waited for.
    const auto restore = [&] {
      ::setrlimit(RLIMIT_NOFILE, &saved);
      for (int* fd : {&ready[0], &ready[1], &release[0], &release[1]}) {
        if (*fd >= 0) {
          ::close(*fd);
          *fd = -1;
        }
      }
      if (child > 0) {
        ::waitpid(child, nullptr, 0);
        child = -1;
      }
    };
    const std::unique_ptr<void, std::function<void(void*)>> guard(this, [&](void*) { restore(); });
    // Two descriptors left: the collector accepts two connections, then accept() fails with EMFILE.
    rlimit low = saved;
    low.rlim_cur = test::openDescriptors() + 2;
    QCOMPARE(::setrlimit(RLIMIT_NOFILE, &low), 0);
    child = ::fork();
    if (child == 0) {
      // The connections come from a child (async-signal-safe calls only), which has its own descriptor table.
      ::setrlimit(RLIMIT_NOFILE, &saved);
      ::close(release[1]);  // so that the parent closing its end is an end of file here
      for (int i = 0; i < 30; ++i) {
        (void)test::connectRaw(collector.port());
      }
      (void)!::write(ready[1], "r", 1);
      char c;
      (void)!::read(release[0], &c, 1);
      ::_exit(0);
    }
    QVERIFY(child > 0);
    ::close(ready[1]);
    ready[1] = -1;
    pollfd childReady{ready[0], POLLIN, 0};
    QVERIFY2(::poll(&childReady, 1, 10'000) == 1, "the child did not connect");
    std::this_thread::sleep_for(300ms);
    const double before = cpuSeconds();
    std::this_thread::sleep_for(1500ms);
    const double busy = cpuSeconds() - before;
    // Still serving: the connected rank's points are committed and acknowledged.
    for (int i = 0; i < 1'000; ++i) {
      rank.addMetric(i, 1.7e9, "x", i);
    }
    rank.flush();
    const auto stats = collector.stats();
    restore();
    qInfo("at the descriptor limit: %.3f s of CPU in 1.5 s, %llu accept pauses", busy,
          static_cast<unsigned long long>(stats.acceptBackoffs));
    QVERIFY2(busy < 0.15, qPrintable(QString::number(busy) + " s of CPU in 1.5 s at the descriptor limit"));
    QVERIFY(stats.acceptBackoffs >= 1);
    QCOMPARE(rank.acknowledgedPoints(), std::uint64_t{1'000});
    // With descriptors free again, the backlog is worked off and a new rank connects.
    QTRY_VERIFY_WITH_TIMEOUT(collector.stats().connectionsAccepted >= 31, 5'000);
    TelemetrySender late(endpointOf(collector, 1));
    late.addMetric(0, 1.7e9, "x", 0);
    late.close();
    rank.close();
    collector.stop();
    QCOMPARE(collector.workspace().metricSeries(run, "x").size(), std::size_t{1'001});
  }

  // A stranger's announced size is never allocated: a hello over kMaxHelloBytes is refused at once, and a
  // welcomed sender's 16 MiB frame takes memory only as its bytes arrive.
  void announcedSizesAreNotAllocated() {
    auto [ws, run] = freshRun("sizes.sqlite");
    TelemetryCollector collector(std::move(ws), run);
    const std::int64_t rss = test::statusKiB("VmRSS");
    std::vector<int> strangers;
    for (int i = 0; i < 20; ++i) {
      strangers.push_back(connectRaw(collector.port()));
      sendRaw(strangers.back(), test::frameHeader(protocol::kMaxFrameBytes, FrameType::Hello) + std::string(100, 'x'));
    }
    std::vector<int> welcomed;
    for (int i = 0; i < 10; ++i) {
      welcomed.push_back(connectRaw(collector.port()));
      sendRaw(welcomed.back(), test::helloFrame(collector.token(), i));
      QVERIFY(readAnswer(welcomed.back(), 2s, true).is(FrameType::Welcome));
      sendRaw(welcomed.back(), test::frameHeader(protocol::kMaxFrameBytes, FrameType::Metrics) + std::string(100, 'x'));
    }
    std::this_thread::sleep_for(500ms);
    const std::int64_t grownMiB = (test::statusKiB("VmRSS") - rss) / 1024;
    qInfo("30 connections announcing 16 MiB frames: resident memory %+lld MiB", static_cast<long long>(grownMiB));
    QVERIFY2(grownMiB < 64, qPrintable(QString::number(grownMiB) + " MiB more resident memory"));
    for (int fd : strangers) {
      const Answer answer = readAnswer(fd, 1s);
      QVERIFY2(answer.closed && answer.is(FrameType::Refused), answer.bytes.c_str());
      QVERIFY2(contains(answer.bytes, "16777216 bytes"), answer.bytes.c_str());
      ::close(fd);
    }
    for (int fd : welcomed) {
      ::close(fd);
    }
    QTRY_VERIFY_WITH_TIMEOUT(collector.stats().openConnections == 0, 5'000);
    QCOMPARE(collector.stats().refused.malformed, std::uint64_t{20});
  }

  // One deadline for the whole hello: a client trickling a byte every 250 ms is dropped after helloTimeout.
  void helloDeadlineCoversTheWholeHello() {
    auto [ws, run] = freshRun("loris.sqlite");
    TelemetryCollector collector(std::move(ws), run, CollectorOptions{.helloTimeout = 1'000ms});
    const int fd = connectRaw(collector.port());
    const std::string hello = test::helloFrame(collector.token());
    const auto start = std::chrono::steady_clock::now();
    Answer answer;
    for (std::size_t i = 0; i < hello.size() && !answer.closed; ++i) {
      sendRaw(fd, hello.substr(i, 1));
      answer = readAnswer(fd, 250ms);
      if (std::chrono::steady_clock::now() - start > 4s) {
        break;
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ::close(fd);
    QVERIFY2(answer.closed, "a client trickling its hello was still connected after 4 s");
    QVERIFY2(seconds < 2.5, qPrintable(QString::number(seconds) + " s"));
    QVERIFY2(answer.is(FrameType::Refused) && contains(answer.bytes, "no complete hello within 1000 ms"),
             answer.bytes.c_str());
    QTRY_COMPARE_WITH_TIMEOUT(collector.stats().refused.noHello, std::uint64_t{1}, 2'000);
  }

  // Pending connections beyond maxPendingConnections push out the oldest; beyond maxConnections a new one is
  // refused; the welcomed ranks are never disturbed.
  void connectionLimitsSpareTheWelcomedRanks() {
    auto [ws, run] = freshRun("caps.sqlite");
    CollectorOptions options;
    options.maxPendingConnections = 4;
    options.maxConnections = 6;
    options.helloTimeout = 1'000ms;
    TelemetryCollector collector(std::move(ws), run, options);
    std::vector<std::unique_ptr<TelemetrySender>> ranks;
    for (int r = 0; r < 2; ++r) {
      ranks.push_back(std::make_unique<TelemetrySender>(endpointOf(collector, r)));
    }
    std::vector<int> silent;
    for (int i = 0; i < 10; ++i) {
      silent.push_back(connectRaw(collector.port()));
    }
    // The six oldest were pushed out with a reason; the four newest wait for their hello.
    for (int i = 0; i < 6; ++i) {
      const Answer answer = readAnswer(silent[static_cast<std::size_t>(i)], 500ms);
      QVERIFY2(answer.closed && contains(answer.bytes, "too many connections waiting for a hello (at most 4)"),
               qPrintable(QString::number(i) + ": " + QString::fromStdString(answer.bytes)));
    }
    // A refusal is counted before it is sent; the pending gauge follows once the accept loop has run.
    QCOMPARE(collector.stats().refused.overLimit, std::uint64_t{6});
    QTRY_COMPARE_WITH_TIMEOUT(collector.stats().pendingConnections, std::size_t{4}, 2'000);
    for (int fd : silent) {
      ::close(fd);
    }
    QTRY_COMPARE_WITH_TIMEOUT(collector.stats().pendingConnections, std::size_t{0}, 5'000);
    for (int r = 2; r < 6; ++r) {
      ranks.push_back(std::make_unique<TelemetrySender>(endpointOf(collector, r)));
    }
    // Six welcomed connections: a seventh is refused, with the reason, and the six keep sending.
    const std::string refused = messageOf([&] { TelemetrySender seventh(endpointOf(collector, 6)); });
    QVERIFY2(contains(refused, "too many connections (6 open, at most 6)"), refused.c_str());
    for (auto& rank : ranks) {
      for (int i = 0; i < 100; ++i) {
        rank->addMetric(i, 1.7e9, "x", i);
      }
      rank->close();
      QCOMPARE(rank->acknowledgedPoints(), std::uint64_t{100});
    }
    collector.stop();
    QCOMPARE(collector.workspace().metricSeries(run, "x").size(), std::size_t{600});
    QCOMPARE(collector.stats().refused.overLimit, std::uint64_t{7});
  }

  // 300 refusals: the first is reported with its peer and reason, then one summary line per interval, and one
  // event with the run's totals at the end; not 300 lines and 300 events.
  void refusalsAreReportedAtABoundedRate() {
    LogCapture captured;
    auto [ws, run] = freshRun("quiet.sqlite");
    CollectorOptions options;
    options.refusalSummaryInterval = 500ms;
    TelemetryCollector collector(std::move(ws), run, options);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 300; ++i) {
      const int fd = connectRaw(collector.port());
      sendRaw(fd, test::helloFrame(i < 290 ? "wrong" : ""));
      readAnswer(fd, 2s);
      ::close(fd);
      if (i % 100 == 99) {
        std::this_thread::sleep_for(600ms);
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    QTRY_COMPARE_WITH_TIMEOUT(collector.stats().connectionsRefused, std::uint64_t{300}, 5'000);
    collector.stop();
    const auto lines = captured.lines("refused");
    for (const auto& line : lines) {
      qInfo("stderr: %s", line.c_str());
    }
    // The first line, then at most one per 500 ms, then the rest at stop().
    QVERIFY2(lines.size() >= 2 && static_cast<double>(lines.size()) <= 3 + seconds / 0.5,
             qPrintable(QString::number(lines.size()) + " lines in " + QString::number(seconds) + " s"));
    QVERIFY2(contains(lines.front(), "refused a connection from 127.0.0.1:") && contains(lines.front(), "wrong token"),
             lines.front().c_str());
    QVERIFY(contains(lines.back(), "connections refused since "));
    const auto events = collectorWarnings(collector);
    QCOMPARE(events.size(), std::size_t{2});
    QVERIFY2(contains(events[0], "refused a connection from 127.0.0.1:"), events[0].c_str());
    QVERIFY2(contains(events[1], "300 connections refused during the run") && contains(events[1], "300 wrong token"),
             events[1].c_str());
    QCOMPARE(collector.stats().refused.wrongToken, std::uint64_t{300});
  }
};

QTEST_GUILESS_MAIN(TestTelemetryLimits)
#include "tst_telemetry_limits.moc"
