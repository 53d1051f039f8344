// SPDX-License-Identifier: Apache-2.0
// Issue 22 in the Studio: a run's page lists its checkpoints (the workspace's checkpoint artifacts), and "Resume from
// this checkpoint" launches the run's stored configuration again with --resume_from_checkpoint: a real `fathom
// launch` of `fathom train`, whose resumed run continues at the checkpoint's step and numbers its own checkpoints on.
#include "launch_controller.h"
#include "main_window.h"
#include "resume_launch.h"
#include "studio_test_mode.h"
#include "workspace_controller.h"

#include "runs/checkpoints_model.h"
#include "runs/run_details.h"
#include "runs/run_details_page.h"

#include "cli_runner.h"

#include <fathom/common/error.h>
#include <fathom/store/workspace.h>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace fathom;

namespace {

std::vector<std::string> words(const QStringList& list) {
  std::vector<std::string> out;
  for (const QString& w : list)
    out.push_back(w.toStdString());
  return out;
}

}  // namespace

class TestStudioResume : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::enterStudioTestMode(); }
  void cleanupTestCase() { fathom::test::leaveStudioTestMode(); }

  void resumeCommandReplacesTheFlags_data() {
    QTest::addColumn<QStringList>("command");
    QTest::addColumn<QStringList>("expected");
    const QString ckpt = u"/data/exp/checkpoints/checkpoint_3"_s;
    QTest::newRow("fathom train") << QStringList{u"fathom"_s, u"train"_s, u"--steps"_s, u"8"_s}
                                  << QStringList{u"fathom"_s,
                                                 u"train"_s,
                                                 u"--steps"_s,
                                                 u"8"_s,
                                                 u"--project_dir"_s,
                                                 u"/data/exp"_s,
                                                 u"--resume_from_checkpoint"_s,
                                                 ckpt};
    QTest::newRow("flags replaced, both spellings")
        << QStringList{u"/usr/bin/fathom"_s,
                       u"train"_s,
                       u"--project-dir=old"_s,
                       u"--resume_from_checkpoint"_s,
                       u"latest"_s,
                       u"--steps"_s,
                       u"8"_s}
        << QStringList{
               u"/usr/bin/fathom"_s,          u"train"_s, u"--steps"_s, u"8"_s, u"--project_dir"_s, u"/data/exp"_s,
               u"--resume_from_checkpoint"_s, ckpt};
    QTest::newRow("a user's program: the resume flag only")
        << QStringList{u"python3"_s, u"train.py"_s, u"--project_dir"_s, u"p"_s}
        << QStringList{u"python3"_s, u"train.py"_s, u"--project_dir"_s, u"p"_s, u"--resume_from_checkpoint"_s, ckpt};
  }
  void resumeCommandReplacesTheFlags() {
    QFETCH(QStringList, command);
    QFETCH(QStringList, expected);
    QCOMPARE(studio::resumeCommand(words(command), u"/data/exp/checkpoints/checkpoint_3"_s), expected);
  }

  // A checkpoint whose folder is gone (rotated away by --save_total_limit, or deleted) stays listed, as the workspace
  // keeps its record, but reads "(deleted)" and cannot be selected to resume from.
  void aDeletedCheckpointCannotBeChosen() {
    QTemporaryDir dir;
    const QString kept = dir.filePath(u"checkpoints/checkpoint_1"_s);
    QVERIFY(QDir().mkpath(kept));
    QFile manifest(kept + u"/manifest.json"_s);
    QVERIFY(manifest.open(QIODevice::WriteOnly));
    manifest.close();
    views::RunDetails details;
    details.row.info.id = store::RunId{3};
    details.artifacts.push_back({store::ArtifactId{1}, store::RunId{3},
                                 store::Artifact{store::ArtifactKind::Checkpoint,
                                                 dir.filePath(u"checkpoints/checkpoint_0"_s).toStdString(), 10},
                                 1.0});
    details.artifacts.push_back({store::ArtifactId{2}, store::RunId{3},
                                 store::Artifact{store::ArtifactKind::Checkpoint, kept.toStdString(), 10}, 2.0});
    views::RunDetailsPage page;
    page.setDetails(details);
    const views::CheckpointsModel* model = page.checkpointsModel();
    QCOMPARE(model->rowCount(), 2);
    QCOMPARE(model->index(0, views::CheckpointsModel::NameColumn).data().toString(), u"checkpoint_0 (deleted)"_s);
    QVERIFY(!(model->flags(model->index(0, 0)) & Qt::ItemIsEnabled));
    QVERIFY(model->index(0, 0).data(Qt::ToolTipRole).toString().contains(u"--save_total_limit"_s));
    QCOMPARE(model->index(1, views::CheckpointsModel::NameColumn).data().toString(), u"checkpoint_1"_s);
    QVERIFY(model->flags(model->index(1, 0)) & Qt::ItemIsSelectable);
    auto* table = page.findChild<QTableView*>(u"checkpointsTable"_s);
    QVERIFY(table != nullptr);
    table->selectRow(0);
    QVERIFY(!table->selectionModel()->hasSelection());
    table->selectRow(1);
    QVERIFY(table->selectionModel()->hasSelection());
  }

  // A run without a stored specification (not started by fathom launch) cannot be started again: the button stays
  // disabled. A specification without fathom.command is refused naming what is missing.
  void aRunWithoutASpecificationCannotBeResumed() {
    views::RunDetails details;
    details.row.info.id = store::RunId{7};
    details.artifacts.push_back({store::ArtifactId{1}, store::RunId{7},
                                 store::Artifact{store::ArtifactKind::Checkpoint, "/p/checkpoints/checkpoint_0", 10},
                                 1.0});
    details.artifacts.push_back(
        {store::ArtifactId{2}, store::RunId{7}, store::Artifact{store::ArtifactKind::Trace, "/p/trace.json", 5}, 2.0});
    views::RunDetailsPage page;
    page.setDetails(details);
    QCOMPARE(page.checkpointsModel()->rowCount(), 1);  // the trace is not a checkpoint
    auto* table = page.findChild<QTableView*>(u"checkpointsTable"_s);
    auto* resume = page.findChild<QPushButton*>(u"resumeFromCheckpoint"_s);
    QVERIFY(table != nullptr && resume != nullptr);
    table->selectRow(0);
    QVERIFY(!resume->isEnabled());
    QVERIFY(resume->toolTip().contains(u"not started from a configuration"_s));

    QTemporaryDir dir;
    try {
      studio::prepareResume(7, u"distributed_type: 'NO'\nnum_processes: 1\n"_s, u"/p/checkpoints/checkpoint_0"_s,
                            dir.path());
      QFAIL("a specification without a command was accepted");
    } catch (const ConfigError& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains(u"run 7's specification names no command (fathom.command)"_s),
               e.what());
    }
    QVERIFY(!QFileInfo::exists(dir.filePath(u"run_7_resume.yaml"_s)));  // nothing written
  }

  void resumesARunFromTheCheckpointChosenOnItsPage() {
    QTemporaryDir dir;
    const QString ws = dir.filePath(u"ws.sqlite"_s);
    const QString project = dir.filePath(u"project"_s);
    // A configuration as the wizard writes one: the program in fathom.command.
    const QString config = dir.filePath(u"run.yaml"_s);
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write((u"distributed_type: 'NO'\nnum_processes: 1\nuse_cpu: true\nfathom:\n  command: [fathom, train, "
                u"--model, mlp, --hidden, '32', --cpu, --steps, '6', --checkpointing_steps, '2', --log_every, '0', "
                u"--json, --project_dir, '"_s +
                project + u"']\n"_s)
                   .toUtf8());
    file.close();
    const QStringList command{u"fathom"_s, u"train"_s,       u"--model"_s, u"mlp"_s,    u"--hidden"_s,
                              u"32"_s,     u"--cpu"_s,       u"--steps"_s, u"6"_s,      u"--checkpointing_steps"_s,
                              u"2"_s,      u"--log_every"_s, u"0"_s,       u"--json"_s, u"--project_dir"_s,
                              project};

    auto window = std::make_unique<studio::MainWindow>();
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    { store::Workspace create(ws.toStdString()); }
    window->openWorkspace(ws);
    QTRY_VERIFY(window->workspace()->isOpen());
    studio::LaunchController* launcher = window->launcher();
    QSignalSpy finished(launcher, &studio::LaunchController::finished);
    QString error;
    QVERIFY2(launcher->start(config, command, ws, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60'000);
    QCOMPARE(finished.first().at(0).toInt(), 0);
    const qint64 first = finished.first().at(1).toLongLong();

    // The page lists the three checkpoints, in order.
    window->openRun(first);
    views::RunDetailsPage* page = nullptr;
    QTRY_VERIFY((page = window->runPage(first)) != nullptr);
    views::CheckpointsModel* model = page->checkpointsModel();
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 3, 10'000);
    for (int n = 0; n < 3; ++n) {
      const QString folder = QDir(project).absoluteFilePath(u"checkpoints/checkpoint_%1"_s.arg(n));
      QCOMPARE(model->index(n, views::CheckpointsModel::NameColumn).data().toString(), u"checkpoint_%1"_s.arg(n));
      QCOMPARE(model->index(n, 0).data(views::CheckpointsModel::PathRole).toString(), folder);
    }
    auto* table = page->findChild<QTableView*>(u"checkpointsTable"_s);
    auto* resume = page->findChild<QPushButton*>(u"resumeFromCheckpoint"_s);
    QVERIFY(table != nullptr && resume != nullptr);
    QVERIFY(!resume->isEnabled());  // nothing selected yet

    // Resume from checkpoint_1 (saved after step 4 of 6).
    table->selectRow(1);
    QVERIFY(resume->isEnabled());
    finished.clear();
    resume->click();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60'000);
    QCOMPARE(finished.first().at(0).toInt(), 0);
    const qint64 second = finished.first().at(1).toLongLong();
    QVERIFY(second != first);

    const store::Workspace w(ws.toStdString(), {.create = false, .reconcile = false});
    const QString checkpoint1 = QDir(project).absoluteFilePath(u"checkpoints/checkpoint_1"_s);
    int resumed = 0;
    for (const store::EventRow& e : w.lastEvents(store::RunId{second}, 1000)) {
      const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(e.event.text)).object();
      if (o.value(u"event"_s).toString() == u"resume"_s) {
        QCOMPARE(o.value(u"path"_s).toString(), checkpoint1);
        QCOMPARE(o.value(u"step"_s).toInt(), 4);
        ++resumed;
      }
    }
    QCOMPARE(resumed, 1);
    // It trained steps 5 and 6 and saved after step 6 next to the others, numbered after them.
    std::vector<std::string> saved;
    for (const store::ArtifactRow& a : w.artifacts(store::RunId{second}))
      saved.push_back(a.artifact.path);
    QCOMPARE(saved,
             std::vector<std::string>{QDir(project).absoluteFilePath(u"checkpoints/checkpoint_3"_s).toStdString()});
    QVERIFY(QFileInfo::exists(dir.filePath(u"run_%1_resume.yaml"_s.arg(first))));
  }
};

QTEST_MAIN(TestStudioResume)
#include "tst_studio_resume.moc"
