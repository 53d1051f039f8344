// SPDX-License-Identifier: Apache-2.0
// Fault injection for trace writes (issue 20): a child process (this executable in writer mode) writes a trace
// through ChromeTraceWriter, the profiler's own path (TraceFileSink over fathom::AtomicFile), over a previous trace,
// and meets a full disk (RLIMIT_FSIZE), a read-only folder, or SIGKILL at random moments. Each failure gives a clear
// error naming the file; the previous file stays byte for byte and loads; a killed writer's ".partial" file is
// listed as unfinished (listTraceDirectory), never as a trace; and the file is synced to disk before it is renamed
// into place (strace shows fsync before the rename).
#include <fathom/common/error.h>
#include <fathom/trace/chrome_trace_writer.h>
#include <fathom/trace/trace_file_names.h>
#include <fathom/trace/trace_reader.h>

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
namespace fs = std::filesystem;

namespace {

/// Writer mode: `--write-trace PATH EVENTS [SEED]`: EVENTS complete events through ChromeTraceWriter (gzip when PATH
/// ends with .gz), as the profiler writes a window; SEED (default 0) shifts the base time, so every write's bytes
/// differ. SIGXFSZ is ignored, so a full disk is an error, as in `fathom trace`.
int writeTraceChild(const char* path, const char* events, const char* seed) {
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    fathom::trace::TraceHeader header;
    header.baseTimeUnixNs = 1'700'000'000'000'000'000 + std::stol(seed);
    header.distributed = {"gloo", 0, 1};
    header.traceName = path;
    fathom::trace::ChromeTraceWriter writer(path, header);
    const long count = std::stol(events);
    for (long i = 0; i < count; ++i) {
      writer.write({.phase = fathom::trace::TracePhase::Complete,
                    .category = fathom::trace::TraceCategory::CpuOp,
                    .name = "aten::mm",
                    .startNs = i * 1000,
                    .durationNs = 500,
                    .pid = 1,
                    .tid = 1});
    }
    writer.finish();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The events of a whole trace; -1 when it does not read to its end.
long eventsIn(const fs::path& path) {
  try {
    fathom::trace::TraceReader reader(path);
    while (reader.next()) {
    }
    return static_cast<long>(reader.eventCount());
  } catch (const fathom::Error&) {
    return -1;
  }
}

struct Child {
  int exitCode = -1;  ///< -1: killed or crashed
  QByteArray err;
};

/// Starts this executable as a writer; `setup` runs in the child before exec.
void startWriter(QProcess& p, const fs::path& path, long events, const std::function<void()>& setup = {},
                 int seed = 0) {
  if (setup) {
    p.setChildProcessModifier(setup);
  }
  p.start(QCoreApplication::applicationFilePath(),
          {u"--write-trace"_s, QString::fromStdString(path.string()), QString::number(events), QString::number(seed)});
}

Child runWriter(const fs::path& path, long events, const std::function<void()>& setup = {}) {
  QProcess p;
  startWriter(p, path, events, setup);
  p.waitForFinished(120'000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardError()};
}

/// Whether a message says the file size limit was reached: strerror(EFBIG), or core/common's own words for it.
bool saysFileSizeLimit(const QByteArray& message) {
  return message.contains("File too large") || message.contains("file size limit");
}

}  // namespace

class TestTraceWriteFaults : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path root() const { return m_dir.path().toStdString(); }

  /// A previous, whole trace of 100 events at `path`; returns its bytes.
  std::string previousTrace(const fs::path& path) {
    const Child c = runWriter(path, 100);
    [&] { QVERIFY2(c.exitCode == 0, c.err.constData()); }();
    return readFile(path);
  }

  void checkPreviousKept(const fs::path& path, const std::string& previous) {
    QVERIFY2(readFile(path) == previous, path.c_str());
    QCOMPARE(eventsIn(path), 100L);
    const fathom::trace::TraceDirectoryListing listing = fathom::trace::listTraceDirectory(path.parent_path());
    QVERIFY2(listing.partial.empty(), "a .partial file was left behind");
  }

private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  /// A full disk: the write fails with "File too large" naming the file; the previous trace stays.
  void diskFull() {
    for (const char* name : {"full.json", "full.json.gz"}) {
      const fs::path path = root() / name;
      const std::string previous = previousTrace(path);
      const Child c = runWriter(path, 200'000, [] {
        const rlimit limit{256 << 10, 256 << 10};
        ::setrlimit(RLIMIT_FSIZE, &limit);
      });
      QVERIFY2(c.exitCode == 1 &&
                   c.err.contains(QByteArray::fromStdString("cannot write trace file " + path.string())) &&
                   saysFileSizeLimit(c.err),
               c.err.constData());
      checkPreviousKept(path, previous);
    }
  }

  /// A read-only folder (root too, with CAP_DAC_OVERRIDE dropped from the child's bounding set).
  void readOnlyFolder() {
    const fs::path dir = root() / "readonly";
    fs::create_directories(dir);
    const fs::path path = dir / "trace.json";
    const std::string previous = previousTrace(path);
    fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
    const Child c = runWriter(path, 1000, [] {
      if (::getuid() == 0) {
        ::prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0);
        ::prctl(PR_CAPBSET_DROP, CAP_DAC_READ_SEARCH, 0, 0, 0);
      }
    });
    fs::permissions(dir, fs::perms::owner_all);
    if (c.exitCode == 0) {
      QSKIP("the folder is writable for this user even at 0555 (CAP_DAC_OVERRIDE could not be dropped)");
    }
    QVERIFY2(c.exitCode == 1 && c.err.contains(QByteArray::fromStdString(path.string())) &&
                 c.err.contains("Permission denied"),
             c.err.constData());
    checkPreviousKept(path, previous);
  }

  /// SIGKILL at random moments of 20 writes, half of them gzip: after each, the final name holds the previous trace
  /// byte for byte or the whole new one; a ".partial" file a killed writer left is listed as unfinished, never as a
  /// trace, and the next write replaces it.
  void killedAtRandomPoints() {
    constexpr long kEvents = 150'000;
    int kept = 0;
    int published = 0;
    int partialLeft = 0;
    for (const char* name : {"killed.json", "killed.json.gz"}) {
      const fs::path path = root() / name;
      previousTrace(path);
      // How long a whole write takes here, so the kills land anywhere in it (and some after it ended).
      const auto start = std::chrono::steady_clock::now();
      QCOMPARE(runWriter(path, kEvents).exitCode, 0);
      const auto whole =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
      for (int i = 0; i < 10; ++i) {
        const std::string before = readFile(path);
        QProcess p;
        startWriter(p, path, kEvents, {}, i + 1);  // bytes of its own: a publish is told from the previous file
        QVERIFY(p.waitForStarted());
        const int delay = QRandomGenerator::global()->bounded(static_cast<int>(whole.count() * 2) + 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
        p.waitForFinished();
        const std::string after = readFile(path);
        if (after == before) {
          ++kept;
        } else {
          ++published;
          QCOMPARE(eventsIn(path), kEvents);  // a new file under the name is always whole
        }
        QVERIFY(eventsIn(path) > 0);  // whatever is there loads
        const fathom::trace::TraceDirectoryListing listing = fathom::trace::listTraceDirectory(root());
        for (const fs::path& trace : listing.traces) {
          QVERIFY2(!fathom::trace::isPartialTraceFile(trace), trace.c_str());
        }
        const fs::path partial = path.string() + std::string(fathom::trace::kPartialTraceSuffix);
        if (fs::exists(partial)) {
          ++partialLeft;
          QVERIFY2(std::find(listing.partial.begin(), listing.partial.end(), partial) != listing.partial.end(),
                   partial.c_str());
        }
      }
    }
    qInfo("20 kills: previous kept %d, new published whole %d, .partial left %d", kept, published, partialLeft);
    QCOMPARE(kept + published, 20);
  }

  /// The trace file is synced to disk before it is renamed into place (issue 22 asked; AtomicFile::commit does it):
  /// strace shows fsync of the file, then the rename of "<path>.partial" to the path.
  void syncedBeforeItIsPublished() {
    const QString strace = QStandardPaths::findExecutable(u"strace"_s);
    if (strace.isEmpty()) {
      QSKIP("strace is not installed (installer/deps-debian.txt, group test)");
    }
    const fs::path path = root() / "synced.json";
    const fs::path log = root() / "strace.log";
    QProcess p;
    p.start(strace, {u"-f"_s, u"-o"_s, QString::fromStdString(log.string()), u"-e"_s,
                     u"trace=fsync,fdatasync,rename,renameat,renameat2"_s, QCoreApplication::applicationFilePath(),
                     u"--write-trace"_s, QString::fromStdString(path.string()), u"1000"_s});
    QVERIFY(p.waitForFinished(60'000));
    if (p.exitCode() != 0 && readFile(log).find("fsync") == std::string::npos) {
      QSKIP("strace cannot trace here (no ptrace)");
    }
    QCOMPARE(p.exitCode(), 0);
    const std::string text = readFile(log);
    const std::size_t fsync = text.find("fsync(");
    const std::size_t rename = text.find(path.string() + ".partial\", ");
    QVERIFY2(fsync != std::string::npos && rename != std::string::npos && fsync < rename, text.c_str());
    QCOMPARE(eventsIn(path), 1000L);
  }
};

int main(int argc, char** argv) {
  if ((argc == 4 || argc == 5) && std::string_view(argv[1]) == "--write-trace") {
    return writeTraceChild(argv[2], argv[3], argc == 5 ? argv[4] : "0");
  }
  QCoreApplication app(argc, argv);
  TestTraceWriteFaults test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_trace_write_faults.moc"
