// SPDX-License-Identifier: Apache-2.0
// core/store under faults, with real processes (docs/errors.md, "Writes"): a writer SIGKILLed at ~20 random moments,
// a file size limit (the disk is "full"), a read-only folder, two writers at once, and a file truncated by another
// program. Each time: a clear error naming the file, every committed batch still there and whole (no batch half
// present), `PRAGMA integrity_check` clean. Also the messages for a workspace with Fathom's id but schema version 0.
#include "error_helpers.h"
#include "fault_injection.h"
#include "raw_sqlite.h"

#include <fathom/common/error.h>
#include <fathom/store/workspace.h>

#include <QCoreApplication>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

using namespace fathom;
using namespace fathom::store;
using fathom::test::contains;
using fathom::test::messageOf;
using fathom::test::rawExec;
using fathom::test::rawInt;
namespace fs = std::filesystem;

namespace {

constexpr const char* kChildEnv = "FATHOM_TST_WORKSPACE_FAULTS_CHILD";
constexpr int kBatchPoints = 50;

/// One batch of points: steps [batch * kBatchPoints, (batch + 1) * kBatchPoints).
std::vector<MetricPoint> batch(std::int64_t index) {
  std::vector<MetricPoint> out;
  for (int i = 0; i < kBatchPoints; ++i) {
    const std::int64_t step = index * kBatchPoints + i;
    out.push_back({0, step, 1.7e9 + static_cast<double>(step), "loss", static_cast<double>(step) * 0.5});
  }
  return out;
}

/// Child mode "PATH NAME BATCHES": a writer process (SIGXFSZ ignored, as in Fathom's programs) that creates run NAME
/// and appends BATCHES batches, one transaction each, printing "committed I" after batch I is committed. An error is
/// printed as "error: MESSAGE" (exit 1).
int childMain(int argc, char** argv) {
  std::signal(SIGXFSZ, SIG_IGN);
  if (argc < 4) {
    return 2;
  }
  try {
    Workspace ws(argv[1], Workspace::Options{.reconcile = false});
    const RunId run = ws.createRun({argv[2], "tst_workspace_faults child", "", ""});
    const long batches = std::strtol(argv[3], nullptr, 10);
    for (long i = 0; i < batches; ++i) {
      ws.appendMetrics(run, batch(i));
      std::printf("committed %ld\n", i);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    std::fflush(stdout);
    return 1;
  }
  return 0;
}

/// The test executable in child mode, writing `batches` batches into run `name` of `path`.
void startWriter(QProcess& process, const std::string& path, const std::string& name, long batches) {
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QString::fromUtf8(kChildEnv), QStringLiteral("1"));
  process.setProcessEnvironment(env);
  process.start(QCoreApplication::applicationFilePath(),
                {QString::fromStdString(path), QString::fromStdString(name), QString::number(batches)});
}

/// The highest "committed I" line of a writer's output (-1 when none).
long lastCommitted(const QByteArray& output) {
  long last = -1;
  for (const QByteArray& line : output.split('\n')) {
    if (line.startsWith("committed ")) {
      last = line.mid(10).toLong();
    }
  }
  return last;
}

/// The steps of run `name`, checked to be whole batches 0..n-1 in order; returns n (or -1 after a failed check).
long wholeBatches(Workspace& ws, const std::string& name) {
  const RunInfo run = ws.resolveRun(name);
  const auto series = ws.metricSeries(run.id, "loss");
  if (series.size() % kBatchPoints != 0) {
    qWarning("run %s holds %zu points, not whole batches of %d", name.c_str(), series.size(), kBatchPoints);
    return -1;
  }
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (series[i].point.step != static_cast<std::int64_t>(i) || series[i].point.value != static_cast<double>(i) * 0.5) {
      qWarning("run %s: point %zu is step %lld", name.c_str(), i, static_cast<long long>(series[i].point.step));
      return -1;
    }
  }
  return static_cast<long>(series.size() / kBatchPoints);
}

}  // namespace

class TestWorkspaceFaults : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string file(const std::string& name) const { return m_dir.filePath(QString::fromStdString(name)).toStdString(); }

private slots:
  /// Fathom's application id with schema version 0 and tables: not something to migrate (that failed with "table runs
  /// already exists"), a damaged or half-initialised file, said so. Without tables it is initialised.
  void schemaVersionZeroWithFathomsId() {
    const std::string half = file("half.sqlite");
    rawExec(half, "PRAGMA application_id = " + std::to_string(Workspace::kApplicationId) +
                      "; CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT);");
    const std::string message = messageOf([&] { Workspace ws(half); });
    QVERIFY2(contains(message, half + ": a damaged or half-initialised workspace"), message.c_str());
    QVERIFY2(contains(message, "schema version 0"), message.c_str());
    QVERIFY2(contains(message, "(runs)"), message.c_str());
    QVERIFY2(contains(message, "Move it aside"), message.c_str());
    QVERIFY2(!contains(message, "already exists"), message.c_str());
    QCOMPARE(rawInt(half, "PRAGMA user_version"), 0);  // left as it was

    const std::string empty = file("empty-tagged.sqlite");
    rawExec(empty, "PRAGMA application_id = " + std::to_string(Workspace::kApplicationId) + ";");
    Workspace ws(empty);
    QCOMPARE(ws.schemaVersion(), Workspace::kSchemaVersion);
    QVERIFY(ws.listRuns().empty());
  }

  /// A workspace in a folder this process cannot write (mode 0555, root's override dropped): reading works
  /// (read-only, immutable as there is no -shm file), writing says which folder and why, not "unable to open database
  /// file"; a new workspace there is refused the same way; nothing is changed.
  void readOnlyFolder() {
    const fs::path dir = file("ro");
    fs::create_directories(dir);
    const std::string path = (dir / "fathom.sqlite").string();
    {
      Workspace ws(path);
      const RunId run = ws.createRun({"kept", "", "", ""});
      ws.appendMetrics(run, batch(0));
    }
    QVERIFY(!fs::exists(path + "-wal") && !fs::exists(path + "-shm"));  // a clean close removes them
    const fathom::test::ReadOnlyFolder readOnly(dir);
    const fathom::test::ChildOutcome child = fathom::test::runInChild(0, [&] {
      fathom::test::obeyFilePermissions();
      std::string out = "writer: " + messageOf([&] { Workspace ws(path); }) + "\n";
      out += "new: " + messageOf([&] { Workspace ws((dir / "new.sqlite").string()); }) + "\n";
      out += "why: " + Workspace::whyNotWritable(path).value_or("<writable>") + "\n";
      Workspace reader(path, Workspace::Options{.create = false, .readOnly = true});
      out += "runs: " + std::to_string(reader.listRuns().size()) + "\n";
      out += "points: " + std::to_string(reader.metricSeries(reader.resolveRun("kept").id, "loss").size()) + "\n";
      out += "write: " + messageOf([&] { reader.createRun({"more", "", "", ""}); }) + "\n";
      return out;
    });
    const std::string& out = child.text;
    QVERIFY2(child.exitedWith(0), out.c_str());
    QVERIFY2(contains(out, "writer: " + path + ": cannot open the workspace for writing: the folder " + dir.string() +
                               " is not writable (Permission denied)"),
             out.c_str());
    QVERIFY2(contains(out, "fathom.sqlite-wal and fathom.sqlite-shm"), out.c_str());
    QVERIFY2(contains(out, "new: " + (dir / "new.sqlite").string() + ": cannot open the workspace for writing"),
             out.c_str());
    QVERIFY2(!contains(out, "unable to open database file"), out.c_str());
    QVERIFY2(contains(out, "runs: 1\n") && contains(out, "points: 50\n"), out.c_str());
    QVERIFY2(contains(out, "write: " + path) && contains(out, "read-only"), out.c_str());
    QCOMPARE(fathom::test::namesIn(dir), std::vector<std::string>{"fathom.sqlite"});
  }

  /// A writer killed (SIGKILL) at ~20 random moments while it appends batches: after each kill the file passes
  /// integrity_check, opens, and holds every batch the writer reported committed, each whole.
  void killedWriterLosesNoCommittedBatch() {
    // Two writers at a time, on two files, each killed at its own moment: 20 kills in the time of 10 starts (a
    // start loads LibTorch, about 2 s on the 2-core CI machine).
    const auto moments = fathom::test::killMoments(20, 400, 11);
    int kills = 0;
    for (std::size_t round = 0; round < moments.size() / 2; ++round) {
      QProcess writers[2];
      std::string paths[2];
      std::string names[2];
      for (int w = 0; w < 2; ++w) {
        paths[w] = file("killed" + std::to_string(w) + ".sqlite");
        names[w] = "run" + std::to_string(round);
        startWriter(writers[w], paths[w], names[w], 1'000'000);
      }
      // Wait for the first commits, then kill each at its moment, so the kills land within the writes.
      for (QProcess& writer : writers) {
        QVERIFY(writer.waitForReadyRead(30'000));
      }
      const auto ready = std::chrono::steady_clock::now();
      const int first = moments[2 * round] <= moments[2 * round + 1] ? 0 : 1;
      for (const int w : {first, 1 - first}) {
        std::this_thread::sleep_until(ready + moments[2 * round + static_cast<std::size_t>(w)]);
        ::kill(static_cast<pid_t>(writers[w].processId()), SIGKILL);
      }
      for (int w = 0; w < 2; ++w) {
        QVERIFY(writers[w].waitForFinished(10'000));
        QCOMPARE(writers[w].exitStatus(), QProcess::CrashExit);
        const long committed = lastCommitted(writers[w].readAllStandardOutput());
        ++kills;
        QCOMPARE(fathom::test::integrityCheck(paths[w]), std::string("ok"));
        Workspace ws(paths[w], Workspace::Options{.reconcile = false});
        const long present = wholeBatches(ws, names[w]);
        QVERIFY2(
            present >= committed + 1,
            qPrintable(QStringLiteral("%1 batches present, %2 reported committed").arg(present).arg(committed + 1)));
      }
    }
    QCOMPARE(kills, 20);
  }

  /// Two writer processes at once on one file: the busy timeout serialises them; both finish, every row of both is
  /// there, the file is sound.
  void twoWritersAtOnce() {
    const std::string path = file("two.sqlite");
    { Workspace ws(path); }  // created and migrated first; the writers then only append
    QProcess a;
    QProcess b;
    startWriter(a, path, "a", 300);
    startWriter(b, path, "b", 300);
    QVERIFY(a.waitForFinished(60'000));
    QVERIFY(b.waitForFinished(60'000));
    const QByteArray outA = a.readAllStandardOutput();
    const QByteArray outB = b.readAllStandardOutput();
    QVERIFY2(a.exitStatus() == QProcess::NormalExit && a.exitCode() == 0, outA.right(500).constData());
    QVERIFY2(b.exitStatus() == QProcess::NormalExit && b.exitCode() == 0, outB.right(500).constData());
    QCOMPARE(fathom::test::integrityCheck(path), std::string("ok"));
    Workspace ws(path, Workspace::Options{.reconcile = false});
    QCOMPARE(wholeBatches(ws, "a"), 300L);
    QCOMPARE(wholeBatches(ws, "b"), 300L);
  }

  /// The file size limit reached while appending (the write-ahead log grows past it): the writer stops with an error
  /// that names the workspace and says disk full or file size limit; the batches committed before are intact.
  void fileSizeLimit() {
    const std::string path = file("limited.sqlite");
    { Workspace ws(path); }
    QProcess writer;
    fathom::test::applyFaults(writer, 2 * 1024 * 1024, /*readOnlyAware=*/false);
    startWriter(writer, path, "limited", 1'000'000);
    QVERIFY(writer.waitForFinished(120'000));
    const QByteArray out = writer.readAllStandardOutput();
    QVERIFY2(writer.exitStatus() == QProcess::NormalExit && writer.exitCode() == 1, out.right(500).constData());
    const QByteArray error = out.mid(out.indexOf("error: "));
    QVERIFY2(error.contains(QByteArray::fromStdString(path)), error.constData());
    QVERIFY2(error.contains("file size limit (ulimit -f)"), error.constData());
    const long committed = lastCommitted(out);
    QVERIFY2(committed > 10, out.right(300).constData());
    QCOMPARE(fathom::test::integrityCheck(path), std::string("ok"));
    Workspace ws(path, Workspace::Options{.reconcile = false});
    QCOMPARE(wholeBatches(ws, "limited"), committed + 1);
  }

  /// A workspace cut short by another program (`truncate`), after a clean close and after a killed writer left its
  /// write-ahead log: opening or reading fails with a StorageError naming the file; it never reads back as a smaller
  /// but "valid" workspace.
  void truncatedByAnotherProgram_data() {
    QTest::addColumn<bool>("withLog");
    QTest::newRow("closed cleanly") << false;
    QTest::newRow("writer killed, log left") << true;
  }

  void truncatedByAnotherProgram() {
    QFETCH(bool, withLog);
    const std::string path = file(withLog ? "cut-log.sqlite" : "cut.sqlite");
    long committed = 0;
    {
      QProcess writer;
      startWriter(writer, path, "big", withLog ? 1'000'000 : 400);
      QVERIFY(writer.waitForStarted());
      if (withLog) {
        // Kill it once the log holds a few hundred batches.
        while (lastCommitted(writer.peek(1 << 20)) < 300) {
          QVERIFY(writer.waitForReadyRead(30'000));
        }
        ::kill(static_cast<pid_t>(writer.processId()), SIGKILL);
      }
      QVERIFY(writer.waitForFinished(60'000));
      committed = lastCommitted(writer.readAllStandardOutput());
    }
    QVERIFY(committed >= 299);
    QCOMPARE(fs::exists(path + "-wal") && fs::file_size(path + "-wal") > 0, withLog);
    const auto size = fs::file_size(path);
    QCOMPARE(QProcess::execute(QStringLiteral("truncate"),
                               {QStringLiteral("-s"), QString::number(size / 2), QString::fromStdString(path)}),
             0);
    const std::string message = [&]() -> std::string {
      try {
        Workspace ws(path, Workspace::Options{.reconcile = false});
        const long present = wholeBatches(ws, "big");
        return "read back " + std::to_string(present) + " of " + std::to_string(committed + 1) +
               " batches without an error";
      } catch (const StorageError& e) {
        return e.what();
      }
    }();
    QVERIFY2(contains(message, path), message.c_str());
    QVERIFY2(contains(message, "truncated") || contains(message, "damaged"), message.c_str());
  }
};

int main(int argc, char** argv) {
  if (std::getenv(kChildEnv) != nullptr) {
    return childMain(argc, argv);
  }
  QCoreApplication app(argc, argv);
  TestWorkspaceFaults test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_workspace_faults.moc"
