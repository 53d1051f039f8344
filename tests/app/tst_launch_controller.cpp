// SPDX-License-Identifier: Apache-2.0
// LaunchController: the Studio starts `fathom launch` as a child and learns the run from the launcher's JSON lines,
// never from its messages for people, so it works with `--quiet` (which hides them) as without; every rank's output
// still reaches the log, and the run in the workspace is the one announced.
#include "launch_controller.h"
#include "studio_test_mode.h"

#include <fathom/common/error.h>
#include <fathom/store/workspace.h>

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace fathom;
using studio::LaunchController;

class TestLaunchController : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    fathom::test::enterStudioTestMode();
    QVERIFY2(!LaunchController::fathomExecutable().isEmpty(), "fathom not built");
    qputenv("OMP_NUM_THREADS", "1");
  }
  void cleanupTestCase() { fathom::test::leaveStudioTestMode(); }

  void learnsTheRunFromTheJsonChannel_data() {
    QTest::addColumn<QStringList>("flags");
    QTest::newRow("default") << QStringList{};
    QTest::newRow("quiet") << QStringList{u"--quiet"_s};
    QTest::newRow("quiet and named") << QStringList{u"-q"_s, u"--run_name"_s, u"from the Studio"_s};
  }
  void learnsTheRunFromTheJsonChannel() {
    QFETCH(QStringList, flags);
    QTemporaryDir dir;
    const QString config = dir.filePath(u"run.yaml"_s);
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly) &&
            file.write("distributed_type: MULTI_CPU\nnum_processes: 2\nuse_cpu: true\n") > 0);
    file.close();
    const QString workspace = dir.filePath(u"ws.sqlite"_s);

    LaunchController controller;
    QSignalSpy recorded(&controller, &LaunchController::runRecorded);
    QSignalSpy output(&controller, &LaunchController::output);
    QSignalSpy finished(&controller, &LaunchController::finished);
    QString error;
    QVERIFY2(controller.start(config, {u"sh"_s, u"-c"_s, u"echo hello $RANK; echo oops $RANK >&2"_s}, workspace, &error,
                              flags),
             qPrintable(error));
    QVERIFY(controller.commandLine().contains(u" --json "_s));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60'000);
    QCOMPARE(finished.first().at(0).toInt(), 0);

    const store::Workspace ws(workspace.toStdString(), {.create = false, .reconcile = false});
    const auto runs = ws.listRuns();
    QCOMPARE(runs.size(), std::size_t{1});
    QCOMPARE(recorded.size(), 1);
    QCOMPARE(recorded.first().at(0).toLongLong(), runs[0].id.value);
    QCOMPARE(recorded.first().at(1).toString(), workspace);
    QCOMPARE(controller.runId(), runs[0].id.value);
    QCOMPARE(finished.first().at(1).toLongLong(), runs[0].id.value);
    if (flags.contains(u"--run_name"_s)) {
      QCOMPARE(runs[0].name, std::string("from the Studio"));
    }

    QStringList lines;
    for (const QList<QVariant>& signal : output) {
      lines << signal.at(0).toString();
    }
    for (const QString& expected : {u"[rank0]: hello 0"_s, u"[rank1]: hello 1"_s, u"[rank1]: oops 1"_s}) {
      QVERIFY2(lines.contains(expected), qPrintable(lines.join(u'\n')));
    }
    // No JSON reaches the log, and the launcher's own lines only without --quiet.
    QVERIFY2(!lines.join(u'\n').contains(u"\"event\""_s), qPrintable(lines.join(u'\n')));
    const bool quiet = flags.contains(u"--quiet"_s) || flags.contains(u"-q"_s);
    QCOMPARE(lines.join(u'\n').contains(u"fathom launch: run "_s), !quiet);
  }
};

QTEST_GUILESS_MAIN(TestLaunchController)
#include "tst_launch_controller.moc"
