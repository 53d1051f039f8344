// SPDX-License-Identifier: Apache-2.0
// Calibration from a finished run (issue 24) as a user does it: a real `fathom calibrate --quick` writes this machine's
// profile, a real 2-rank profiled `fathom launch ... fathom train --profile` run is fitted with `fathom plan
// --calibrate_from RUN`, the fit is stored in the workspace and later plans of this-machine use it (`fathom plan`,
// `fathom runs plan-vs-actual`), a plan of the profile file itself does not; the refusals (a run without traces, a
// preset, a trace file gone); and the Studio's "Calibrate from this run" on the run's plan-vs-actual tab, and the
// stored fit on the page opened again.
#include "cli_runner.h"
#include "main_window.h"
#include "studio_test_mode.h"
#include "studio_translations.h"
#include "workspace_controller.h"

#include "runs/run_details_page.h"

#include <fathom/plan/hardware.h>
#include <fathom/store/workspace.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <filesystem>
#include <vector>

using namespace Qt::StringLiterals;
using fathom::test::CliRun;
using fathom::test::describe;
using fathom::test::runFathom;

class CalibrateFromRunTest : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_workspace;
  QString m_profile;
  QString m_profiled;    ///< the profiled run's id
  QString m_unprofiled;  ///< a run without traces
  QProcessEnvironment m_env;

  /// Launches `processes` ranks of gpt-tiny under DDP for 6 steps; returns the run's id.
  QString launch(const QString& name, const QStringList& extra, int processes = 2) {
    QStringList args{u"launch"_s,
                     u"--num_processes"_s,
                     QString::number(processes),
                     u"--quiet"_s,
                     u"--workspace"_s,
                     m_workspace,
                     u"--run_name"_s,
                     name,
                     fathom::test::fathomExecutable(),
                     u"train"_s,
                     u"--cpu"_s,
                     u"--model"_s,
                     u"gpt-tiny"_s,
                     u"--batch_size"_s,
                     u"4"_s,
                     u"--steps"_s,
                     u"6"_s,
                     u"--log_every"_s,
                     u"1"_s};
    const CliRun run = runFathom(args + extra, m_env, {}, 180'000);
    if (run.exitCode != 0) {
      qWarning("%s", qPrintable(describe(run)));
      return {};
    }
    const CliRun listed = runFathom({u"runs"_s, u"list"_s, u"--workspace"_s, m_workspace, u"--json"_s}, m_env);
    return QString::number(QJsonDocument::fromJson(listed.out).array().last().toObject()[u"id"_s].toInt());
  }

  CliRun calibrateFrom(const QString& run, const QStringList& extra = {}) {
    return runFathom(QStringList{u"plan"_s, u"--calibrate_from"_s, run, u"--workspace"_s, m_workspace} + extra, m_env,
                     {}, 120'000);
  }

  /// Opens the workspace in `window` and the run's page on its plan-vs-actual tab (the fit note's tab).
  void openFitTab(fathom::studio::MainWindow& window, qint64 run, fathom::views::RunDetailsPage** page) {
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.openWorkspace(m_workspace);
    QTRY_VERIFY(window.workspace()->isOpen());
    window.openRun(run);
    QTRY_VERIFY((*page = window.runPage(run)) != nullptr);
    auto* note = (*page)->findChild<QLabel*>(u"runFitNote"_s);
    auto* tabs = (*page)->findChild<QTabWidget*>(u"runTabs"_s);
    QVERIFY(note != nullptr && tabs != nullptr);
    for (int i = 0; i < tabs->count(); ++i) {
      if (tabs->widget(i)->isAncestorOf(note)) {
        tabs->setCurrentIndex(i);
      }
    }
  }

  /// FATHOM_TEST_SCREENSHOT=file.png: the window as the test left it (under xvfb-run with -platform xcb for real
  /// fonts; run one Studio slot alone, or the later replaces the picture).
  static void screenshot(QWidget& window) {
    if (const QByteArray shot = qgetenv("FATHOM_TEST_SCREENSHOT"); !shot.isEmpty()) {
      QVERIFY(window.grab().save(QString::fromLocal8Bit(shot)));
    }
  }

private slots:
  void initTestCase() {
    // To look at it in another language: FATHOM_TEST_LOCALE=de (or zh_CN), with FATHOM_TEST_SCREENSHOT (the Studio
    // slots).
    if (const QByteArray locale = qgetenv("FATHOM_TEST_LOCALE"); !locale.isEmpty()) {
      QVERIFY(fathom::studio::installTranslators(*QCoreApplication::instance(), QLocale(QString::fromLatin1(locale))));
    }
    fathom::test::enterStudioTestMode();
    QVERIFY(m_dir.isValid());
    m_workspace = m_dir.filePath(u"ws.sqlite"_s);
    // This process's user config folder too: the Studio's `fathom plan` inherits it.
    qputenv("XDG_CONFIG_HOME", m_dir.filePath(u"config"_s).toLocal8Bit());
    qputenv("XDG_CACHE_HOME", m_dir.filePath(u"cache"_s).toLocal8Bit());
    m_env = fathom::test::launcherFreeEnvironment();
    const CliRun calibrated = runFathom(
        {u"calibrate"_s, u"--quick"_s, u"--device"_s, u"cpu"_s, u"--max_processes"_s, u"2"_s}, m_env, {}, 300'000);
    QVERIFY2(calibrated.exitCode == 0, qPrintable(describe(calibrated)));
    m_profile = m_dir.filePath(u"config/fathom/hardware/this-machine.yaml"_s);
    QVERIFY(QFile::exists(m_profile));
    m_profiled = launch(u"profiled"_s, {u"--profile"_s, u"--profile_dir"_s, m_dir.filePath(u"traces"_s)});
    QVERIFY(!m_profiled.isEmpty());
    m_unprofiled = launch(u"unprofiled"_s, {});
    QVERIFY(!m_unprofiled.isEmpty());
  }
  void cleanupTestCase() { fathom::test::leaveStudioTestMode(); }

  void fitsStoresAndLaterPlansUseIt() {
    const CliRun fit = calibrateFrom(m_profiled, {u"--json"_s});
    QVERIFY2(fit.exitCode == 0, qPrintable(describe(fit)));
    QVERIFY2(fit.err.contains("reading trace 2/2"), fit.err.constData());  // one trace per rank, merged left out
    const QJsonObject report = QJsonDocument::fromJson(fit.out).object();
    QCOMPARE(QString::number(report[u"run"_s].toInt()), m_profiled);
    QCOMPARE(report[u"traces"_s].toInt(), 2);
    QCOMPARE(report[u"steps"_s].toInt(), 3);  // the default schedule 1,1,3,1
    QStringList names;
    for (const QJsonValue& c : report[u"classes"_s].toArray()) {
      const QJsonObject o = c.toObject();
      names << o[u"name"_s].toString();
      QVERIFY2(o[u"measured_s"_s].toDouble() >= 0 && o[u"factor"_s].toDouble() > 0, qPrintable(names.last()));
      if (o[u"name"_s].toString() == u"matmul"_s) {
        QVERIFY(o[u"measured_s"_s].toDouble() > 0 && o[u"predicted_s"_s].toDouble() > 0);
      }
    }
    for (const QString& expected :
         {u"matmul"_s, u"attention"_s, u"elementwise"_s, u"optimizer"_s, u"overhead"_s, u"all_reduce"_s}) {
      QVERIFY2(names.contains(expected), qPrintable(names.join(u","_s)));
    }
    // The fitted profile predicts the run it was fitted to: compute and exposed communication as measured, the rest
    // as overhead.
    const QJsonObject step = report[u"step_s"_s].toObject();
    const double measured = step[u"measured"_s].toDouble();
    const double fitted = step[u"fitted"_s].toDouble();
    QVERIFY2(measured > 0 && std::abs(fitted / measured - 1) < 1e-6,
             qPrintable(u"measured %1 s, fitted %2 s"_s.arg(measured).arg(fitted)));

    // Later plans of this machine by name use the newest fit of this calibration; the file itself stays as measured.
    const QStringList plan{u"plan"_s, u"--model"_s,     u"gpt-tiny"_s, u"--num_processes"_s,
                           u"2"_s,    u"--strategy"_s,  u"ddp"_s,      u"--micro_batch"_s,
                           u"4"_s,    u"--workspace"_s, m_workspace,   u"--json"_s};
    const CliRun byName = runFathom(plan + QStringList{u"--hardware"_s, u"this-machine"_s}, m_env);
    QVERIFY2(byName.exitCode == 0, qPrintable(describe(byName)));
    QVERIFY2(byName.err.contains("fitted to run " + m_profiled.toUtf8()), byName.err.constData());
    const CliRun byFile = runFathom(plan + QStringList{u"--hardware"_s, m_profile}, m_env);
    QVERIFY2(byFile.exitCode == 0 && !byFile.err.contains("fitted"), qPrintable(describe(byFile)));
    const double fittedOverhead =
        QJsonDocument::fromJson(byName.out).object()[u"time"_s].toObject()[u"overhead_s"_s].toDouble();
    QVERIFY(fittedOverhead > 0);
    QCOMPARE(QJsonDocument::fromJson(byFile.out).object()[u"time"_s].toObject()[u"overhead_s"_s].toDouble(), 0.0);

    // plan-vs-actual of the run on this-machine plans it on the fit: the step the report called fitted.
    const CliRun compared = runFathom({u"runs"_s, u"plan-vs-actual"_s, m_profiled, u"--workspace"_s, m_workspace,
                                       u"--hardware"_s, u"this-machine"_s, u"--json"_s},
                                      m_env);
    QVERIFY2(compared.exitCode == 0, qPrintable(describe(compared)));
    const double replanned = QJsonDocument::fromJson(compared.out)
                                 .object()[u"plan"_s]
                                 .toObject()[u"time"_s]
                                 .toObject()[u"step_s"_s]
                                 .toDouble();
    QVERIFY2(std::abs(replanned / fitted - 1) < 1e-9, qPrintable(u"%1 vs %2"_s.arg(replanned).arg(fitted)));

    // The text form names the classes and where the fit went.
    const CliRun text = calibrateFrom(m_profiled);
    QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
    QVERIFY2(text.out.contains("PER STEP") && text.out.contains("matmul") &&
                 text.out.contains("Stored as hardware fit 2"),
             text.out.constData());
  }

  void refusals() {
    CliRun r = calibrateFrom(m_unprofiled);
    QVERIFY2(r.exitCode != 0 && r.err.contains("has no rank traces") && r.err.contains("--profile"),
             qPrintable(describe(r)));
    r = calibrateFrom(m_profiled, {u"--hardware"_s, u"cpu-host"_s});
    QVERIFY2(r.exitCode != 0 && r.err.contains("was not measured by `fathom calibrate`"), qPrintable(describe(r)));
    r = calibrateFrom(m_profiled, {u"--output"_s, m_dir.filePath(u"plan.txt"_s)});  // the fit is no prediction
    QVERIFY2(r.exitCode != 0 && r.err.contains("excludes"), qPrintable(describe(r)));
    r = calibrateFrom(u"no-such-run"_s);
    QVERIFY2(r.exitCode != 0 && r.err.contains("no-such-run"), qPrintable(describe(r)));
    // A trace file moved away: named, and nothing stored.
    const QString rank1 = m_dir.filePath(u"traces/run_%1/profile_1.json"_s.arg(m_profiled));
    QVERIFY2(QFile::rename(rank1, rank1 + u".away"_s), qPrintable(rank1));
    r = calibrateFrom(m_profiled);
    QVERIFY(QFile::rename(rank1 + u".away"_s, rank1));
    QVERIFY2(r.exitCode != 0 && r.err.contains("profile_1.json") && r.err.contains("is gone"), qPrintable(describe(r)));
  }

  // The run page's "Calibrate from this run" runs the same fit and shows what it found.
  void studioButton() {
    fathom::studio::MainWindow window;
    const qint64 run = m_profiled.toLongLong();
    fathom::views::RunDetailsPage* page = nullptr;
    openFitTab(window, run, &page);
    if (QTest::currentTestFailed()) {
      return;
    }
    auto* button = page->findChild<QPushButton*>(u"calibrateFromRun"_s);
    auto* note = page->findChild<QLabel*>(u"runFitNote"_s);
    QVERIFY(button != nullptr && note != nullptr);
    QTRY_VERIFY(!page->isLive());
    QTRY_VERIFY(button->isVisibleTo(page));
    QTest::mouseClick(button, Qt::LeftButton);
    // The factors name the classes in every language ("matmul 0.93, ..."): the fit's report arrived.
    QTRY_VERIFY_WITH_TIMEOUT(note->text().contains(u"matmul"_s), 60'000);
    QVERIFY2(button->isEnabled(), qPrintable(note->text()));
    if (qEnvironmentVariableIsEmpty("FATHOM_TEST_LOCALE")) {
      QVERIFY2(note->text().contains(u"hardware fit"_s), qPrintable(note->text()));
    }
    screenshot(window);
  }

  // Opened later (a new window, as after a restart): the page shows the run's newest stored fit, read from the
  // workspace, not what a button press brought back.
  void reopenedPageShowsTheStoredFit() {
    const qint64 run = m_profiled.toLongLong();
    const CliRun fitted = calibrateFrom(m_profiled);  // one more fit: the newest, whatever ran before
    QVERIFY2(fitted.exitCode == 0, qPrintable(describe(fitted)));
    fathom::store::HardwareFitId newest;
    double matmul = 0;
    {
      const std::filesystem::path file(m_workspace.toStdString());
      const fathom::store::Workspace ws(file, fathom::store::Workspace::readerOptions(file));
      const std::vector<fathom::store::HardwareFitRow> fits = ws.hardwareFits(fathom::store::RunId{run});
      QVERIFY(!fits.empty());
      newest = fits.back().id;
      const fathom::plan::HardwareSpec profile = fathom::plan::parseHardware(fits.back().fit.profileYaml, "fit");
      QVERIFY(profile.calibration && profile.calibration->runFit);
      matmul = profile.calibration->runFit->matmul;
    }
    fathom::studio::MainWindow window;
    fathom::views::RunDetailsPage* page = nullptr;
    openFitTab(window, run, &page);
    if (QTest::currentTestFailed()) {
      return;
    }
    auto* note = page->findChild<QLabel*>(u"runFitNote"_s);
    const QString factor = u"matmul "_s + QLocale().toString(matmul, 'f', 2);
    QTRY_VERIFY2(note->text().contains(factor), qPrintable(note->text() + u" lacks "_s + factor));
    QVERIFY2(note->text().contains(QString::number(newest.value)), qPrintable(note->text()));
    screenshot(window);
  }

  // Fits of two settings: a plan uses the newest fitted at its processes and threads, whichever is newer overall;
  // a plan of a setting no fit has takes the newest at its processes, and says so.
  void aPlanPrefersTheFitOfItsSetting() {
    const QString single =
        launch(u"profiled-1p"_s, {u"--profile"_s, u"--profile_dir"_s, m_dir.filePath(u"traces-1p"_s)}, 1);
    QVERIFY(!single.isEmpty());
    const CliRun fit = calibrateFrom(single);  // the newest fit now
    QVERIFY2(fit.exitCode == 0, qPrintable(describe(fit)));
    auto planAt = [&](int processes, const QStringList& extra = {}) {
      return runFathom(QStringList{u"plan"_s, u"--model"_s, u"gpt-tiny"_s, u"--num_processes"_s,
                                   QString::number(processes), u"--strategy"_s, u"ddp"_s, u"--micro_batch"_s, u"4"_s,
                                   u"--hardware"_s, u"this-machine"_s, u"--workspace"_s, m_workspace} +
                           extra,
                       m_env);
    };
    const CliRun two = planAt(2);
    QVERIFY2(two.exitCode == 0, qPrintable(describe(two)));
    QVERIFY2(two.err.contains("fitted to run " + m_profiled.toUtf8() + " (profiled)") &&
                 two.err.contains("2 processes x 1 thread per node") && !two.err.contains("this plan runs"),
             two.err.constData());
    const CliRun one = planAt(1);
    QVERIFY2(one.exitCode == 0, qPrintable(describe(one)));
    QVERIFY2(one.err.contains("fitted to run " + single.toUtf8() + " (profiled-1p)") &&
                 one.err.contains("1 process x ") && !one.err.contains("this plan runs"),
             one.err.constData());
    // 2 processes of 2 threads: no fit has them; the newest of 2 processes, not the newest overall, with a note.
    const CliRun threads = planAt(2, {u"--num_cpu_threads_per_process"_s, u"2"_s});
    QVERIFY2(threads.exitCode == 0, qPrintable(describe(threads)));
    QVERIFY2(threads.err.contains("fitted to run " + m_profiled.toUtf8() + " (profiled)") &&
                 threads.err.contains("this plan runs 2 processes x 2 threads"),
             threads.err.constData());
  }

  // A stored fit that does not read (a workspace written by hand, or by a broken tool) is refused, naming the
  // workspace and the fit, never skipped: the plan would silently drop to another fit.
  void aBrokenStoredFitIsNamed() {
    const QString broken = m_dir.filePath(u"broken-fit.sqlite"_s);
    const fathom::plan::HardwareSpec profile = fathom::plan::loadHardware(m_profile.toStdString());
    QVERIFY(profile.calibration.has_value());
    fathom::store::HardwareFitId id;
    {
      fathom::store::Workspace ws(broken.toStdString());
      const fathom::store::RunId run = ws.createRun({"by hand", "", "", ""});
      id = ws.addHardwareFit({run, 1.0e9, profile.calibration->host, profile.calibration->device,
                              profile.calibration->measuredAt, "name: [unclosed\n"});
    }
    const CliRun r = runFathom({u"plan"_s, u"--model"_s, u"gpt-tiny"_s, u"--num_processes"_s, u"2"_s, u"--hardware"_s,
                                u"this-machine"_s, u"--workspace"_s, broken},
                               m_env);
    QVERIFY2(r.exitCode != 0 && r.err.contains("broken-fit.sqlite hardware fit " + QByteArray::number(id.value)),
             qPrintable(describe(r)));
  }
};

QTEST_MAIN(CalibrateFromRunTest)
#include "tst_calibrate_from_run.moc"
