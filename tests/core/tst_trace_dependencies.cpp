// SPDX-License-Identifier: Apache-2.0
// core/trace depends on core/common, zlib and nlohmann_json only, never on the profiler or LibTorch (docs/traces.md);
// `fathom trace` (app/cli/trace_command, trace_export, trace_report) only on core/trace. The link is the first guard
// (fathom_trace links nothing of Fathom but fathom_common, core/CMakeLists.txt; the trace tests and
// tst_trace_command link it alone); this scan of every #include is the second, so a header-only use of another area
// is caught too.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

const QRegularExpression& includePattern() {
  static const QRegularExpression pattern(QStringLiteral("^\\s*#\\s*include\\s*([<\"])([^>\"]+)[>\"]"),
                                          QRegularExpression::MultilineOption);
  return pattern;
}

/// What `file` includes that it may not: Fathom headers outside `allowedAreas`, private headers of other areas,
/// and the libraries the trace code must not see. A quoted bare name must be a file next to `file`.
QStringList forbiddenIncludes(const QString& file, const QStringList& allowedAreas) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly))
    return {file + u": unreadable"_s};
  const QString text = QString::fromUtf8(f.readAll());
  QStringList bad;
  auto it = includePattern().globalMatch(text);
  while (it.hasNext()) {
    const auto m = it.next();
    const QString header = m.captured(2);
    bool ok = true;
    if (header.startsWith(u"fathom/"_s)) {  // a public header: fathom/<area>/...
      ok = allowedAreas.contains(header.section(u'/', 1, 1));
    } else if (header.contains(u'/')) {  // a private header by area (core/src/<area>/...) or a library's
      const QString first = header.section(u'/', 0, 0);
      static const QStringList libraries{u"nlohmann"_s, u"CLI"_s, u"sys"_s};
      ok = allowedAreas.contains(first) || libraries.contains(first);
    } else if (m.captured(1) == u"\""_s) {  // a neighbour in the same directory
      ok = QFileInfo::exists(QFileInfo(file).dir().filePath(header));
    }
    static const QRegularExpression heavy(QStringLiteral("^(torch|ATen|c10|sqlite3|yaml-cpp|Q)"));
    if (!ok || heavy.match(header).hasMatch())
      bad << file + u": #include "_s + m.captured(1) + header;
  }
  return bad;
}

QStringList filesIn(const QString& dir, const QStringList& patterns) {
  QStringList files;
  for (const QFileInfo& info : QDir(dir).entryInfoList(patterns, QDir::Files))
    files << info.filePath();
  return files;
}

}  // namespace

class TestTraceDependencies : public QObject {
  Q_OBJECT

private slots:
  void traceIncludesOnlyCommon() {
    const QString root = QStringLiteral(FATHOM_SOURCE_DIR);
    const QStringList files = filesIn(root + u"/core/src/trace"_s, {u"*.h"_s, u"*.cpp"_s}) +
                              filesIn(root + u"/core/include/fathom/trace"_s, {u"*.h"_s});
    QVERIFY2(files.size() >= 20, "the scan found almost no trace sources: wrong source dir?");
    QStringList bad;
    for (const QString& file : files)
      bad << forbiddenIncludes(file, {u"trace"_s, u"common"_s});
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join(u'\n')));
  }

  void traceCommandIncludesOnlyTrace() {
    const QString cli = QStringLiteral(FATHOM_SOURCE_DIR "/app/cli/");
    QStringList bad;
    for (const QString& name :
         {u"trace_command.h"_s, u"trace_command.cpp"_s, u"trace_export.h"_s, u"trace_export.cpp"_s, u"trace_report.h"_s,
          u"trace_report.cpp"_s, u"text_table.h"_s, u"text_table.cpp"_s})
      bad << forbiddenIncludes(cli + name, {u"trace"_s, u"common"_s});
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join(u'\n')));
  }

  void scannerCatchesOtherAreas() {
    // The rule must flag what a slip would look like.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile f(dir.filePath(u"probe.cpp"_s));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#include \"fathom/profile/clock.h\"\n#include <fathom/store/workspace.h>\n#include \"profile/capture_"
            "session.h\"\n#include <ATen/ATen.h>\n#include \"missing_neighbour.h\"\n#include <fathom/trace/trace_"
            "event.h>\n#include <nlohmann/json.hpp>\n#include <vector>\n");
    f.close();
    const QStringList bad = forbiddenIncludes(f.fileName(), {u"trace"_s, u"common"_s});
    QCOMPARE(bad.size(), 5);
  }
};

QTEST_GUILESS_MAIN(TestTraceDependencies)
#include "tst_trace_dependencies.moc"
