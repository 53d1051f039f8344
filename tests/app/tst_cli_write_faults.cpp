// SPDX-License-Identifier: Apache-2.0
// The `fathom` commands that write files, under faults (docs/errors.md, "Writes"): `fathom train` checks every output
// location before it trains; under `ulimit -f` it reports the limit instead of dying of SIGXFSZ; `fathom config` and
// `fathom plan --output` keep the previous file whole; `fathom runs` reads a workspace in a read-only folder. The
// processes obey file permissions even when the tests run as root (fault_injection.h).
#include "cli_runner.h"
#include "fault_injection.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <string>

using namespace Qt::StringLiterals;
using fathom::test::CliRun;
namespace fs = std::filesystem;

namespace {

/// `fathom ARGS` with the file size limit `fileSizeLimit` (0: none), obeying file permissions.
CliRun runFaulty(const QStringList& args, std::uint64_t fileSizeLimit = 0, int timeoutMs = 120'000) {
  QProcess p;
  p.setProcessEnvironment(fathom::test::launcherFreeEnvironment());
  fathom::test::applyFaults(p, fileSizeLimit);
  p.start(fathom::test::fathomExecutable(), args);
  p.closeWriteChannel();
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    return {-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n[timed out]"};
  }
  // A signal (SIGXFSZ) is reported as exit code -1, with the signal in the text.
  if (p.exitStatus() != QProcess::NormalExit) {
    return {-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n[killed by a signal]"};
  }
  return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

QByteArray readAll(const fs::path& path) {
  QFile f(QString::fromStdString(path.string()));
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

QString q(const fs::path& path) {
  return QString::fromStdString(path.string());
}

}  // namespace

class TestCliWriteFaults : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path root() const { return m_dir.path().toStdString(); }

  /// A small, fast training run writing its workspace into `root()/ws.sqlite` unless `more` names one.
  QStringList train(const QStringList& more) const {
    QStringList args{u"train"_s, u"--model"_s, u"mlp"_s, u"--cpu"_s, u"--log_every"_s, u"0"_s};
    if (!more.contains(u"--workspace"_s)) {
      args << u"--workspace"_s << q(root() / "ws.sqlite");
    }
    return args + more;
  }

  /// `fathom train` of the mlp for `steps` steps into the workspace `ws` (its folder created first).
  static CliRun trainInto(const fs::path& ws, int steps) {
    fs::create_directories(ws.parent_path());
    return runFaulty({u"train"_s, u"--model"_s, u"mlp"_s, u"--cpu"_s, u"--steps"_s, QString::number(steps),
                      u"--workspace"_s, q(ws)});
  }

private slots:
  void initTestCase() { fathom::test::useWorkspaceIn(m_dir); }

  void trainChecksOutputsBeforeTraining_data() {
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QString>("expected");
    const QString ro = q(root() / "ro");
    QTest::newRow("--save_final") << QStringList{u"--save_final"_s, ro + u"/w.safetensors"_s}
                                  << u"cannot write --save_final file %1/w.safetensors: the folder %1 is not writable "
                                     "(Permission denied)"_s.arg(ro);
    QTest::newRow("--stats_json") << QStringList{u"--stats_json"_s, ro + u"/s.json"_s}
                                  << u"cannot write --stats_json file %1/s.json: the folder %1 is not writable"_s.arg(
                                         ro);
    QTest::newRow("--profile_dir") << QStringList{u"--profile"_s, u"--profile_dir"_s, ro + u"/traces"_s}
                                   << u"cannot write trace folder (--profile_dir) %1/traces: it cannot be created: "
                                      "the folder %1 is not writable"_s.arg(ro);
    QTest::newRow("--workspace") << QStringList{u"--workspace"_s, ro + u"/ws.sqlite"_s}
                                 << u"cannot write workspace %1/ws.sqlite: the folder %1 is not writable"_s.arg(ro);
    QTest::newRow("--project_dir") << QStringList{u"--log_with"_s, u"csv"_s, u"--project_dir"_s, ro + u"/proj"_s}
                                   << u"cannot write trackers' project folder (--project_dir) %1/proj"_s.arg(ro);
    QTest::newRow("missing folder") << QStringList{u"--save_final"_s, q(root() / "missing" / "w.safetensors")}
                                    << u"the folder %1 does not exist"_s.arg(q(root() / "missing"));
  }

  /// Before the fix `--save_final` into a read-only folder failed only after training, losing the weights. Now every
  /// output location is probed first: the run stops before its first step, naming the path and why.
  void trainChecksOutputsBeforeTraining() {
    QFETCH(QStringList, flags);
    QFETCH(QString, expected);
    fs::create_directories(root() / "ro");
    const fathom::test::ReadOnlyFolder readOnly(root() / "ro");
    const CliRun r = runFaulty(train(QStringList{u"--steps"_s, u"100000"_s} + flags));
    QVERIFY2(r.exitCode == 1, qPrintable(fathom::test::describe(r)));
    QVERIFY2(QString::fromUtf8(r.err).contains(expected), qPrintable(fathom::test::describe(r)));
    QVERIFY2(r.err.contains("checked before starting"), r.err.constData());
    QVERIFY2(!r.out.contains("fathom train:") && !r.out.contains("done:"), r.out.constData());  // no step was run
    QVERIFY(fathom::test::namesIn(root() / "ro").empty());  // the probe file is gone
  }

  /// Under `ulimit -f` (smaller than the weights): before the fix SIGXFSZ killed `fathom train` silently and left
  /// w.safetensors.tmp-<pid>. Now: exit 1, "file size limit (ulimit -f) reached while writing PATH", the previous
  /// file byte for byte, no temporary.
  void trainUnderFileSizeLimit() {
    const fs::path dir = root() / "limit";
    fs::create_directories(dir);
    const fs::path weights = dir / "w.safetensors";
    const QStringList args =
        train({u"--steps"_s, u"2"_s, u"--hidden"_s, u"1024"_s, u"--layers"_s, u"1"_s, u"--save_final"_s, q(weights)});
    const CliRun first = runFaulty(args);
    QVERIFY2(first.exitCode == 0, qPrintable(fathom::test::describe(first)));
    const QByteArray previous = readAll(weights);
    QVERIFY(previous.size() > 4'000'000);
    const CliRun r = runFaulty(args + QStringList{u"--seed"_s, u"9"_s}, 1 << 20);
    QVERIFY2(r.exitCode == 1, qPrintable(fathom::test::describe(r)));
    QVERIFY2(r.err.contains(
                 QByteArray::fromStdString("file size limit (ulimit -f) reached while writing " + weights.string())),
             r.err.constData());
    QCOMPARE(readAll(weights), previous);
    QCOMPARE(fathom::test::namesIn(dir), std::vector<std::string>{"w.safetensors"});
  }

  /// The launcher under the same limit: it reports the worker's failure and its own exit, nothing dies of SIGXFSZ,
  /// and no temporary is left.
  void launchUnderFileSizeLimit() {
    const fs::path dir = root() / "launch";
    fs::create_directories(dir);
    const fs::path weights = dir / "w.safetensors";
    const CliRun r = runFaulty(QStringList{u"launch"_s, u"--num_processes"_s, u"1"_s, u"--workspace"_s,
                                           q(root() / "launch.sqlite"), fathom::test::fathomExecutable()} +
                                   train({u"--steps"_s, u"2"_s, u"--hidden"_s, u"1024"_s, u"--layers"_s, u"1"_s,
                                          u"--save_final"_s, q(weights)}),
                               1 << 20, 180'000);
    QVERIFY2(r.exitCode == 1, qPrintable(fathom::test::describe(r)));
    QVERIFY2(r.err.contains(
                 QByteArray::fromStdString("file size limit (ulimit -f) reached while writing " + weights.string())),
             r.err.constData());
    QVERIFY(fathom::test::namesIn(dir).empty());
  }

  void configWrites() {
    const fs::path dir = root() / "cfg";
    fs::create_directories(dir);
    const fs::path file = dir / "c.yaml";
    CliRun r = runFaulty({u"config"_s, u"default"_s, u"--config_file"_s, q(file)});
    QVERIFY2(r.exitCode == 0, qPrintable(fathom::test::describe(r)));
    const QByteArray previous = readAll(file);
    // The file size limit: `config update` rewrites it whole (more keys than `default` wrote) or not at all.
    r = runFaulty({u"config"_s, u"update"_s, u"--config_file"_s, q(file)}, 16);
    QVERIFY2(r.exitCode == 1, qPrintable(fathom::test::describe(r)));
    QVERIFY2(r.err.contains(QByteArray::fromStdString("cannot write config file " + file.string() +
                                                      ": file size limit (ulimit -f) reached")),
             r.err.constData());
    QCOMPARE(readAll(file), previous);
    QCOMPARE(fathom::test::namesIn(dir), std::vector<std::string>{"c.yaml"});
    // A read-only folder.
    {
      const fathom::test::ReadOnlyFolder readOnly(dir);
      r = runFaulty({u"config"_s, u"update"_s, u"--config_file"_s, q(file)});
    }
    QVERIFY2(r.exitCode == 1, qPrintable(fathom::test::describe(r)));
    QVERIFY2(r.err.contains(QByteArray::fromStdString("the folder " + dir.string() + " is not writable")),
             r.err.constData());
    QCOMPARE(readAll(file), previous);
    QCOMPARE(fathom::test::namesIn(dir), std::vector<std::string>{"c.yaml"});
  }

  /// `fathom plan --json -o FILE` writes what standard output would show, whole; a limit or a read-only folder fails
  /// naming the file and keeps the previous one.
  void planOutput() {
    const fs::path dir = root() / "plan";
    fs::create_directories(dir);
    const fs::path file = dir / "p.json";
    const QStringList plan{u"plan"_s, u"--params"_s,   u"7500000000"_s, u"--num_gpus"_s,
                           u"8"_s,    u"--strategy"_s, u"zero3"_s,      u"--json"_s};
    QStringList other = plan;  // another plan (16 GPUs), to replace the file with
    other[4] = u"16"_s;
    const CliRun printed = runFaulty(plan);
    QVERIFY2(printed.exitCode == 0, qPrintable(fathom::test::describe(printed)));
    CliRun r = runFaulty(plan + QStringList{u"-o"_s, q(file)});
    QVERIFY2(r.exitCode == 0, qPrintable(fathom::test::describe(r)));
    QVERIFY(r.out.isEmpty());
    QCOMPARE(readAll(file), printed.out);
    r = runFaulty(other + QStringList{u"--output"_s, q(file)}, 64);
    QVERIFY2(r.exitCode == 1, qPrintable(fathom::test::describe(r)));
    QVERIFY2(r.err.contains(QByteArray::fromStdString("cannot write plan file " + file.string() +
                                                      ": file size limit (ulimit -f) reached")),
             r.err.constData());
    QCOMPARE(readAll(file), printed.out);
    QCOMPARE(fathom::test::namesIn(dir), std::vector<std::string>{"p.json"});
    {
      const fathom::test::ReadOnlyFolder readOnly(dir);
      r = runFaulty(other + QStringList{u"-o"_s, q(file)});
    }
    QVERIFY2(r.exitCode == 1, qPrintable(fathom::test::describe(r)));
    QVERIFY2(r.err.contains(QByteArray::fromStdString("the folder " + dir.string() + " is not writable")),
             r.err.constData());
    QCOMPARE(readAll(file), printed.out);
  }

  /// `fathom runs export --output FILE` writes through AtomicFile: under the file size limit or into a read-only folder
  /// it fails naming the file, keeps the previous export and leaves no temporary (before: "writing FILE.partial
  /// failed", the .partial left behind).
  void runsExport() {
    const fs::path wsDir = root() / "export_ws";
    const fs::path ws = wsDir / "ws.sqlite";
    CliRun r = trainInto(ws, 40);
    QVERIFY2(r.exitCode == 0, qPrintable(fathom::test::describe(r)));
    // The workspace is read from a read-only folder (opened read-only, so SQLite writes nothing of its own under the
    // file size limit below): what the limit hits is the export.
    const fathom::test::ReadOnlyFolder readOnlyWorkspace(wsDir);
    const fs::path dir = root() / "export";
    fs::create_directories(dir);
    const fs::path file = dir / "metrics.csv";
    const QStringList csv{u"runs"_s, u"export"_s, u"1"_s, u"--workspace"_s, q(ws), u"--format"_s, u"csv"_s};
    const CliRun printed = runFaulty(csv);
    QVERIFY2(printed.exitCode == 0, qPrintable(fathom::test::describe(printed)));
    QVERIFY2(printed.out.count('\n') > 40, printed.out.constData());
    r = runFaulty(csv + QStringList{u"--output"_s, q(file)});
    QVERIFY2(r.exitCode == 0, qPrintable(fathom::test::describe(r)));
    QCOMPARE(readAll(file), printed.out);
    const QStringList jsonl{u"runs"_s,     u"export"_s, u"1"_s,        u"--workspace"_s, q(ws),
                            u"--format"_s, u"jsonl"_s,  u"--output"_s, q(file)};
    r = runFaulty(jsonl, static_cast<std::uint64_t>(printed.out.size()) / 2);
    QVERIFY2(r.exitCode == 1, qPrintable(fathom::test::describe(r)));
    QVERIFY2(r.err.contains(QByteArray::fromStdString("cannot write metrics export " + file.string() +
                                                      ": file size limit (ulimit -f) reached")),
             r.err.constData());
    QCOMPARE(readAll(file), printed.out);
    QCOMPARE(fathom::test::namesIn(dir), std::vector<std::string>{"metrics.csv"});
    {
      const fathom::test::ReadOnlyFolder readOnly(dir);
      r = runFaulty(jsonl);
    }
    QVERIFY2(r.exitCode == 1, qPrintable(fathom::test::describe(r)));
    QVERIFY2(r.err.contains(QByteArray::fromStdString("the folder " + dir.string() + " is not writable")),
             r.err.constData());
    QCOMPARE(readAll(file), printed.out);
    QCOMPARE(fathom::test::namesIn(dir), std::vector<std::string>{"metrics.csv"});
  }

  /// A workspace in a read-only folder: `fathom runs list --json` reads it (before the fix: "unable to open database
  /// file"); `fathom train` into it fails before training, naming the folder.
  void runsReadOnlyWorkspace() {
    const fs::path dir = root() / "rows";
    const fs::path ws = dir / "fathom.sqlite";
    CliRun r = trainInto(ws, 2);
    QVERIFY2(r.exitCode == 0, qPrintable(fathom::test::describe(r)));
    const fathom::test::ReadOnlyFolder readOnly(dir);
    r = runFaulty({u"runs"_s, u"list"_s, u"--json"_s, u"--workspace"_s, q(ws)});
    QVERIFY2(r.exitCode == 0, qPrintable(fathom::test::describe(r)));
    const QJsonDocument doc = fathom::test::stdoutJson(r);
    QVERIFY2(!doc.isNull(), r.out.constData());
    QVERIFY2(r.out.contains("fathom-train"), r.out.constData());
    QCOMPARE(fathom::test::namesIn(dir), std::vector<std::string>{"fathom.sqlite"});
  }
};

QTEST_GUILESS_MAIN(TestCliWriteFaults)
#include "tst_cli_write_faults.moc"
