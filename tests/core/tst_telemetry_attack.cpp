// SPDX-License-Identifier: Apache-2.0
// Telemetry under attack (issue 20): while 4 real ranks (telemetry_probe processes, as `fathom launch` starts
// workers) send 2,000 points/s each, local clients connect without a token, with a wrong one, announce huge frames,
// trickle their hello, and open 1,000 connections at once, and a fifth rank starts right after those. The collector
// refuses or drops every attacker, keeps ingesting, loses none of the ranks' points (the fifth's included), and
// afterwards holds as many descriptors and threads as before.
// Qt's headers first: moc cannot parse <concepts> when <compare> (fathom/store/ids.h) is the first header it meets.
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "raw_telemetry_client.h"
#include "telemetry_probes.h"

#include <fathom/store/workspace.h>
#include <fathom/telemetry/telemetry_collector.h>
#include <telemetry/protocol.h>

#include <fcntl.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

using namespace fathom;
using namespace std::chrono_literals;
using namespace Qt::StringLiterals;
using fathom::telemetry::protocol::FrameType;
using fathom::test::connectRaw;
using fathom::test::readAnswer;
using fathom::test::sendRaw;

namespace {

/// Starts `n` non-blocking connections to 127.0.0.1:port at once (without waiting for any to complete).
std::vector<int> connectMany(std::uint16_t port, int n) {
  std::vector<int> fds;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < n; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    (void)::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    fds.push_back(fd);
  }
  return fds;
}

/// Waits until the collector closed every connection in `fds` (or `timeout` passed); returns how many it closed.
std::size_t waitClosedByPeer(const std::vector<int>& fds, std::chrono::milliseconds timeout) {
  std::vector<bool> closed(fds.size(), false);
  std::size_t count = 0;
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (count < fds.size() && std::chrono::steady_clock::now() < end) {
    std::vector<pollfd> polls;
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (!closed[i]) {
        polls.push_back({fds[i], POLLIN, 0});
        which.push_back(i);
      }
    }
    if (::poll(polls.data(), polls.size(), 100) <= 0) {
      continue;
    }
    for (std::size_t k = 0; k < polls.size(); ++k) {
      if (polls[k].revents == 0) {
        continue;
      }
      char buffer[4096];
      const ssize_t n = ::recv(polls[k].fd, buffer, sizeof(buffer), MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        closed[which[k]] = true;
        ++count;
      }
    }
  }
  return count;
}

}  // namespace

class TestTelemetryAttack : public QObject {
  Q_OBJECT

private slots:
  void realRanksLoseNothingUnderAttack() {
    constexpr int kRanks = 4;
    constexpr int kRate = 2'000;
    constexpr double kSeconds = 12;
    constexpr auto perRank = static_cast<std::int64_t>(kRate * kSeconds);
    QTemporaryDir dir;
    store::Workspace ws(dir.filePath(u"attack.sqlite"_s).toStdString());
    const store::RunId run = ws.createRun({"attack", "tst_telemetry_attack", "", ""});
    telemetry::CollectorOptions options;
    options.expectedRanks = kRanks;
    options.helloTimeout = 2'000ms;
    telemetry::TelemetryCollector collector(std::move(ws), run, options);
    {
      QProcess warmUp;  // whatever Qt keeps for child processes is in the baseline
      warmUp.start(u"/bin/true"_s, {});
      QVERIFY(warmUp.waitForFinished());
    }
    const std::size_t fds = test::openDescriptors();
    const std::size_t threads = test::threadCount();

    auto ranks = test::startProbes(collector, kRanks, kRate, kSeconds);
    QVERIFY(!QTest::currentTestFailed());
    // The ranks are sending before the attack starts.
    QTRY_VERIFY_WITH_TIMEOUT(collector.stats().pointsCommitted >= 1'000, 10'000);

    // Slow-loris senders: a byte of a good-looking hello every 300 ms, until the collector drops them.
    std::atomic<int> lorisDropped{0};
    std::thread loris([&] {
      std::vector<int> slow;
      for (int i = 0; i < 5; ++i) {
        slow.push_back(connectRaw(collector.port()));
      }
      const std::string hello = test::helloFrame(std::string(64, 'f'));
      std::vector<bool> gone(slow.size(), false);
      for (std::size_t b = 0; b < hello.size() && lorisDropped < 5; ++b) {
        for (std::size_t i = 0; i < slow.size(); ++i) {
          if (!gone[i] && (!sendRaw(slow[i], hello.substr(b, 1)) || readAnswer(slow[i], 0ms).closed)) {
            gone[i] = true;
            ++lorisDropped;
          }
        }
        std::this_thread::sleep_for(300ms);
      }
      for (int fd : slow) {
        ::close(fd);
      }
    });

    std::vector<int> attackers;
    const auto attacker = [&](const std::string& bytes) {
      attackers.push_back(connectRaw(collector.port()));
      QVERIFY(attackers.back() >= 0);
      if (!bytes.empty()) {
        sendRaw(attackers.back(), bytes);
      }
    };
    for (int i = 0; i < 10; ++i) {
      attacker("");                    // no hello at all
      attacker(test::helloFrame(""));  // no token
    }
    for (int i = 0; i < 50; ++i) {
      attacker(test::helloFrame(std::string(64, 'a' + i % 6)));  // a wrong token
    }
    for (int i = 0; i < 10; ++i) {
      attacker(test::frameHeader(0xFFFF'FFFFu, FrameType::Hello));  // a huge length
      attacker(test::frameHeader(telemetry::protocol::kMaxFrameBytes, FrameType::Metrics) + std::string(1000, 'm'));
    }
    const std::vector<int> flood = connectMany(collector.port(), 1'000);  // 1,000 connections at once
    // A rank that starts during the flood gets in: it sends its hello at once, so the silent connections are
    // pushed out before it is.
    auto late = test::startProbes(collector, 1, kRate, kSeconds / 2, kRanks);
    QVERIFY(!QTest::currentTestFailed());
    const std::size_t floodClosed = waitClosedByPeer(flood, 20s);
    const std::size_t attackersClosed = waitClosedByPeer(attackers, 10s);
    loris.join();
    const auto during = collector.stats();
    for (int fd : flood) {
      ::close(fd);
    }
    for (int fd : attackers) {
      ::close(fd);
    }
    QCOMPARE(floodClosed, flood.size());
    QCOMPARE(attackersClosed, attackers.size());
    QCOMPARE(lorisDropped.load(), 5);

    // Every rank sent everything and had it acknowledged.
    for (const auto& p : ranks) {
      test::checkProbe(*p, perRank, static_cast<int>(kSeconds * 1000) + 20'000);
      QVERIFY(!QTest::currentTestFailed());
    }
    test::checkProbe(*late[0], perRank / 2, static_cast<int>(kSeconds * 1000) + 20'000);
    QVERIFY(!QTest::currentTestFailed());
    ranks.clear();
    late.clear();
    QTRY_COMPARE_WITH_TIMEOUT(collector.stats().openConnections, std::size_t{0}, 5'000);
    QTRY_COMPARE_WITH_TIMEOUT(collector.stats().pendingConnections, std::size_t{0}, 5'000);
    QTRY_VERIFY_WITH_TIMEOUT(test::openDescriptors() <= fds, 5'000);
    QTRY_VERIFY_WITH_TIMEOUT(test::threadCount() <= threads, 5'000);
    qInfo("after the attack: %zu descriptors (%zu before), %zu threads (%zu before)", test::openDescriptors(), fds,
          test::threadCount(), threads);
    collector.stop();
    const auto stats = collector.stats();
    qInfo("refused %llu: %llu wrong token, %llu malformed, %llu without a hello, %llu over the limits; "
          "%llu accepted; %llu protocol errors",
          static_cast<unsigned long long>(stats.connectionsRefused),
          static_cast<unsigned long long>(stats.refused.wrongToken),
          static_cast<unsigned long long>(stats.refused.malformed),
          static_cast<unsigned long long>(stats.refused.noHello),
          static_cast<unsigned long long>(stats.refused.overLimit),
          static_cast<unsigned long long>(stats.connectionsAccepted),
          static_cast<unsigned long long>(stats.protocolErrors));
    QVERIFY(during.pendingConnections <= options.maxPendingConnections);
    QCOMPARE(stats.refused.wrongToken, std::uint64_t{60});
    QCOMPARE(stats.refused.malformed, std::uint64_t{20});
    QCOMPARE(stats.connectionsRefused, stats.connectionsAccepted - kRanks - 1);
    QCOMPARE(stats.protocolErrors, std::uint64_t{0});

    // Zero points lost: every rank's series is 0, 1, ..., perRank - 1, in order.
    test::checkProbeSeries(collector.workspace(), run, kRanks, perRank);
    QVERIFY(!QTest::currentTestFailed());
    QCOMPARE(static_cast<std::int64_t>(collector.workspace().metricSeries(run, "probe/value", kRanks).size()),
             perRank / 2);
    QCOMPARE(stats.pointsCommitted, static_cast<std::uint64_t>(perRank * kRanks + perRank / 2));
  }
};

QTEST_GUILESS_MAIN(TestTelemetryAttack)
#include "tst_telemetry_attack.moc"
