// SPDX-License-Identifier: Apache-2.0
// The telemetry load test of issue 7: 8 sender processes (tests/support/telemetry_probe.cpp) x 2,000 points/s into
// one collector for FATHOM_TELEMETRY_LOAD_SECONDS seconds (30 by default, what CTest runs): every point sent must be
// acknowledged by its sender and stored, in order, and the ingest rate must reach a floor (below).
// Qt's headers first: moc cannot parse <concepts> when <compare> (fathom/store/ids.h) is the first header it meets.
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include "telemetry_probes.h"

#include <fathom/store/workspace.h>
#include <fathom/telemetry/telemetry_collector.h>

#include <memory>
#include <vector>

using namespace fathom;
using namespace Qt::StringLiterals;

class TestTelemetryLoad : public QObject {
  Q_OBJECT

private slots:
  void eightSendersTwoThousandPointsPerSecondEach() {
    constexpr int kSenders = 8;
    constexpr int kRate = 2'000;
    // Floors from the baseline measured on the 2-core development machine while other builds ran (load average 8
    // to 10): every point committed within 30.06 s of the first, an ingest rate of 15,969 points/s (the senders'
    // pace is 16,000), and 253,000 points/s while the writer commits. Wide margins for a noisy machine: 75 % of the
    // pace (the senders' window may stretch from 30 s to 40 s); and the writer, while it commits, must outpace the
    // senders by a quarter (it keeps up with headroom). The commit rate is what a loaded machine hits hardest: under
    // `ctest -j2` beside tst_plan_cli it measured 37,868 points/s, so a floor tied to the quiet baseline (40,000)
    // failed there although nothing was lost.
    constexpr double kMinIngestRate = 0.75 * kSenders * kRate;
    constexpr double kMinCommitRate = 1.25 * kSenders * kRate;
    const double seconds = qEnvironmentVariableIsSet("FATHOM_TELEMETRY_LOAD_SECONDS")
                               ? qEnvironmentVariable("FATHOM_TELEMETRY_LOAD_SECONDS").toDouble()
                               : 30.0;
    QVERIFY2(seconds > 0, "FATHOM_TELEMETRY_LOAD_SECONDS must be a positive number of seconds");
    const auto perSender = static_cast<std::int64_t>(kRate * seconds);

    QTemporaryDir dir;
    const std::string path = dir.filePath(u"load.sqlite"_s).toStdString();
    store::Workspace ws(path);
    const store::RunId run = ws.createRun({"load", "tst_telemetry_load", "", ""});
    telemetry::TelemetryCollector collector(std::move(ws), run);

    QElapsedTimer timer;
    timer.start();
    auto senders = test::startProbes(collector, kSenders, kRate, seconds);
    QVERIFY(!QTest::currentTestFailed());
    double sendSeconds = 0;  // the longest sender's first point to its last acknowledgement
    for (const auto& p : senders) {
      double window = 0;
      // A sender slower than the ingest floor fails below; this only bounds the wait (and process start-up).
      test::checkProbe(*p, perSender, static_cast<int>(seconds / 0.75 * 1000) + 20'000, &window);
      QVERIFY(!QTest::currentTestFailed());
      sendSeconds = std::max(sendSeconds, window);
    }
    const double wall = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    collector.stop();
    const auto stats = collector.stats();

    test::checkProbeSeries(collector.workspace(), run, kSenders, perSender);
    QVERIFY(!QTest::currentTestFailed());
    const double total = static_cast<double>(perSender) * kSenders;
    QCOMPARE(stats.pointsCommitted, static_cast<std::uint64_t>(total));
    // Ingest throughput: every point committed within the senders' own window (first point to last ack), so a
    // collector that fell behind would show here as a window longer than `seconds` and a lower rate.
    qInfo("load: %d senders x %d points/s for %.0f s: %.0f points, 0 lost; ingest %.0f points/s (all acknowledged "
          "within %.2f s of the first point; %.2f s with process start-up); %llu commits, writer busy %.2f s "
          "(%.0f points/s while committing)",
          kSenders, kRate, seconds, total, total / sendSeconds, sendSeconds, wall,
          static_cast<unsigned long long>(stats.commits), stats.commitSeconds,
          total / std::max(stats.commitSeconds, 1e-9));
    const double ingest = total / sendSeconds;
    QVERIFY2(ingest >= kMinIngestRate,
             qPrintable(u"ingest %1 points/s, the floor is %2"_s.arg(ingest).arg(kMinIngestRate)));
    const double commitRate = total / std::max(stats.commitSeconds, 1e-9);
    QVERIFY2(commitRate >= kMinCommitRate,
             qPrintable(u"the writer committed %1 points/s, the floor is %2"_s.arg(commitRate).arg(kMinCommitRate)));
  }
};

QTEST_GUILESS_MAIN(TestTelemetryLoad)
#include "tst_telemetry_load.moc"
