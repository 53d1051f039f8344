// SPDX-License-Identifier: Apache-2.0
// `fathom trace` on bad input and failing writes (issue 20, docs/errors.md "Traces"): traces with broken events are
// refused by every command with a message naming the file, event, byte, field and what was expected; export, merge
// and range export keep a previous output intact on a truncated input, a full disk (RLIMIT_FSIZE) and a read-only
// folder; unfinished ".partial" traces are never read as traces.
#include "cli_runner.h"
#include "trace_fixtures.h"

#include <fathom/trace/trace_summary.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <functional>

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
namespace fs = std::filesystem;
using fathom::test::completeEvent;
using fathom::test::cpuRankTrace;
using fathom::test::objectTrace;
using fathom::test::span;
using fathom::test::traceKeys;

namespace {

using Run = fathom::test::CliRun;
using fathom::test::describe;

/// One rank's trace of `ops` back-to-back ops inside one step: large enough to outgrow a small RLIMIT_FSIZE.
std::string largeTrace(int ops) {
  std::vector<std::string> events = {span("ProfilerStep#1", 1, 0, 10 * ops + 10)};
  for (int i = 0; i < ops; ++i) {
    events.push_back(completeEvent("cpu_op", "aten::mm", 1, 1, std::to_string(10 * i + 1) + ".000", "5.000"));
  }
  return objectTrace(events, traceKeys(0, 1));
}

/// `fathom` run with `setup` applied in the child before exec (a resource limit, a dropped capability).
Run runChild(const QStringList& args, const std::function<void()>& setup) {
  QProcess p;
  p.setChildProcessModifier(setup);
  p.start(fathom::test::fathomExecutable(), args);
  if (!p.waitForFinished(60'000)) {
    p.kill();
    p.waitForFinished();
    return {-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n[timed out]"};
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
          p.readAllStandardError()};
}

/// A disk that is full after 64 KiB: writes past it fail (EFBIG; SIGXFSZ unless the program handles it).
void smallFileSizeLimit() {
  const rlimit limit{64 << 10, 64 << 10};
  ::setrlimit(RLIMIT_FSIZE, &limit);
}

/// Root ignores directory permissions through CAP_DAC_OVERRIDE; dropped from the bounding set, the exec'd program
/// has it no more and a 0555 folder is read-only for it too (where it cannot be dropped, the test skips).
void dropDacOverride() {
  if (::getuid() == 0) {
    ::prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0);
    ::prctl(PR_CAPBSET_DROP, CAP_DAC_READ_SEARCH, 0, 0, 0);
  }
}

/// Whether a message says the file size limit was reached: strerror(EFBIG), or core/common's own words for it.
bool saysFileSizeLimit(const QByteArray& message) {
  return message.contains("File too large") || message.contains("file size limit");
}

}  // namespace

class TestTraceCliFaults : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  QString file(const QString& name) const { return m_dir.filePath(name); }

  static Run trace(QStringList args) {
    args.prepend(u"trace"_s);
    return fathom::test::runFathom(args);
  }

private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    fathom::test::writeTraceFile(file(u"rank0.json"_s).toStdString(), cpuRankTrace(0));
    fathom::test::writeTraceFile(file(u"rank1.json.gz"_s).toStdString(), cpuRankTrace(1));
  }

  /// Issue 20: a trace whose ts are strings, whose events lack ph, or whose X events have a negative dur gave a
  /// summary of zeros with exit 0, and merge copied such events. Every command now refuses them, naming the file, the
  /// event, the byte, the field and what was expected, and writes nothing.
  void brokenEventsAreRefused_data() {
    QTest::addColumn<QString>("event");
    QTest::addColumn<QString>("message");
    QTest::newRow("ts a string")
        << QString::fromStdString(completeEvent("cpu_op", "aten::mm", 1, 1, "\"10.000\"", "50.000"))
        << u"event #1: \"ts\" is \"10.000\": expected a JSON number of microseconds at byte "_s;
    QTest::newRow("no ph")
        << u"{\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10.0,\"dur\":5.0}"_s
        << u"event #1: has no \"ph\": expected a phase string such as \"X\" at byte "_s;
    QTest::newRow("negative dur")
        << QString::fromStdString(completeEvent("cpu_op", "aten::mm", 1, 1, "10.000", "-50.000"))
        << u"event #1: \"dur\" is -50.000: expected a JSON number of microseconds >= 0 at byte "_s;
  }

  void brokenEventsAreRefused() {
    QFETCH(QString, event);
    QFETCH(QString, message);
    const QString broken = file(u"broken.json"_s);
    fathom::test::writeTraceFile(broken.toStdString(),
                                 objectTrace({span("ProfilerStep#1", 1, 0, 100), event.toStdString()}, traceKeys(0)));
    QFile::remove(file(u"never.json"_s));
    const QList<QStringList> commands = {
        {u"summary"_s, broken},
        {u"merge"_s, broken, file(u"rank1.json.gz"_s), u"-o"_s, file(u"never.json"_s)},
        {u"export"_s, broken, u"-o"_s, file(u"never.json"_s)},
    };
    for (const QStringList& command : commands) {
      const Run r = trace(command);
      QVERIFY2(r.exitCode == 1 && r.out.isEmpty() && r.err.contains((broken + u": "_s + message).toUtf8()),
               qPrintable(command.join(u' ') + u"\n"_s + describe(r)));
      QVERIFY2(!QFile::exists(file(u"never.json"_s)) && !QFile::exists(file(u"never.json.partial"_s)),
               qPrintable(command.join(u' ')));
    }
    if (QTest::currentDataTag() == QByteArray("ts a string")) {  // the validator's finding says the same
      const Run r = trace({u"validate"_s, broken});
      QVERIFY2(r.exitCode == 1 && r.out.contains("[ts] event #1 (byte ") &&
                   r.out.contains("\"ts\" is \"10.000\": expected a JSON number of microseconds"),
               qPrintable(describe(r)));
    }
  }

  /// Issue 20: exporting a truncated trace wrote a valid gzip of the truncated text over the previous file and said
  /// "Wrote". Export, merge and convert now read their whole input first and write through the atomic file: on a
  /// truncated input, a full disk (RLIMIT_FSIZE) or a read-only folder they exit non-zero with a message naming the
  /// file, and the previous output stays byte for byte, loadable, with no ".partial" beside it.
  void failedWritesKeepThePreviousOutput() {
    QVERIFY(QDir(m_dir.path()).mkpath(u"keep"_s));
    const QString previous = file(u"keep/out.json"_s);
    const QString previousGz = file(u"keep/out.json.gz"_s);
    fathom::test::writeTraceFile(previous.toStdString(), cpuRankTrace(0));
    fathom::test::writeTraceFile(previousGz.toStdString(), cpuRankTrace(0));
    const std::string before = fathom::test::readRaw(previous.toStdString());
    const std::string beforeGz = fathom::test::readRaw(previousGz.toStdString());
    const QString big = file(u"big.json"_s);
    fathom::test::writeTraceFile(big.toStdString(), largeTrace(4000));  // ~400 kB
    const QString truncated = file(u"truncated.json"_s);
    {
      QFile f(truncated);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(cpuRankTrace(0).substr(0, 300)));
    }
    const auto unchanged = [&](const char* what) {
      QVERIFY2(fathom::test::readRaw(previous.toStdString()) == before, what);
      QVERIFY2(fathom::test::readRaw(previousGz.toStdString()) == beforeGz, what);
      QVERIFY2(!QFile::exists(previous + u".partial"_s) && !QFile::exists(previousGz + u".partial"_s), what);
      QVERIFY2(fathom::trace::summarizeTrace(previousGz.toStdString()).events == 4, what);  // still loads
    };

    Run r = trace({u"export"_s, truncated, u"-o"_s, previousGz});
    QVERIFY2(r.exitCode == 1 && r.err.contains("truncated trace") && !r.err.contains("Wrote"), qPrintable(describe(r)));
    unchanged("export of a truncated trace");
    r = trace({u"merge"_s, truncated, file(u"rank1.json.gz"_s), u"-o"_s, previous});
    QVERIFY2(r.exitCode == 1 && r.err.contains("truncated trace"), qPrintable(describe(r)));
    unchanged("merge of a truncated trace");

    for (const QStringList& command :
         {QStringList{u"export"_s, big, u"-o"_s, previous}, QStringList{u"merge"_s, big, u"-o"_s, previous},
          QStringList{u"export"_s, big, u"-o"_s, previous, u"--from"_s, u"0"_s}}) {
      r = runChild(QStringList{u"trace"_s} + command, smallFileSizeLimit);
      QVERIFY2(r.exitCode == 1 && r.err.contains(previous.toUtf8()) && saysFileSizeLimit(r.err),
               qPrintable(command.join(u' ') + u"\n"_s + describe(r)));
      unchanged("a full disk");
    }

    // A read-only folder (for root too, without CAP_DAC_OVERRIDE).
    QVERIFY(QFile::setPermissions(file(u"keep"_s), QFileDevice::ReadOwner | QFileDevice::ExeOwner |
                                                       QFileDevice::ReadGroup | QFileDevice::ExeGroup));
    r = runChild({u"trace"_s, u"export"_s, big, u"-o"_s, previous}, [] { dropDacOverride(); });
    QFile::setPermissions(file(u"keep"_s), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    if (r.err.contains("Wrote")) {
      QSKIP("the folder is writable for this user even at 0555 (CAP_DAC_OVERRIDE could not be dropped)");
    }
    QVERIFY2(r.exitCode == 1 && r.err.contains(previous.toUtf8()) && r.err.contains("Permission denied"),
             qPrintable(describe(r)));
    unchanged("a read-only folder");
  }

  /// A ".partial" trace (a writer still writing, or killed) is never read as a trace: named, it is refused; in a
  /// directory to merge, it is skipped with a warning.
  void partialTracesAreNotRead() {
    QVERIFY(QDir(m_dir.path()).mkpath(u"withpartial"_s));
    QVERIFY(QFile::copy(file(u"rank0.json"_s), file(u"withpartial/profile_0.json"_s)));
    QVERIFY(QFile::copy(file(u"rank0.json"_s), file(u"withpartial/profile_1.json.partial"_s)));
    for (const QString& command : {u"summary"_s, u"validate"_s}) {
      const Run r = trace({command, file(u"withpartial/profile_1.json.partial"_s)});
      QVERIFY2(r.exitCode == 1 && r.err.contains("profile_1.json.partial: an unfinished trace"),
               qPrintable(describe(r)));
    }
    const Run r = trace({u"merge"_s, file(u"withpartial"_s), u"-o"_s, file(u"withpartial.json"_s)});
    QVERIFY2(r.exitCode == 0 && r.err.contains("warning: skipping ") && r.err.contains("profile_1.json.partial") &&
                 r.err.contains("Merged 1 ranks"),
             qPrintable(describe(r)));
  }
};

QTEST_GUILESS_MAIN(TestTraceCliFaults)
#include "tst_trace_cli_faults.moc"
