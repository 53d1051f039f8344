// SPDX-License-Identifier: Apache-2.0
// fathom::AtomicFile (core/common): readers see the old file or the whole new one; a failure, an exception or an
// abandoned writer leaves no temporary behind; a file it could not create is never removed; errors name the file.
#include "error_helpers.h"
#include "fault_injection.h"

#include <fathom/common/atomic_file.h>
#include <fathom/common/error.h>

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using fathom::test::messageOf;
using fathom::test::throwsType;

namespace {

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> namesIn(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

class TestAtomicFile : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path root() const { return m_dir.path().toStdString(); }

private slots:
  void init() {
    for (const auto& entry : fs::directory_iterator(root()))
      fs::remove_all(entry.path());
  }

  void commitReplacesTheFileWhole() {
    const fs::path path = root() / "a.bin";
    writeFile(path, "old");
    fathom::AtomicFile file(path, {.temporarySuffix = ".tmp", .what = "test file"});
    QCOMPARE(file.temporaryPath(), fs::path(path.string() + ".tmp"));
    file.write("new ");
    file.write(std::string(100'000, 'x'));
    QCOMPARE(readFile(path), std::string("old"));  // not yet: the old file until commit()
    file.commit();
    QVERIFY(file.committed());
    QVERIFY(!file.writable());
    QCOMPARE(readFile(path), "new " + std::string(100'000, 'x'));
    QCOMPARE(namesIn(root()), std::vector<std::string>{"a.bin"});
    // A committed file stays; more bytes are refused, naming it.
    file.abandon();
    QVERIFY(fs::exists(path));
    const std::string message = messageOf([&] { file.write("late"); });
    QVERIFY2(message.find("cannot write test file " + path.string() + ": it is already committed") != std::string::npos,
             message.c_str());
  }

  void abandonedOrDestroyedLeavesNothing() {
    const fs::path path = root() / "b.bin";
    {
      fathom::AtomicFile file(path);
      file.write("partial");
      QVERIFY(fs::exists(root() / "b.bin.partial"));
    }  // destroyed before commit()
    QVERIFY(namesIn(root()).empty());
    fathom::AtomicFile file(path);
    file.write("partial");
    file.abandon();
    file.abandon();  // twice: still fine
    QVERIFY(namesIn(root()).empty());
    QVERIFY(throwsType<fathom::StorageError>([&] { file.commit(); }));
    QVERIFY(namesIn(root()).empty());
  }

  void aStaleTemporaryIsReplaced() {
    const fs::path path = root() / "c.bin";
    writeFile(root() / "c.bin.partial", "stale stale stale");
    fathom::AtomicFile file(path);
    file.write("fresh");
    file.commit();
    QCOMPARE(readFile(path), std::string("fresh"));
    QCOMPARE(namesIn(root()), std::vector<std::string>{"c.bin"});
  }

  void createFailureNamesTheFileAndRemovesNothing() {
    const fs::path path = root() / "missing" / "d.bin";
    const std::string message = messageOf([&] { fathom::AtomicFile file(path, {.what = "checkpoint"}); });
    QVERIFY2(message.find("cannot write checkpoint " + path.string() + ": cannot create " + path.string() +
                          ".partial: No such file or directory") != std::string::npos,
             message.c_str());
    // A temporary that cannot be opened for writing (here: a directory of that name) is someone else's: it stays.
    fs::create_directories(root() / "e.bin.partial" / "inside");
    QVERIFY(throwsType<fathom::StorageError>([&] { fathom::AtomicFile file(root() / "e.bin"); }));
    QVERIFY(fs::is_directory(root() / "e.bin.partial" / "inside"));
  }

  void renameFailureRemovesTheTemporary() {
    // The target is a non-empty directory: everything is written, the rename fails, the temporary goes.
    const fs::path target = root() / "taken";
    fs::create_directories(target / "inside");
    fathom::AtomicFile file(target, {.what = "test file"});
    file.write("bytes");
    const std::string message = messageOf([&] { file.commit(); });
    QVERIFY2(message.find("cannot write test file " + target.string() + ": cannot rename " + target.string() +
                          ".partial to it") != std::string::npos,
             message.c_str());
    QVERIFY(fs::is_directory(target / "inside"));
    QCOMPARE(namesIn(root()), std::vector<std::string>{"taken"});
  }

  /// AtomicFileOptions::replaceExisting false (the profiler's traces): a file that exists is never replaced; the
  /// error names it and the temporary goes. Where nothing is, the file is published as usual.
  void aFileThatMustNotReplaceRefusesAnExistingOne() {
    const fs::path path = root() / "g.json";
    writeFile(path, "another run's trace");
    fathom::AtomicFile file(path, {.what = "trace file", .replaceExisting = false});
    file.write("this run's trace");
    const std::string message = messageOf([&] { file.commit(); });
    QVERIFY2(message.find("cannot write trace file " + path.string() + ": it exists") != std::string::npos,
             message.c_str());
    QCOMPARE(readFile(path), std::string("another run's trace"));
    QCOMPARE(namesIn(root()), std::vector<std::string>{"g.json"});
    fathom::AtomicFile fresh(root() / "h.json", {.replaceExisting = false});
    fresh.write("whole");
    fresh.commit();
    QCOMPARE(readFile(root() / "h.json"), std::string("whole"));
    QCOMPARE(namesIn(root()), (std::vector<std::string>{"g.json", "h.json"}));
  }

  void failAbandonsWithTheFilesMessage() {
    const fs::path path = root() / "f.bin";
    fathom::AtomicFile file(path, {.what = "trace file"});
    file.write("abc");
    const std::string message = messageOf([&] { file.fail("zlib deflate failed"); });
    QCOMPARE(message, "cannot write trace file " + path.string() + ": zlib deflate failed");
    QVERIFY(namesIn(root()).empty());
  }

  void fileSizeLimitIsNamedAndLeavesTheOldFile_data() {
    QTest::addColumn<bool>("unnamed");
    QTest::newRow("named temporary") << false;
    QTest::newRow("unnamed while writing") << true;
  }

  /// `ulimit -f` (RLIMIT_FSIZE) in a child that ignores SIGXFSZ, as Fathom's programs do: the write fails with
  /// EFBIG; the message says so and names the file; the previous file stays; no temporary is left.
  void fileSizeLimitIsNamedAndLeavesTheOldFile() {
    QFETCH(bool, unnamed);
    const fs::path path = root() / "w.safetensors";
    writeFile(path, "previous");
    const fathom::test::ChildOutcome child = fathom::test::runInChild(64 * 1024, [&] {
      const std::string big(1 << 20, 'x');
      return messageOf([&] {
        fathom::AtomicFile::writeWhole(
            path, big, {.temporarySuffix = ".tmp-1", .what = "safetensors file", .unnamedWhileWriting = unnamed});
      });
    });
    QVERIFY2(child.exitedWith(0), child.text.c_str());
    QVERIFY2(child.text.find("cannot write safetensors file " + path.string() +
                             ": file size limit (ulimit -f) reached while writing " + path.string()) !=
                 std::string::npos,
             child.text.c_str());
    QCOMPARE(readFile(path), std::string("previous"));
    QCOMPARE(namesIn(root()), std::vector<std::string>{"w.safetensors"});
  }

  void unwritableFolderIsNamed() {
    const fs::path dir = root() / "ro";
    fs::create_directories(dir);
    const fs::path path = dir / "x.yaml";
    writeFile(path, "old: 1\n");
    const fathom::test::ReadOnlyFolder readOnly(dir);
    const fathom::test::ChildOutcome child = fathom::test::runInChild(0, [&] {
      fathom::test::obeyFilePermissions();
      return messageOf([&] { fathom::AtomicFile::writeWhole(path, "new: 2\n", {.unnamedWhileWriting = true}); });
    });
    QVERIFY2(child.text.find("the folder " + dir.string() + " is not writable (Permission denied)") !=
                 std::string::npos,
             child.text.c_str());
    QCOMPARE(readFile(path), std::string("old: 1\n"));
  }

  /// SIGKILL at ~20 moments of a child that rewrites one file in a loop: the file always holds one whole version
  /// (never a part), and no unnamed writer leaves a temporary, except a whole one in the microseconds between naming
  /// it and the rename.
  void killedWriterLeavesAWholeFile() {
    const fs::path path = root() / "k.bin";
    const auto version = [](int i) {
      std::string text = std::to_string(i);  // "<i>:<200,000 + i letters>#"
      text.append(1, ':').append(static_cast<std::size_t>(200'000 + i), static_cast<char>('a' + i % 26)).append(1, '#');
      return text;
    };
    fathom::AtomicFile::writeWhole(path, version(0));
    int partialSeen = 0;
    for (const auto moment : fathom::test::killMoments(20, 40, 7)) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        for (int i = 1;; ++i) {
          fathom::AtomicFile::writeWhole(path, version(i), {.temporarySuffix = ".tmp", .unnamedWhileWriting = true});
        }
      }
      std::this_thread::sleep_for(moment);
      ::kill(pid, SIGKILL);
      int status = 0;
      ::waitpid(pid, &status, 0);
      QVERIFY(WIFSIGNALED(status));
      const std::string text = readFile(path);
      const auto colon = text.find(':');
      QVERIFY2(colon != std::string::npos && text.back() == '#', text.substr(0, 20).c_str());
      QCOMPARE(text, version(std::stoi(text.substr(0, colon))));
      for (const std::string& name : namesIn(root())) {
        if (name == "k.bin.tmp") {
          ++partialSeen;
          const std::string left = readFile(root() / name);
          QCOMPARE(left, version(std::stoi(left.substr(0, left.find(':')))));  // whole, never a part
          fs::remove(root() / name);
        } else {
          QCOMPARE(name, std::string("k.bin"));
        }
      }
    }
    // Only a kill in the microseconds between naming the finished file and the rename leaves it (a named temporary
    // written from the start was left after 11 of 20 kills).
    qInfo("a named temporary was left %d times of 20", partialSeen);
    QVERIFY2(partialSeen <= 2, "temporaries are left behind by killed writers");
  }
};

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "tst_atomic_file.moc"
