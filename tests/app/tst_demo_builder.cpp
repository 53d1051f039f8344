// SPDX-License-Identifier: Apache-2.0
// The demo workspace the README's main command opens, built for real: `fathom launch` runs `fathom train` (gpt-tiny,
// 2 processes, 50 steps) with telemetry into a new workspace, then a what-if comparison is saved. The test reads the
// workspace back through core/store: one succeeded run with both ranks, their losses and log lines, and the plan.
#include "demo_builder.h"
#include "launch_controller.h"
#include "studio_test_mode.h"

#include <fathom/store/workspace.h>

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace Qt::StringLiterals;
using namespace fathom;
using studio::DemoBuilder;

class TestDemoBuilder : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    fathom::test::enterStudioTestMode();
    QVERIFY2(!studio::LaunchController::fathomExecutable().isEmpty(), "fathom not built");
  }
  void cleanupTestCase() { fathom::test::leaveStudioTestMode(); }

  void buildsARealRunAndASavedComparison() {
    QTemporaryDir dir;
    QVERIFY(!DemoBuilder::isComplete(DemoBuilder::workspacePath(dir.path())));
    DemoBuilder builder;
    QSignalSpy finished(&builder, &DemoBuilder::finished);
    QSignalSpy failed(&builder, &DemoBuilder::failed);
    QSignalSpy progress(&builder, &DemoBuilder::progress);
    QElapsedTimer timer;
    timer.start();
    builder.start(dir.path());
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || !failed.isEmpty(), 180'000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
    qInfo("demo workspace built in %.1f s", double(timer.elapsed()) / 1e3);
    const QString path = finished.first().at(0).toString();
    QCOMPARE(path, DemoBuilder::workspacePath(dir.path()));
    QVERIFY(DemoBuilder::isComplete(path));
    QVERIFY(progress.count() >= 5);  // preparing, launching, training steps, comparing, done
    QCOMPARE(progress.last().at(1).toInt(), 100);
    // Training progress is read from the workspace (rank 0's logged steps) while the run trains.
    const bool sawAStep = std::any_of(progress.begin(), progress.end(), [](const QList<QVariant>& p) {
      return p.at(1).toInt() > 10 && p.at(1).toInt() <= 90;
    });
    QVERIFY(sawAStep);

    const store::Workspace ws(path.toStdString(), store::Workspace::Options{.create = false, .reconcile = false});
    const auto runs = ws.listRuns();
    QCOMPARE(runs.size(), std::size_t(1));
    const store::RunInfo& run = runs.front();
    QVERIFY(run.status == store::RunStatus::Succeeded);
    QCOMPARE(run.exitCode.value_or(-1), 0);
    QVERIFY2(run.commandLine.find("train --model gpt-tiny --steps 50") != std::string::npos, run.commandLine.c_str());
    const QJsonObject config = QJsonDocument::fromJson(QByteArray::fromStdString(run.configText)).object();
    QCOMPARE(config[u"world_size"_s].toInt(), 2);
    QCOMPARE(config[u"cpu"_s].toBool(), true);
    QCOMPARE(ws.ranks(run.id).size(), std::size_t(2));
    for (int rank = 0; rank < 2; ++rank) {
      const auto loss = ws.metricSeries(run.id, "loss", rank);
      QCOMPARE(loss.size(), std::size_t(DemoBuilder::kSteps / 5));  // --log_every 5
      QCOMPARE(loss.back().point.step, DemoBuilder::kSteps);
    }
    QVERIFY(!ws.lastEvents(run.id, 10).empty());
    const auto plans = ws.plans();
    QCOMPARE(plans.size(), std::size_t(1));
    const QJsonObject input = QJsonDocument::fromJson(QByteArray::fromStdString(plans[0].inputJson)).object();
    QCOMPARE(input[u"kind"_s].toString(), u"comparison"_s);
    // The configuration beside it is the wizard's format and plans as `fathom plan --config_file` would.
    QVERIFY(QFile::exists(dir.filePath(u"demo.yaml"_s)));
  }
};

QTEST_GUILESS_MAIN(TestDemoBuilder)
#include "tst_demo_builder.moc"
