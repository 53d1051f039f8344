// SPDX-License-Identifier: Apache-2.0
// The Studio starts, shows its window with menus and a status bar, fills the environment page, opens the
// About dialog, and speaks German under a German locale. Runs on the offscreen platform; `fathom-studio --help`
// and `--version` run without any display.
#include "environment_controller.h"
#include "main_window.h"
#include "studio_test_mode.h"
#include "studio_translations.h"

#include <QApplication>
#include <QDialog>
#include <QLabel>
#include <QMenuBar>
#include <QProcess>
#include <QTableView>
#include <QTest>
#include <QTranslator>

using namespace Qt::StringLiterals;
using fathom::studio::MainWindow;

namespace {

struct StudioRun {
  int exitCode = -1;  ///< -1 when it crashed (a QApplication without a display aborts) or timed out
  QString out;
  QString err;
};

/// Runs the real fathom-studio with `args` in an environment without any display: no QT_QPA_PLATFORM (which
/// CTest sets to offscreen), DISPLAY or WAYLAND_DISPLAY.
StudioRun runStudioWithoutDisplay(const QStringList& args) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) {
    env.remove(QString::fromLatin1(name));
  }
  QProcess p;
  p.setProcessEnvironment(env);
  p.start(qEnvironmentVariable("FATHOM_BIN_DIR", QStringLiteral(FATHOM_BINARY_DIR "/bin")) + u"/fathom-studio"_s, args);
  if (!p.waitForFinished(30'000)) {
    p.kill();
    p.waitForFinished();
    return {};
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

}  // namespace

class TestStudioSmoke : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::enterStudioTestMode(); }
  void cleanupTestCase() { fathom::test::leaveStudioTestMode(); }

  void helpAndVersionNeedNoDisplay_data() {
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("expected");
    QTest::newRow("--help") << u"--help"_s << u"--create-demo <dir>"_s;
    QTest::newRow("-h") << u"-h"_s << u"--workspace <file>"_s;
    QTest::newRow("--version") << u"--version"_s << u"Fathom Studio "_s;
  }

  void helpAndVersionNeedNoDisplay() {
    QFETCH(QString, option);
    QFETCH(QString, expected);
    const StudioRun run = runStudioWithoutDisplay({option});
    QVERIFY2(run.exitCode == 0,
             qPrintable(u"exit %1\n%2\n--- stderr ---\n%3"_s.arg(run.exitCode).arg(run.out, run.err)));
    QVERIFY2(run.out.contains(expected), qPrintable(run.out));
  }

  void mainWindowShowsEnvironment() {
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.windowTitle(), u"Fathom Studio"_s);

    const auto menus = window.menuBar()->actions();
    QCOMPARE(menus.size(), 4);
    QCOMPARE(menus.at(0)->text(), u"&File"_s);
    QCOMPARE(menus.at(1)->text(), u"&Run"_s);
    QCOMPARE(menus.at(2)->text(), u"&View"_s);
    QCOMPARE(menus.at(3)->text(), u"&Help"_s);

    QTRY_VERIFY_WITH_TIMEOUT(window.environment()->hasReport(), 30'000);
    const auto& report = window.environment()->report();
    QVERIFY(window.deviceSummary().startsWith(u"LibTorch "_s + QString::fromStdString(report.libtorchVersion)));
    QVERIFY(window.deviceSummary().contains(report.cuda.devices.empty() ? u"CPU only"_s : u"×"_s));
    auto* view = window.findChild<QTableView*>(u"environmentView"_s);
    QVERIFY(view != nullptr);
    QVERIFY(view->model()->rowCount() >= 10);
  }

  void aboutDialogOpens() {
    MainWindow window;
    window.show();
    window.showAbout();
    QDialog* about = nullptr;
    QTRY_VERIFY((about = window.findChild<QDialog*>(u"aboutDialog"_s)) != nullptr);
    QVERIFY(about->isVisible());
    QVERIFY(about->findChild<QLabel*>(u"aboutText"_s)->text().contains(u"LibTorch"_s));
    about->reject();
  }

  void germanLocaleTranslatesTheWindow() {
    QVERIFY(fathom::studio::installTranslators(*qApp, QLocale(QLocale::German, QLocale::Germany)));
    {
      MainWindow window;
      const auto menus = window.menuBar()->actions();
      QCOMPARE(menus.at(0)->text(), u"&Datei"_s);
      QCOMPARE(menus.at(3)->text(), u"&Hilfe"_s);
      QCOMPARE(window.deviceSummary(), u"Umgebung wird ermittelt…"_s);
      QTRY_VERIFY_WITH_TIMEOUT(window.environment()->hasReport(), 30'000);
      QVERIFY2(window.deviceSummary().contains(u"CPU-Kern"_s), qPrintable(window.deviceSummary()));
    }
    // Back to English for any later test.
    for (QTranslator* t : qApp->findChildren<QTranslator*>()) {
      QCoreApplication::removeTranslator(t);
      delete t;
    }
  }

  void englishUsesRealPluralForms() {
    // English ships only plural forms: "1 CPU core", "2 CPU cores", never "core(s)".
    QVERIFY(fathom::studio::installTranslators(*qApp, QLocale(QLocale::English, QLocale::UnitedStates)));
    MainWindow window;
    QCOMPARE(window.menuBar()->actions().at(0)->text(), u"&File"_s);
    QTRY_VERIFY_WITH_TIMEOUT(window.environment()->hasReport(), 30'000);
    const int cores = window.environment()->report().system.cpuCores;
    const QString expected = cores == 1 ? u"· 1 CPU core"_s : u"· %1 CPU cores"_s.arg(cores);
    QVERIFY2(window.deviceSummary().endsWith(expected), qPrintable(window.deviceSummary()));
  }
};

QTEST_MAIN(TestStudioSmoke)
#include "tst_studio_smoke.moc"
