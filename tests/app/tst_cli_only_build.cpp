// SPDX-License-Identifier: Apache-2.0
// A CLI-only build must configure and build with Qt hidden from CMake entirely (that is how the core is
// built on GPU hosts and clusters), and its `fathom` must not depend on Qt.
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {
struct Run {
  int exitCode = -1;
  QString output;
};

Run run(const QString& program, const QStringList& args, int timeoutMs) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(program, args);
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    return {-1, QString::fromUtf8(p.readAll()) + u"\n[timed out]"_s};
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAll())};
}

/// A variable of this build's CMakeCache.txt ("KEY:TYPE=value"), or `fallback`.
QString cacheValue(const char* key, const QString& fallback) {
  QFile cache(QStringLiteral(FATHOM_BINARY_DIR "/CMakeCache.txt"));
  if (!cache.open(QIODevice::ReadOnly))
    return fallback;
  const QByteArray prefix = QByteArray(key) + ':';
  for (const QByteArray& line : cache.readAll().split('\n')) {
    if (line.startsWith(prefix) && line.contains('='))
      return QString::fromUtf8(line.mid(line.indexOf('=') + 1)).trimmed();
  }
  return fallback;
}
}  // namespace

class TestCliOnlyBuild : public QObject {
  Q_OBJECT

private slots:
  void buildsWithoutQt() {
    // Beside this build directory (same depth), with its build type and warning flags: ccache (whose base directory
    // is the source tree, cmake/FathomCompiler.cmake) then serves every core object this build already compiled.
    const QString buildDir = QDir::cleanPath(QStringLiteral(FATHOM_BINARY_DIR "/../") +
                                             QDir(QStringLiteral(FATHOM_BINARY_DIR)).dirName() + u"-cli-only"_s);
    const Run configure =
        run(u"cmake"_s,
            {u"-S"_s, QStringLiteral(FATHOM_SOURCE_DIR), u"-B"_s, buildDir, u"-G"_s, u"Ninja"_s,
             u"-DCMAKE_BUILD_TYPE="_s + cacheValue("CMAKE_BUILD_TYPE", u"Release"_s),
             u"-DFATHOM_WARNINGS_AS_ERRORS="_s + cacheValue("FATHOM_WARNINGS_AS_ERRORS", u"OFF"_s),
             u"-DFATHOM_BUILD_STUDIO=OFF"_s, u"-DFATHOM_BUILD_TESTS=OFF"_s, u"-DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON"_s},
            120'000);
    QVERIFY2(configure.exitCode == 0, qPrintable(configure.output));
    QVERIFY2(configure.output.contains(u"studio=OFF"_s), qPrintable(configure.output));

    QFile cache(buildDir + u"/CMakeCache.txt"_s);
    QVERIFY(cache.open(QIODevice::ReadOnly));
    const QByteArray cacheText = cache.readAll();
    QVERIFY2(!cacheText.contains("Qt6_DIR:PATH=/"), "CMake found Qt 6 although it was hidden");

    const Run build = run(u"cmake"_s, {u"--build"_s, buildDir, u"--target"_s, u"fathom"_s}, 1'500'000);
    QVERIFY2(build.exitCode == 0, qPrintable(build.output.right(4000)));

    const QString fathom = buildDir + u"/bin/fathom"_s;
    const Run version = run(fathom, {u"--version"_s}, 30'000);
    QCOMPARE(version.exitCode, 0);
    QVERIFY2(version.output.contains(u"CLI-only build"_s), qPrintable(version.output));

    const Run env = run(fathom, {u"env"_s, u"--json"_s, u"--skip_gloo_check"_s}, 60'000);
    QCOMPARE(env.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(env.output.toUtf8()).object();
    QVERIFY2(o.contains(u"qt_version"_s) && o.value(u"qt_version"_s).isNull(), qPrintable(env.output));

    // The distributed self-check works without Qt too (issue: "the same self-check passes in a CLI-only build").
    const Run selfCheck = run(fathom, {u"test"_s, u"--num_processes"_s, u"2"_s}, 120'000);
    QVERIFY2(selfCheck.exitCode == 0, qPrintable(selfCheck.output));
    QVERIFY2(selfCheck.output.contains(u"Test is a success!"_s), qPrintable(selfCheck.output));

    // Direct dependencies only: Debian's libtorch itself pulls Qt 5 in through OpenCV's highgui.
    const Run needed = run(u"readelf"_s, {u"-d"_s, fathom}, 30'000);
    QCOMPARE(needed.exitCode, 0);
    QVERIFY2(!needed.output.contains(u"libQt"_s), qPrintable(needed.output));
  }
};

QTEST_GUILESS_MAIN(TestCliOnlyBuild)
#include "tst_cli_only_build.moc"
