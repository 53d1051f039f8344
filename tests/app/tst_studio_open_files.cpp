// SPDX-License-Identifier: Apache-2.0
// `fathom-studio FILE` (issue 19): what a file on the command line is (a trace by its JSON, gzip or not; a workspace
// by the SQLite header), and the real fathom-studio opening a positional trace into a timeline it screenshots, a
// positional workspace, and refusing a missing file or one that is neither with exit code 2 and a message naming it.
#include "open_file.h"
#include "studio_test_mode.h"

#include <fathom/store/workspace.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QMimeDatabase>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using fathom::studio::classifyOpenFile;
using fathom::studio::OpenFileKind;

namespace {

const QString kGloo = QStringLiteral(FATHOM_TEST_DATA_DIR "/traces/gloo_2rank_merged.json.gz");
const QString kKineto = QStringLiteral(FATHOM_TEST_DATA_DIR "/traces/kineto_good_rank0.json");

struct StudioRun {
  int exitCode = -1;  ///< -1 when it crashed or timed out
  QString err;
};

}  // namespace

class TestStudioOpenFiles : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  QString write(const QString& name, const QByteArray& bytes) {
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size()) {
      qFatal("cannot write %s", qPrintable(path));
    }
    return path;
  }

  /// The real fathom-studio (offscreen, as CTest sets it) with its settings in the test's directory.
  StudioRun studio(const QStringList& args) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(u"XDG_CONFIG_HOME"_s, m_dir.filePath(u"config"_s));
    env.insert(u"XDG_DATA_HOME"_s, m_dir.filePath(u"data"_s));
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(qEnvironmentVariable("FATHOM_BIN_DIR", QStringLiteral(FATHOM_BINARY_DIR "/bin")) + u"/fathom-studio"_s,
            args);
    if (!p.waitForFinished(90'000)) {
      p.kill();
      p.waitForFinished();
      return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardError())};
  }

private slots:
  void initTestCase() {
    fathom::test::enterStudioTestMode();
    QVERIFY(m_dir.isValid());
  }
  void cleanupTestCase() { fathom::test::leaveStudioTestMode(); }

  void classifies() {
    QString error;
    QCOMPARE(classifyOpenFile(kGloo, &error), std::optional(OpenFileKind::Trace));  // gzip
    QCOMPARE(classifyOpenFile(kKineto, &error), std::optional(OpenFileKind::Trace));
    // torch.profiler's name, with a byte order mark and white space before the JSON.
    QFile kineto(kKineto);
    QVERIFY(kineto.open(QIODevice::ReadOnly));
    const QString pt = write(u"worker0.1700000000.pt.trace.json"_s, "\xEF\xBB\xBF \n" + kineto.readAll());
    QCOMPARE(classifyOpenFile(pt, &error), std::optional(OpenFileKind::Trace));
    const QString array = write(u"array.json"_s, "[{\"ph\":\"X\"}]");
    QCOMPARE(classifyOpenFile(array, &error), std::optional(OpenFileKind::Trace));

    const QString workspace = m_dir.filePath(u"runs.sqlite"_s);
    { fathom::store::Workspace created(workspace.toStdString()); }
    QCOMPARE(classifyOpenFile(workspace, &error), std::optional(OpenFileKind::Workspace));

    struct Bad {
      QString path;
      QString says;
    };
    const QList<Bad> bad = {
        {m_dir.filePath(u"missing.json"_s), u"no such file"_s},
        {m_dir.path(), u"is not a file"_s},
        {write(u"notes.txt"_s, "hello"), u"is neither a trace"_s},
        {write(u"empty.json"_s, ""), u"is neither a trace"_s},
        {write(u"fake.sqlite"_s, "{\"traceEvents\":[]}"), u"not an SQLite database"_s},
        {write(u"broken.json.gz"_s, QByteArray("\x1f\x8b\x08\x00garbage-not-deflate", 24)), u"is not a trace"_s},
    };
    for (const Bad& b : bad) {
      error.clear();
      QVERIFY2(!classifyOpenFile(b.path, &error).has_value(), qPrintable(b.path));
      QVERIFY2(error.contains(b.path) && error.contains(b.says), qPrintable(error));
    }
  }

  /// installer/fathom-studio.xml as Qt reads shared-mime-info: traces by name (and plain .json by content), a
  /// workspace by its SQLite header and application_id. (Qt reads mime/packages/*.xml of XDG_DATA_DIRS; this runs
  /// before anything else in the process asks QMimeDatabase.)
  void mimeTypes() {
    const QString share = m_dir.filePath(u"share"_s);
    QVERIFY(QDir().mkpath(share + u"/mime/packages"_s));
    QVERIFY(QFile::copy(QStringLiteral(FATHOM_SOURCE_DIR "/installer/fathom-studio.xml"),
                        share + u"/mime/packages/fathom-studio.xml"_s));
    qputenv("XDG_DATA_DIRS", share.toUtf8() + ":/usr/share");
    QFile gloo(kGloo);
    QFile kineto(kKineto);
    QVERIFY(gloo.open(QIODevice::ReadOnly) && kineto.open(QIODevice::ReadOnly));
    const QByteArray gz = gloo.readAll();
    const QByteArray json = kineto.readAll();
    // Named as the Studio names a workspace (Qt 6.4 does not refine a name without a glob by the application_id
    // magic; GIO does: `gio info -a standard::content-type` says application/x-fathom-workspace for any name).
    QVERIFY(QDir().mkpath(m_dir.filePath(u"ws"_s)));
    const QString workspace = m_dir.filePath(u"ws/fathom.sqlite"_s);
    { fathom::store::Workspace created(workspace.toStdString()); }
    const QList<std::pair<QString, QString>> cases = {
        {write(u"profile_merged.json.gz"_s, gz), u"application/x-fathom-trace-gzip"_s},
        {write(u"worker0.123.pt.trace.json.gz"_s, gz), u"application/x-fathom-trace-gzip"_s},
        {write(u"worker0.123.pt.trace.json"_s, json), u"application/x-fathom-trace"_s},
        {write(u"profile_0.json"_s, json), u"application/x-fathom-trace"_s},
        {workspace, u"application/x-fathom-workspace"_s},
    };
    const QMimeDatabase db;
    for (const auto& [path, type] : cases) {
      QFile f(path);
      QVERIFY(f.open(QIODevice::ReadOnly));
      QVERIFY2(db.mimeTypeForFile(path).name() == type,
               qPrintable(path + u" is "_s + db.mimeTypeForFile(path).name() + u", header "_s +
                          QString::fromLatin1(f.read(72).mid(64).toHex())));
    }
    QVERIFY(db.mimeTypeForName(u"application/x-fathom-trace"_s).inherits(u"application/json"_s));
    // A JSON file that is not a trace stays JSON.
    QCOMPARE(db.mimeTypeForFile(write(u"config.json"_s, "{\"a\":1}")).name(), u"application/json"_s);
  }

  /// `fathom-studio TRACE --show timeline --screenshot PNG`: the positional trace opens, loads and is painted.
  void positionalTraceScreenshot() {
    const QString png = m_dir.filePath(u"timeline.png"_s);
    const StudioRun r = studio({kGloo, u"--show"_s, u"timeline"_s, u"--screenshot"_s, png, u"--size"_s, u"900x600"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size() / image.devicePixelRatio(), QSize(900, 600));
  }

  /// `fathom-studio WORKSPACE --show main --screenshot PNG`: the screenshot waits for the workspace to open.
  void positionalWorkspace() {
    const QString workspace = m_dir.filePath(u"positional.sqlite"_s);
    { fathom::store::Workspace created(workspace.toStdString()); }
    const QString png = m_dir.filePath(u"main.png"_s);
    const StudioRun r = studio({workspace, u"--screenshot"_s, png, u"--size"_s, u"900x600"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(!QImage(png).isNull());
    // Two workspaces at once is refused.
    const StudioRun two = studio({workspace, u"--workspace"_s, m_dir.filePath(u"runs.sqlite"_s)});
    QCOMPARE(two.exitCode, 2);
    QVERIFY2(two.err.contains(u"only one workspace"_s), qPrintable(two.err));
  }

  /// Missing files and files that are neither: exit code 2 and a message naming the file, before any window.
  void refusals() {
    for (const QStringList& args :
         {QStringList{m_dir.filePath(u"nope.json"_s)}, QStringList{u"--open"_s, m_dir.filePath(u"notes.txt"_s)},
          QStringList{kGloo, m_dir.filePath(u"fake.sqlite"_s)}}) {
      const StudioRun r = studio(args);
      QCOMPARE(r.exitCode, 2);
      QVERIFY2(r.err.contains(u"fathom-studio: "_s + QDir::toNativeSeparators(args.last())), qPrintable(r.err));
    }
  }
};

QTEST_MAIN(TestStudioOpenFiles)
#include "tst_studio_open_files.moc"
