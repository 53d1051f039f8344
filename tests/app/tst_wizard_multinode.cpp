// SPDX-License-Identifier: Apache-2.0
// Issue 21 in the Studio, end to end and offscreen, through the main window: the configuration wizard's "Other
// hosts" choice launches a 4-process DDP `fathom train` on two machines, and the run page shows it.
// - over SSH: two loopback hosts h1, h2 behind a private sshd (tests/support/ssh_server.h); the run's four ranks
//   come from both hosts into the open workspace, and the Ranks tab groups them by host;
// - under SLURM: the private cluster of tests/support/slurm_cluster.h (nodes n1, n2); the wizard's SLURM form
//   (nodes, partition, time limit) makes `fathom launch` submit a job, which the Studio follows, and the run page
//   shows the job id and its queue state.
// Each launch's output is printed (qInfo) as it arrives, so a launch that fails says why.
#include "environment_controller.h"
#include "launch_controller.h"
#include "main_window.h"
#include "slurm_cluster.h"
#include "ssh_server.h"
#include "studio_test_mode.h"
#include "widget_lookup.h"
#include "wizard_input.h"
#include "workspace_controller.h"

#include "runs/run_details_page.h"
#include "runs/runs_model.h"
#include "wizard/config_wizard.h"

#include <fathom/config/vocabulary.h>

#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRadioButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace Qt::StringLiterals;
using fathom::studio::MainWindow;
using fathom::test::child;
using fathom::test::click;
using fathom::test::typeInto;
using fathom::views::ConfigWizard;

namespace {

QByteArray readFile(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void chooseLauncher(ConfigWizard* wizard, fathom::config::Launcher launcher) {
  auto* combo = child<QComboBox>(wizard, u"launcher"_s);
  const int index = combo->findData(int(launcher));
  QVERIFY(index >= 0);
  combo->setCurrentIndex(index);
}

/// The wizard from the DDP page on: 4 processes, micro-batch 2, 4 steps logged every step; saved as `config`.
void fillDdpAndName(ConfigWizard* wizard, const QString& config) {
  wizard->next();
  click(child<QRadioButton>(wizard, u"paradigmDdp"_s));
  typeInto(child<QSpinBox>(wizard, u"numProcesses"_s), 4);
  wizard->next();
  wizard->next();
  typeInto(child<QSpinBox>(wizard, u"microBatch"_s), 2);
  wizard->next();
  typeInto(child<QSpinBox>(wizard, u"steps"_s), 4);
  typeInto(child<QSpinBox>(wizard, u"logEvery"_s), 1);
  wizard->next();
  wizard->next();
  child<QLineEdit>(wizard, u"configPath"_s)->setText(config);
}

}  // namespace

class TestWizardMultinode : public QObject {
  Q_OBJECT

  /// A main window on a new workspace in `dir`, its launch output echoed to the test log.
  static void prepare(MainWindow& window, const QTemporaryDir& dir) {
    QObject::connect(window.launcher(), &fathom::studio::LaunchController::output, &window,
                     [](const QString& line) { qInfo("launch: %s", qPrintable(line)); });
    QTRY_VERIFY_WITH_TIMEOUT(window.environment()->hasReport(), 30'000);
    const QString workspace = dir.filePath(u"ws.sqlite"_s);
    window.openWorkspace(workspace, /*create=*/true);
    QTRY_COMPARE(window.workspace()->path(), workspace);
  }

  /// Clicks Launch (which must be offered: `what` says for what) and returns the configuration file it saved.
  static QByteArray launch(ConfigWizard* wizard, const QString& config, const char* what) {
    QAbstractButton* button = wizard->button(QWizard::CustomButton1);
    if (!button->isEnabled()) {
      QTest::qFail(qPrintable(u"Launch is not offered for "_s + QString::fromUtf8(what)), __FILE__, __LINE__);
      return {};
    }
    QTest::mouseClick(button, Qt::LeftButton);
    return readFile(config);
  }

  /// Opens the run's page and waits until its details are read.
  static fathom::views::RunDetailsPage* openRunPage(MainWindow& window, qint64 runId) {
    window.openRun(runId);
    const bool read = QTest::qWaitFor([&] { return window.runPage(runId) != nullptr; }, 5'000);
    return read ? window.runPage(runId) : nullptr;
  }

  /// Waits for the launch to end and the run to be listed, succeeded.
  static void waitForSuccess(MainWindow& window) {
    QTRY_VERIFY_WITH_TIMEOUT(!window.launcher()->isRunning(), 150'000);
    QTRY_VERIFY_WITH_TIMEOUT(window.runsModel()->rowCount() == 1 &&
                                 window.runsModel()->runs().front().info.status == fathom::store::RunStatus::Succeeded,
                             15'000);
  }

  /// With FATHOM_TEST_SCREENSHOTS=DIR: the window as it is, the workspace and the configuration, for the Studio's
  /// own screenshots of them (`fathom-studio --workspace DIR/NAME.sqlite --show run:1`, `--config DIR/NAME.yaml
  /// --show wizard:0`).
  static void screenshot(MainWindow& window, const QString& name, const QString& config) {
    if (const QString shots = qEnvironmentVariable("FATHOM_TEST_SCREENSHOTS"); !shots.isEmpty()) {
      window.resize(1600, 1000);
      window.show();
      QTest::qWait(500);
      QVERIFY(window.grab().save(shots + u"/"_s + name + u".png"_s));
      QFile::copy(window.workspace()->path(), shots + u"/"_s + name + u".sqlite"_s);
      QFile::copy(config, shots + u"/"_s + name + u".yaml"_s);
    }
  }

private slots:
  void initTestCase() { fathom::test::enterStudioTestMode(); }
  void cleanupTestCase() { fathom::test::leaveStudioTestMode(); }

  // The wizard saves the hosts, the launcher and the ssh configuration and launches `fathom launch --config_file`,
  // which reaches h1 and h2 through the private sshd; the run page shows the four ranks grouped by host.
  void launchOverSshGroupsRanksByHost() {
    QTemporaryDir dir;
    QVERIFY(QDir().mkpath(dir.filePath(u"sshd"_s)));
    fathom::test::SshServer sshd;
    const QString sshError = sshd.start(dir.filePath(u"sshd"_s));
    QVERIFY2(sshError.isEmpty(), qPrintable(sshError));
    MainWindow window;
    prepare(window, dir);
    ConfigWizard* wizard = window.newConfiguration();
    click(child<QRadioButton>(wizard, u"targetRemote"_s));
    child<QCheckBox>(wizard, u"useCpu"_s)->setChecked(true);
    chooseLauncher(wizard, fathom::config::Launcher::Ssh);
    QVERIFY(child<QPlainTextEdit>(wizard, u"hosts"_s)->isVisibleTo(wizard));
    QVERIFY(!child<QSpinBox>(wizard, u"slurmNodes"_s)->isVisibleTo(wizard));
    child<QPlainTextEdit>(wizard, u"hosts"_s)->setPlainText(u"h1\nh2"_s);
    child<QLineEdit>(wizard, u"sshConfig"_s)->setText(sshd.configFile());
    child<QSpinBox>(wizard, u"mainProcessPort"_s)->setValue(fathom::test::SshServer::freePort());
    const QString config = dir.filePath(u"two_hosts.yaml"_s);
    fillDdpAndName(wizard, config);
    const QByteArray saved = launch(wizard, config, "other hosts over ssh");
    if (QTest::currentTestFailed()) {
      return;
    }
    QVERIFY2(saved.contains("launcher: ssh") && saved.contains("- h2"), saved.constData());
    waitForSuccess(window);
    const fathom::views::RunRow& run = window.runsModel()->runs().front();
    QCOMPARE(run.worldSize, 4);
    fathom::views::RunDetailsPage* page = openRunPage(window, run.info.id.value);
    QVERIFY(page != nullptr);
    auto* ranks = child<QTreeView>(page, u"ranksTable"_s);
    const QAbstractItemModel* model = ranks->model();
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 2, 30'000);  // the page's feed reads the ranks
    for (int host = 0; host < 2; ++host) {
      const QModelIndex group = model->index(host, 0);
      // "h1 (2 ranks)" under the English translation; the test runs untranslated: "h1 (2 rank(s))".
      QVERIFY2(group.data().toString().startsWith(u"h%1 (2 rank"_s.arg(host + 1)), qPrintable(group.data().toString()));
      QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(group), 2, 30'000);
      QVERIFY(ranks->isExpanded(group));
      for (int i = 0; i < 2; ++i) {
        QCOMPARE(model->index(i, 0, group).data().toString(), QString::number(host * 2 + i));
      }
    }
    screenshot(window, u"ranks_by_host"_s, config);
  }

  // The SLURM form: nodes, partition, time limit; Launch submits a job (`fathom launch` outside an allocation with
  // launcher: slurm), the run arrives from the job, and its page names the job and its state.
  void launchUnderSlurmShowsTheJob() {
    const QString skip = fathom::test::SlurmCluster::unavailable();
    if (!skip.isEmpty()) {
      QSKIP(qPrintable(skip));
    }
    QTemporaryDir dir;
    fathom::test::SlurmCluster cluster;
    const QString error = cluster.start(dir.filePath(u"slurm"_s));
    QVERIFY2(error.isEmpty(), qPrintable(error));
    // The Studio and the `fathom launch` it starts use this cluster, from outside any allocation.
    const QProcessEnvironment env = cluster.environment();
    for (const QString& name : QProcessEnvironment::systemEnvironment().keys()) {
      if (name.startsWith(u"SLURM_"_s)) {
        qunsetenv(qPrintable(name));
      }
    }
    qputenv("SLURM_CONF", env.value(u"SLURM_CONF"_s).toLocal8Bit());
    MainWindow window;
    prepare(window, dir);
    ConfigWizard* wizard = window.newConfiguration();
    click(child<QRadioButton>(wizard, u"targetRemote"_s));
    child<QCheckBox>(wizard, u"useCpu"_s)->setChecked(true);
    chooseLauncher(wizard, fathom::config::Launcher::Slurm);
    QVERIFY(!child<QPlainTextEdit>(wizard, u"hosts"_s)->isVisibleTo(wizard));
    QVERIFY(child<QSpinBox>(wizard, u"slurmNodes"_s)->isVisibleTo(wizard));
    typeInto(child<QSpinBox>(wizard, u"slurmNodes"_s), 2);
    child<QLineEdit>(wizard, u"slurmPartition"_s)->setText(u"debug"_s);
    child<QLineEdit>(wizard, u"slurmTime"_s)->setText(u"0:10:00"_s);
    child<QSpinBox>(wizard, u"mainProcessPort"_s)->setValue(fathom::test::SlurmCluster::freePort());
    const QString config = dir.filePath(u"slurm.yaml"_s);
    fillDdpAndName(wizard, config);
    const QByteArray saved = launch(wizard, config, "a SLURM job");
    if (QTest::currentTestFailed()) {
      return;
    }
    QVERIFY2(saved.contains("launcher: slurm") && saved.contains("slurm_partition: debug") &&
                 saved.contains("num_machines: 2") && !saved.contains("hosts:"),
             saved.constData());
    waitForSuccess(window);
    const fathom::views::RunRow& run = window.runsModel()->runs().front();
    QCOMPARE(run.worldSize, 4);
    QVERIFY2(QString::fromStdString(run.info.slurmJobId).toInt() > 0, run.info.slurmJobId.c_str());
    fathom::views::RunDetailsPage* page = openRunPage(window, run.info.id.value);
    QVERIFY(page != nullptr);
    auto* summary = child<QLabel>(page, u"runSummary"_s);
    const QString expected = QString::fromStdString(run.info.slurmJobId) + u" (COMPLETED)"_s;
    QTRY_VERIFY2(summary->text().contains(u"SLURM job"_s) && summary->text().contains(expected),
                 qPrintable(summary->text()));
    screenshot(window, u"slurm_run"_s, config);
    qunsetenv("SLURM_CONF");
  }
};

QTEST_MAIN(TestWizardMultinode)
#include "tst_wizard_multinode.moc"
