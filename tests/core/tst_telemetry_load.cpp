// SPDX-License-Identifier: Apache-2.0
// The telemetry load test of issue 7: 8 sender processes (tests/support/telemetry_probe.cpp) x 2,000 points/s into
// one collector for FATHOM_TELEMETRY_LOAD_SECONDS seconds (30 by default, what CTest runs): every point sent must be
// acknowledged by its sender and stored, in order; the ingest throughput is printed.
// Qt's headers first: moc cannot parse <concepts> when <compare> (fathom/store/ids.h) is the first header it meets.
#include <QElapsedTimer>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

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

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const auto& [name, value] : collector.workerEnvironment()) {
      env.insert(QString::fromStdString(name), QString::fromStdString(value));
    }
    std::vector<std::unique_ptr<QProcess>> senders;
    QElapsedTimer timer;
    timer.start();
    for (int rank = 0; rank < kSenders; ++rank) {
      auto p = std::make_unique<QProcess>();
      QProcessEnvironment mine = env;
      mine.insert(u"RANK"_s, QString::number(rank));
      p->setProcessEnvironment(mine);
      p->start(QStringLiteral(FATHOM_TELEMETRY_PROBE),
               {u"--rate"_s, QString::number(kRate), u"--seconds"_s, QString::number(seconds)});
      QVERIFY(p->waitForStarted());
      senders.push_back(std::move(p));
    }
    double sendSeconds = 0;  // the longest sender's first point to its last acknowledgement
    for (int rank = 0; rank < kSenders; ++rank) {
      QProcess& p = *senders[static_cast<std::size_t>(rank)];
      QVERIFY2(p.waitForFinished(static_cast<int>(seconds * 1000) + 60'000), "a sender did not finish");
      const QByteArray out = p.readAllStandardOutput();
      QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
               (out + p.readAllStandardError()).constData());
      const QList<QByteArray> words = out.trimmed().split(' ');
      QCOMPARE(words.size(), 6);
      QCOMPARE(words[1].toLongLong(), perSender);  // sent
      QCOMPARE(words[3].toLongLong(), perSender);  // acknowledged by the collector
      sendSeconds = std::max(sendSeconds, words[5].toDouble());
    }
    const double wall = static_cast<double>(timer.nsecsElapsed()) / 1e9;
    collector.stop();
    const auto stats = collector.stats();

    // Zero points lost: every rank's series is 0, 1, ..., perSender - 1, in order.
    const auto& out = collector.workspace();
    for (int rank = 0; rank < kSenders; ++rank) {
      const auto series = out.metricSeries(run, "probe/value", rank);
      QCOMPARE(static_cast<std::int64_t>(series.size()), perSender);
      for (std::size_t i = 0; i < series.size(); ++i) {
        if (series[i].point.value != static_cast<double>(i)) {
          QFAIL(qPrintable(u"rank %1: point %2 holds %3"_s.arg(rank).arg(i).arg(series[i].point.value)));
        }
      }
    }
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
  }
};

QTEST_GUILESS_MAIN(TestTelemetryLoad)
#include "tst_telemetry_load.moc"
