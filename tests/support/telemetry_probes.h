// SPDX-License-Identifier: Apache-2.0
// telemetry_probe processes (tests/support/telemetry_probe.cpp) as the ranks of a real collector, for the tests that
// load or attack it (tst_telemetry_load, tst_telemetry_attack). The test target defines FATHOM_TELEMETRY_PROBE.
#pragma once

#include <QProcess>
#include <QProcessEnvironment>
#include <QTest>

#include <fathom/store/workspace.h>
#include <fathom/telemetry/telemetry_collector.h>

#include <memory>
#include <vector>

namespace fathom::test {

/// Starts ranks firstRank ... firstRank + ranks - 1, each sending the metric "probe/value" = 0, 1, 2, ... at `rate`
/// points/s for `seconds`. Fails the test (check QTest::currentTestFailed()) when one does not start.
inline std::vector<std::unique_ptr<QProcess>> startProbes(const telemetry::TelemetryCollector& collector, int ranks,
                                                          int rate, double seconds, int firstRank = 0) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const auto& [name, value] : collector.workerEnvironment()) {
    env.insert(QString::fromStdString(name), QString::fromStdString(value));
  }
  std::vector<std::unique_ptr<QProcess>> probes;
  for (int rank = firstRank; rank < firstRank + ranks; ++rank) {
    auto p = std::make_unique<QProcess>();
    QProcessEnvironment mine = env;
    mine.insert(QStringLiteral("RANK"), QString::number(rank));
    p->setProcessEnvironment(mine);
    p->start(QStringLiteral(FATHOM_TELEMETRY_PROBE),
             {QStringLiteral("--rate"), QString::number(rate), QStringLiteral("--seconds"), QString::number(seconds)});
    if (!p->waitForStarted()) {
      QTest::qFail("a telemetry_probe did not start", __FILE__, __LINE__);
      break;
    }
    probes.push_back(std::move(p));
  }
  return probes;
}

/// Waits up to `timeoutMs` for a probe and checks that it sent `points` and had every one acknowledged; `window` gets
/// its first point to its last acknowledgement, in seconds. Fails the test otherwise.
inline void checkProbe(QProcess& p, std::int64_t points, int timeoutMs, double* window = nullptr) {
  QVERIFY2(p.waitForFinished(timeoutMs), "a telemetry_probe did not finish");
  const QByteArray out = p.readAllStandardOutput();
  QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, (out + p.readAllStandardError()).constData());
  const QList<QByteArray> words = out.trimmed().split(' ');  // "sent N acked M seconds S"
  QCOMPARE(words.size(), 6);
  QCOMPARE(words[1].toLongLong(), points);  // sent
  QCOMPARE(words[3].toLongLong(), points);  // acknowledged by the collector
  if (window != nullptr) {
    *window = words[5].toDouble();
  }
}

/// Zero points lost: every rank's "probe/value" series in the workspace is 0, 1, ..., points - 1, in order.
inline void checkProbeSeries(const store::Workspace& ws, store::RunId run, int ranks, std::int64_t points) {
  for (int rank = 0; rank < ranks; ++rank) {
    const auto series = ws.metricSeries(run, "probe/value", rank);
    QCOMPARE(static_cast<std::int64_t>(series.size()), points);
    for (std::size_t i = 0; i < series.size(); ++i) {
      if (series[i].point.value != static_cast<double>(i)) {
        QFAIL(qPrintable(QStringLiteral("rank %1: point %2 holds %3").arg(rank).arg(i).arg(series[i].point.value)));
      }
    }
  }
}

}  // namespace fathom::test
