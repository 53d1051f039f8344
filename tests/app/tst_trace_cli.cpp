// SPDX-License-Identifier: Apache-2.0
// `fathom trace validate|summary|merge|export` as a user runs them: exit codes (0 ok, 1 invalid or failed, 2 usage),
// text and JSON output, merging files and directories, and exporting traces a workspace holds (gzip chunks, one
// rank or all, conversions, a missing trace).
#include "cli_runner.h"
#include "trace_fixtures.h"

#include <fathom/store/workspace.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>

using namespace Qt::StringLiterals;
namespace fs = std::filesystem;
using fathom::test::completeEvent;
using fathom::test::cpuRankTrace;
using fathom::test::objectTrace;
using fathom::test::span;
using fathom::test::traceKeys;

namespace {

using Run = fathom::test::CliRun;
using fathom::test::runFathom;

using fathom::test::describe;

/// The output with each run of spaces folded into one, for checking table rows without their padding.
QByteArray folded(QByteArray text) {
  return text.simplified();
}

QJsonDocument parse(const Run& r) {
  return fathom::test::stdoutJson(r);
}

}  // namespace

class TestTraceCli : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_ws;
  std::int64_t m_run = 0;

  QString file(const QString& name) const { return m_dir.filePath(name); }
  fs::path path(const QString& name) const { return fs::path(file(name).toStdString()); }

  static Run trace(QStringList args) {
    args.prepend(u"trace"_s);
    return runFathom(args);
  }

private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    fathom::test::writeTraceFile(path(u"rank0.json"_s), cpuRankTrace(0));
    fathom::test::writeTraceFile(path(u"rank1.json.gz"_s), cpuRankTrace(1));
    fathom::test::writeTraceFile(path(u"bad.json"_s),
                                 objectTrace({completeEvent("cpu_op", "a", 1, 1, "0.000", "10.000"),
                                              completeEvent("cpu_op", "b", 1, 1, "5.000", "10.000")}));
    fathom::test::writeTraceFile(path(u"escape.json"_s),
                                 objectTrace({completeEvent("cpu_op", "caf\\u00e9", 1, 1, "0.000", "1.000")}));
    // A workspace whose run stored both ranks as gzip, in chunks (as telemetry streams them).
    m_ws = file(u"fathom.sqlite"_s);
    fathom::store::Workspace ws(m_ws.toStdString());
    const auto run = ws.createRun({"profiled", "fathom train --profile", "", ""});
    m_run = run.value;
    fathom::store::IngestBatch batch;
    for (int rank = 0; rank < 2; ++rank) {
      fathom::test::writeTraceFile(path(u"tmp.gz"_s), cpuRankTrace(rank));
      const std::string bytes = fathom::test::readRaw(path(u"tmp.gz"_s));
      for (std::size_t at = 0; at < bytes.size(); at += 100) {
        batch.traces.push_back({rank, "trace.json.gz", 1000.0 + static_cast<double>(at), bytes.substr(at, 100)});
      }
    }
    // A trace cut short: the run died while writing it.
    batch.traces.push_back({0, "partial", 2000.0, cpuRankTrace(0).substr(0, 150)});
    ws.append(run, batch);
    ws.finishRun(run, fathom::store::RunStatus::Succeeded, 0);
  }

  void validate() {
    Run r = trace({u"validate"_s, file(u"rank0.json"_s), file(u"rank1.json.gz"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY(r.out.contains("rank0.json: OK (4 events, 0 warnings)"));
    QVERIFY(r.out.contains("rank1.json.gz: OK"));
    r = trace({u"validate"_s, file(u"rank0.json"_s), file(u"bad.json"_s)});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains("bad.json: INVALID: 1 error, 0 warnings (2 events)"), qPrintable(describe(r)));
    QVERIFY(r.out.contains("error   [nesting] event #1 (byte ") &&
            r.out.contains("): X event #1 [5000, 15000] ns crosses event #0"));
    // A finding in one event shows the start of its text.
    r = trace({u"validate"_s, file(u"escape.json"_s)});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains("error   [unicode-escape] event #0 (byte ") && r.out.contains("): a \\u escape"),
             qPrintable(describe(r)));
    QVERIFY(r.out.contains("          {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"caf\\u00e9\""));
    r = trace({u"validate"_s, u"--json"_s, file(u"bad.json"_s)});
    QCOMPARE(r.exitCode, 1);
    const QJsonObject report = parse(r).array().at(0).toObject();
    QCOMPARE(report.value(u"valid"_s).toBool(), false);
    QCOMPARE(report.value(u"errors"_s).toArray().at(0).toObject().value(u"rule"_s).toString(), u"nesting"_s);
    QCOMPARE(report.value(u"errors"_s).toArray().at(0).toObject().value(u"event"_s).toInt(), 1);
    QCOMPARE(report.value(u"phases"_s).toObject().value(u"X"_s).toInt(), 2);
    r = trace({u"validate"_s, u"--rules"_s});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("nesting-truncation  warning"));
  }

  void usageErrorsExitWith2() {
    QVERIFY(QDir(m_dir.path()).mkpath(u"empty-dir"_s));
    for (const QStringList& args :
         {QStringList{u"validate"_s}, QStringList{u"validate"_s, u"--bogus"_s, file(u"rank0.json"_s)},
          QStringList{u"summary"_s, u"--top"_s, u"x"_s, file(u"rank0.json"_s)},
          QStringList{u"merge"_s, file(u"rank0.json"_s)},
          QStringList{u"merge"_s, m_dir.path() + u"/empty-dir"_s, u"-o"_s, u"x.json"_s},
          QStringList{u"export"_s, file(u"rank0.json"_s)}}) {
      const Run r = trace(args);
      QVERIFY2(r.exitCode == 2, qPrintable(args.join(u' ') + u"\n"_s + describe(r)));
      QVERIFY2(r.err.startsWith("fathom: error: "), qPrintable(describe(r)));
    }
  }

  void summary() {
    Run r = trace({u"summary"_s, file(u"rank1.json.gz"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY(r.out.contains("rank 1, 4 events, 0.100 ms, CPU timeline"));
    // Step 1: compute [10,80] = 70 us, communication [60,90] = 30 us, idle 100 - 80 = 20 us, overlap 20 of 30.
    QVERIFY2(folded(r.out).contains("1 0.100 0.070 (70.0%) 0.030 (30.0%) 0.000 (0.0%) 0.020 (20.0%) 66.7%"),
             r.out.constData());
    QVERIFY(folded(r.out).contains("all_reduce 1 0.030 1.00 MiB"));
    QVERIFY(r.out.contains("Fathom spans"));
    r = trace({u"summary"_s, file(u"rank0.json"_s), u"--json"_s, u"--top"_s, u"1"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject s = parse(r).object();
    QCOMPARE(s.value(u"timeline"_s).toString(), u"cpu"_s);
    QCOMPARE(s.value(u"total"_s).toObject().value(u"compute_ns"_s).toInteger(), 70000);
    QCOMPARE(s.value(u"total"_s).toObject().value(u"idle_ns"_s).toInteger(), 20000);
    QCOMPARE(s.value(u"steps"_s).toArray().size(), 1);
    QCOMPARE(s.value(u"top_ops"_s).toArray().size(), 1);
    // A range (what the timeline's area selection shows): events cut to [50, 70) us. The step becomes [50, 70],
    // aten::mm [50, 70] = 20 us of compute, the all-reduce [60, 70] = 10 us of communication, all of it overlapped.
    r = trace({u"summary"_s, file(u"rank0.json"_s), u"--from"_s, u"50"_s, u"--to"_s, u"70.000"_s, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject total = parse(r).object().value(u"total"_s).toObject();
    QCOMPARE(total.value(u"span_ns"_s).toInteger(), 20000);
    QCOMPARE(total.value(u"compute_ns"_s).toInteger(), 20000);
    QCOMPARE(total.value(u"communication_ns"_s).toInteger(), 10000);
    QCOMPARE(total.value(u"overlap_ns"_s).toInteger(), 10000);
    QCOMPARE(total.value(u"idle_ns"_s).toInteger(), 0);
    for (const QStringList& bad :
         {QStringList{u"--from"_s, u"x"_s}, QStringList{u"--from"_s, u"70"_s, u"--to"_s, u"50"_s}}) {
      r = trace(QStringList{u"summary"_s, file(u"rank0.json"_s)} + bad);
      QVERIFY2(r.exitCode == 2 && r.err.contains(bad.front().toUtf8()), qPrintable(describe(r)));
    }
    r = trace({u"summary"_s, file(u"bad.json"_s) + u".missing"_s});
    QCOMPARE(r.exitCode, 2);
  }

  /// PyTorch 1.13's legacy trace (tests/data/traces/make_pytorch_legacy_trace.py): Gloo's collectives carry no bytes,
  /// which the table shows as "-" and the JSON as null, not as 0.
  void summaryOfPyTorchLegacyTrace() {
    const QString legacy = QString::fromUtf8(FATHOM_TEST_DATA_DIR) + u"/traces/pytorch_legacy_ddp_rank0.json.gz"_s;
    Run r = trace({u"summary"_s, legacy});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(folded(r.out).contains("all_reduce 2 3.194 -"), r.out.constData());
    r = trace({u"summary"_s, legacy, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject s = parse(r).object();
    QVERIFY(s.value(u"total"_s).toObject().value(u"compute_ns"_s).toInteger() > 0);
    const QJsonArray collectives = s.value(u"collectives"_s).toArray();
    QCOMPARE(collectives.size(), 2);
    for (const QJsonValue c : collectives) {
      QVERIFY(c.toObject().value(u"bytes"_s).isNull());
    }
  }

  /// `merge --ranks`: PyTorch's legacy traces record no rank, so the ranks come from the command line, in input order;
  /// each rank of the merge then summarizes as its file does (the merge keeps the legacy events' categories).
  void mergeWithRanks() {
    const QString legacy = QString::fromUtf8(FATHOM_TEST_DATA_DIR) + u"/traces/pytorch_legacy_ddp_rank0.json.gz"_s;
    Run r = trace({u"merge"_s, legacy, legacy, u"-o"_s, file(u"legacy.json.gz"_s)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("distributedInfo.rank is missing") && r.err.contains("--ranks"), qPrintable(describe(r)));
    QVERIFY(!QFile::exists(file(u"legacy.json.gz"_s)));
    r = trace({u"merge"_s, u"--ranks"_s, u"0,1"_s, legacy, legacy, u"-o"_s, file(u"legacy.json.gz"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(r.err.contains("Merged 2 ranks") && r.err.contains("rank 1: "), qPrintable(describe(r)));
    const Run alone = trace({u"summary"_s, legacy});
    QVERIFY2(alone.exitCode == 0 && folded(alone.out).contains("1 4.933 4.003 (81.1%) 1.197 (24.3%)"),
             qPrintable(describe(alone)));
    r = trace({u"summary"_s, file(u"legacy.json.gz"_s), u"--rank"_s, u"1"_s});
    QVERIFY2(r.exitCode == 0 && r.out.contains("rank 1, "), qPrintable(describe(r)));
    const QByteArray steps = alone.out.mid(alone.out.indexOf("Step time"));
    QCOMPARE(r.out.mid(r.out.indexOf("Step time")), steps);  // steps, top ops and collectives alike

    for (const QString& bad : {u"0,x"_s, u"0,"_s, u"-1,0"_s, u"0;1"_s}) {
      r = trace({u"merge"_s, u"--ranks"_s, bad, legacy, legacy, u"-o"_s, file(u"refused.json"_s)});
      QCOMPARE(r.exitCode, 2);
      QVERIFY2(r.err.contains("--ranks must be whole numbers >= 0 separated by commas") && r.err.contains(bad.toUtf8()),
               qPrintable(describe(r)));
    }
    r = trace({u"merge"_s, u"--ranks"_s, u"0"_s, legacy, legacy, u"-o"_s, file(u"refused.json"_s)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("1 rank(s) given for 2 input(s)"), qPrintable(describe(r)));
    QVERIFY(!QFile::exists(file(u"refused.json"_s)));
  }

  void merge() {
    QVERIFY(QDir(m_dir.path()).mkpath(u"ranks"_s));
    QVERIFY(QFile::copy(file(u"rank0.json"_s), file(u"ranks/rank0.json"_s)));
    QVERIFY(QFile::copy(file(u"rank1.json.gz"_s), file(u"ranks/rank1.json.gz"_s)));
    Run r = trace({u"merge"_s, file(u"ranks"_s), u"-o"_s, file(u"merged.json.gz"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY(r.err.contains("Merged 2 ranks"));
    QVERIFY(r.err.contains("rank 1: "));
    QVERIFY(r.err.contains("shifted 1 us"));
    QVERIFY(fathom::trace::isGzip(fathom::test::readRaw(path(u"merged.json.gz"_s))));
    // A merged trace is summarized one rank at a time: --rank picks that rank's rows (rank 1 alone reads as its
    // own file does), and without it the summary refuses rather than mixing the ranks.
    r = trace({u"summary"_s, file(u"merged.json.gz"_s), u"--rank"_s, u"1"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(r.out.contains("rank 1, "), r.out.constData());
    QVERIFY2(folded(r.out).contains("1 0.100 0.070 (70.0%) 0.030 (30.0%) 0.000 (0.0%) 0.020 (20.0%) 66.7%"),
             r.out.constData());
    QVERIFY2(folded(r.out).contains("aten::mm 1 0.070 0.070 0.070"), r.out.constData());
    r = trace({u"summary"_s, file(u"merged.json.gz"_s)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("is a merged trace of ranks 0, 1: choose one with --rank R"), qPrintable(describe(r)));
    r = trace({u"summary"_s, file(u"merged.json.gz"_s), u"--rank"_s, u"2"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--rank 2: "), qPrintable(describe(r)));
    r = trace({u"summary"_s, file(u"rank0.json"_s), u"--rank"_s, u"1"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("holds rank 0 only"), qPrintable(describe(r)));
    r = trace({u"validate"_s, file(u"merged.json.gz"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    // The same rank twice: refused, nothing written.
    r = trace({u"merge"_s, file(u"rank0.json"_s), file(u"ranks/rank0.json"_s), u"-o"_s, file(u"dup.json"_s)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("rank 0 appears twice"), qPrintable(describe(r)));
    QVERIFY(!QFile::exists(file(u"dup.json"_s)));
  }

  void exportFromWorkspace() {
    // One rank, decompressed because the name says .json; the bytes are the original trace.
    Run r = trace({u"export"_s, u"--workspace"_s, m_ws, u"--run"_s, QString::number(m_run), u"--name"_s,
                   u"trace.json.gz"_s, u"--rank"_s, u"1"_s, u"-o"_s, file(u"out1.json"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(fathom::test::readRaw(path(u"out1.json"_s)), cpuRankTrace(1));
    // All ranks into a directory, by run name, compressed as stored.
    QVERIFY(QDir(m_dir.path()).mkpath(u"export"_s));
    r = trace({u"export"_s, u"--workspace"_s, m_ws, u"--run"_s, u"profiled"_s, u"--name"_s, u"trace.json.gz"_s,
               u"--rank"_s, u"all"_s, u"-o"_s, file(u"export"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    for (int rank = 0; rank < 2; ++rank) {
      const fs::path out = path(u"export/trace.rank%1.json.gz"_s.arg(rank));
      QVERIFY2(fs::exists(out), out.c_str());
      QVERIFY(fathom::trace::isGzip(fathom::test::readRaw(out)));
      QCOMPARE(QString::fromStdString(fathom::test::readText(out)), QString::fromStdString(cpuRankTrace(rank)));
    }
    // The default name, in the working directory; without --rank: rank 0.
    QProcess p;
    p.setWorkingDirectory(file(u"export"_s));
    p.start(fathom::test::fathomExecutable(), {u"trace"_s, u"export"_s, u"--workspace"_s, m_ws, u"--run"_s,
                                               QString::number(m_run), u"--name"_s, u"trace.json.gz"_s});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(p.readAllStandardError().contains("trace.rank0.json.gz"));
  }

  void exportIntoDirectories() {
    // --rank all of a trace only one rank stored, into an existing directory given with a trailing '/': its one file
    // goes inside (this once tried to rename the file onto the directory).
    QVERIFY(QDir(m_dir.path()).mkpath(u"one-rank"_s));
    Run r = trace({u"export"_s, u"--workspace"_s, m_ws, u"--run"_s, QString::number(m_run), u"--name"_s, u"partial"_s,
                   u"--rank"_s, u"all"_s, u"-o"_s, file(u"one-rank/"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(fathom::test::readRaw(path(u"one-rank/partial.rank0.json"_s)), cpuRankTrace(0).substr(0, 150));
    // --rank all into a directory that does not exist yet: created, one file per rank.
    const QString fresh = file(u"fresh-dir"_s) + u"/"_s;
    r = trace({u"export"_s, u"--workspace"_s, m_ws, u"--run"_s, QString::number(m_run), u"--name"_s, u"trace.json.gz"_s,
               u"--rank"_s, u"all"_s, u"-o"_s, fresh});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    for (int rank = 0; rank < 2; ++rank) {
      const fs::path out = path(u"fresh-dir/trace.rank%1.json.gz"_s.arg(rank));
      QCOMPARE(QString::fromStdString(fathom::test::readText(out)), QString::fromStdString(cpuRankTrace(rank)));
    }
    // One rank into an existing directory named without the '/'.
    r = trace({u"export"_s, u"--workspace"_s, m_ws, u"--run"_s, QString::number(m_run), u"--name"_s, u"trace.json.gz"_s,
               u"--rank"_s, u"1"_s, u"-o"_s, file(u"one-rank"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY(fs::exists(path(u"one-rank/trace.rank1.json.gz"_s)));
    // A file where the directory should be: a usage error that says so, and the file is left alone.
    fathom::test::writeTraceFile(path(u"a-file"_s), "x");
    r = trace({u"export"_s, u"--workspace"_s, m_ws, u"--run"_s, QString::number(m_run), u"--name"_s, u"trace.json.gz"_s,
               u"--rank"_s, u"all"_s, u"-o"_s, file(u"a-file"_s)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("is a file, but --rank all writes one file per rank into a directory"),
             qPrintable(describe(r)));
    QCOMPARE(fathom::test::readRaw(path(u"a-file"_s)), std::string("x"));
  }

  void exportRefusals() {
    // Several names and no --name: the listing says which exist.
    Run r = trace({u"export"_s, u"--workspace"_s, m_ws, u"--run"_s, QString::number(m_run)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("has several traces: pass --name"), qPrintable(describe(r)));
    QVERIFY(r.err.contains("trace.json.gz  rank 1"));
    QVERIFY(r.err.contains("partial  rank 0"));
    r = trace({u"export"_s, u"--workspace"_s, m_ws, u"--run"_s, QString::number(m_run), u"--name"_s, u"trace.json.gz"_s,
               u"--rank"_s, u"5"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("has no trace \"trace.json.gz\" for rank 5"), qPrintable(describe(r)));
    r = trace({u"export"_s, u"--workspace"_s, m_ws, u"--run"_s, u"no-such-run"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no run \"no-such-run\""), qPrintable(describe(r)));
    // A partial trace exports as it is, with a warning.
    r = trace({u"export"_s, u"--workspace"_s, m_ws, u"--run"_s, QString::number(m_run), u"--name"_s, u"partial"_s,
               u"-o"_s, file(u"partial.json"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY(r.err.contains("warning: the stored trace is incomplete"));
    QCOMPARE(fathom::test::readRaw(path(u"partial.json"_s)), cpuRankTrace(0).substr(0, 150));
  }

  void convertFiles() {
    Run r = trace({u"export"_s, file(u"rank0.json"_s), u"-o"_s, file(u"c.json.gz"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY(fathom::trace::isGzip(fathom::test::readRaw(path(u"c.json.gz"_s))));
    r = trace({u"export"_s, file(u"c.json.gz"_s), u"-o"_s, file(u"c.json"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(fathom::test::readRaw(path(u"c.json"_s)), cpuRankTrace(0));
    r = trace({u"export"_s, file(u"c.json"_s), u"-o"_s, file(u"c.json"_s)});
    QCOMPARE(r.exitCode, 2);
  }

  /// `export INPUT --from --to --rank`: a range of one rank of the real 2-rank trace validates, and `summary --json`
  /// over the range gives the same numbers on it as on the original (all but `file` and `events`, the file's count).
  void exportRange() {
    const QString gloo = QString::fromUtf8(FATHOM_TEST_DATA_DIR) + u"/traces/gloo_2rank_merged.json.gz"_s;
    const QStringList range{u"--from"_s, u"50000"_s, u"--to"_s, u"120000.5"_s};
    for (const QString& rank : {u"0"_s, u"1"_s}) {
      const QString out = file(u"range%1.json.gz"_s.arg(rank));
      Run r = trace(QStringList{u"export"_s, gloo, u"-o"_s, out, u"--rank"_s, rank} + range);
      QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
      QVERIFY(r.err.contains("Wrote"));
      QVERIFY(fathom::trace::isGzip(fathom::test::readRaw(out.toStdString())));
      r = trace({u"validate"_s, out});
      QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
      const Run a = trace(QStringList{u"summary"_s, gloo, u"--json"_s, u"--rank"_s, rank} + range);
      const Run b = trace(QStringList{u"summary"_s, out, u"--json"_s, u"--rank"_s, rank} + range);
      QVERIFY2(a.exitCode == 0 && b.exitCode == 0, qPrintable(describe(a) + describe(b)));
      QJsonObject original = parse(a).object();
      QJsonObject exported = parse(b).object();
      QVERIFY(exported.value(u"events"_s).toInteger() < original.value(u"events"_s).toInteger());
      for (const QString& key : {u"file"_s, u"events"_s}) {
        original.remove(key);
        exported.remove(key);
      }
      QVERIFY(!original.value(u"total"_s).toObject().isEmpty());
      QCOMPARE(exported, original);
    }
    // Usage errors (exit 2): an empty range, --rank all with a file, a rank not in the trace.
    Run r = trace({u"export"_s, gloo, u"-o"_s, file(u"x.json"_s), u"--from"_s, u"10"_s, u"--to"_s, u"10"_s});
    QCOMPARE(r.exitCode, 2);
    // A range of a trace stored in the workspace: rank 0's [50, 70) us holds the step and aten::mm, not the forward.
    r = trace({u"export"_s, u"--workspace"_s, m_ws, u"--run"_s, QString::number(m_run), u"--name"_s, u"trace.json.gz"_s,
               u"--rank"_s, u"0"_s, u"--from"_s, u"50"_s, u"--to"_s, u"70"_s, u"-o"_s, file(u"run_range.json"_s)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const std::string part = fathom::test::readRaw(path(u"run_range.json"_s));
    QVERIFY(part.find("aten::mm") != std::string::npos && part.find("ProfilerStep#1") != std::string::npos);
    QVERIFY(part.find("fathom::forward") == std::string::npos);
    QCOMPARE(trace({u"validate"_s, file(u"run_range.json"_s)}).exitCode, 0);
    r = trace({u"export"_s, gloo, u"-o"_s, file(u"x.json"_s), u"--rank"_s, u"all"_s});
    QCOMPARE(r.exitCode, 2);
    r = trace({u"export"_s, gloo, u"-o"_s, file(u"x.json"_s), u"--rank"_s, u"5"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("merged trace"));
    QVERIFY(!QFile::exists(file(u"x.json"_s)));
  }
};

QTEST_GUILESS_MAIN(TestTraceCli)
#include "tst_trace_cli.moc"
