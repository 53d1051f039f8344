// SPDX-License-Identifier: Apache-2.0
// Safetensors files (io::writeSafetensors) and config files (config::saveConfigFile) under faults, with real
// processes (docs/errors.md, "Writes"): SIGKILL at ~20 random moments of a writer that rewrites the file in a loop, a
// file size limit, and a read-only folder. Each time: a clear error naming the file; the previous file stays whole and
// loadable; no temporary is left (except, after a SIGKILL in the microseconds between naming a finished temporary and
// renaming it, that whole temporary).
#include "error_helpers.h"
#include "fault_injection.h"

#include <fathom/common/error.h>
#include <fathom/config/config_reader.h>
#include <fathom/config/config_writer.h>
#include <fathom/io/safetensors.h>

#include <ATen/ATen.h>

#include <QCoreApplication>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

using fathom::test::contains;
namespace fs = std::filesystem;

namespace {

constexpr const char* kChildEnv = "FATHOM_TST_WRITE_FAULTS_CHILD";

/// Version `v` of the safetensors file: tensor "w" of `elements` floats, all equal to v, and metadata version=v.
void writeVersion(const fs::path& path, std::int64_t v, std::int64_t elements) {
  fathom::io::writeSafetensors(path, {{"w", at::full({elements}, static_cast<float>(v))}},
                               {{"version", std::to_string(v)}});
}

/// The version a safetensors file holds, checked whole (every element equals the metadata's version); -1 otherwise.
std::int64_t versionOf(const fs::path& path) {
  const fathom::io::SafetensorsFile file = fathom::io::readSafetensors(path);
  const std::int64_t v = std::stoll(file.metadata.at("version"));
  const at::Tensor& w = file.tensors.at(0).second;
  return at::all(w == static_cast<float>(v)).item<bool>() ? v : -1;
}

void writeConfigVersion(const fs::path& path, std::int64_t v) {
  fathom::config::AccelerateConfig config;
  config.set("num_processes", v);
  config.set("distributed_type", std::string("MULTI_CPU"));
  config.set("main_process_port", std::int64_t{20000} + v);
  config.set("fathom.workspace", std::string(static_cast<std::size_t>(v % 4000), 'w'));  // sizes differ per version
  fathom::config::saveConfigFile(config, path);
}

/// The version a config file holds, checked whole (every key agrees); -1 otherwise.
std::int64_t configVersionOf(const fs::path& path) {
  const fathom::config::AccelerateConfig config = fathom::config::loadConfigFile(path).config;
  const std::int64_t v = config.getInt("num_processes").value_or(-1);
  const bool whole = config.getInt("main_process_port") == std::int64_t{20000} + v &&
                     config.getString("fathom.workspace") == std::string(static_cast<std::size_t>(v % 4000), 'w');
  return whole ? v : -1;
}

/// Child modes: "safetensors-loop PATH" and "config-loop PATH" rewrite the file forever (versions 1, 2, ...);
/// "safetensors-once PATH ELEMENTS" and "config-once PATH" write once. SIGXFSZ is ignored, as in Fathom's programs;
/// an error is printed as "error: MESSAGE" (exit 1).
int childMain(int argc, char** argv) {
  std::signal(SIGXFSZ, SIG_IGN);
  if (argc < 3) {
    return 2;
  }
  const std::string mode = argv[1];
  const fs::path path = argv[2];
  try {
    if (mode == "safetensors-loop") {
      for (std::int64_t v = 1;; ++v) {
        writeVersion(path, v, 100'000 + v);
      }
    } else if (mode == "config-loop") {
      for (std::int64_t v = 1;; ++v) {
        writeConfigVersion(path, v);
      }
    } else if (mode == "safetensors-once") {
      writeVersion(path, 7, std::strtoll(argv[3], nullptr, 10));
    } else if (mode == "config-once") {
      writeConfigVersion(path, 3999);
    }
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    std::fflush(stdout);
    return 1;
  }
  return 0;
}

QByteArray runChild(const QStringList& args, std::uint64_t fileSizeLimit, int* exitCode) {
  QProcess child;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QString::fromUtf8(kChildEnv), QStringLiteral("1"));
  child.setProcessEnvironment(env);
  fathom::test::applyFaults(child, fileSizeLimit);
  child.start(QCoreApplication::applicationFilePath(), args);
  child.waitForFinished(60'000);
  *exitCode = child.exitStatus() == QProcess::NormalExit ? child.exitCode() : -1;
  return child.readAllStandardOutput() + child.readAllStandardError();
}

}  // namespace

class TestWriteFaults : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fs::path root() const { return m_dir.path().toStdString(); }

  /// SIGKILLs "MODE-loop" children at 20 moments, two at a time (each on its own copy of `name`, in its own folder, so
  /// 20 kills cost 10 starts of this LibTorch-linked program); after each kill, `check` reads the file whole, and any
  /// other name in the folder is a whole finished temporary (removed). `first` writes version 0 of a file.
  template <typename First, typename Check>
  void killLoop(const QString& mode, const std::string& name, First first, Check check) {
    // A file that does not load is "not whole" (-1), not an exception.
    const auto whole = [&check](const fs::path& p) -> std::int64_t {
      try {
        return check(p);
      } catch (const std::exception& e) {
        qWarning("%s: %s", p.c_str(), e.what());
        return -1;
      }
    };
    fs::path paths[2];
    for (int c = 0; c < 2; ++c) {
      const fs::path dir = root() / (mode.toStdString() + std::to_string(c));
      fs::create_directories(dir);
      paths[c] = dir / name;
      first(paths[c]);
      QVERIFY(whole(paths[c]) >= 0);
    }
    const auto moments = fathom::test::killMoments(20, 300, 5);
    int leftovers = 0;
    for (std::size_t round = 0; round < moments.size() / 2; ++round) {
      QProcess children[2];
      fs::file_time_type written[2];
      for (int c = 0; c < 2; ++c) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QString::fromUtf8(kChildEnv), QStringLiteral("1"));
        children[c].setProcessEnvironment(env);
        written[c] = fs::last_write_time(paths[c]);
        children[c].start(QCoreApplication::applicationFilePath(), {mode, QString::fromStdString(paths[c].string())});
      }
      // Until both children have replaced their file once (past start-up, in their loops), then each one's moment.
      for (int c = 0; c < 2; ++c) {
        QVERIFY(children[c].waitForStarted());
        for (int i = 0; i < 3000 && fs::last_write_time(paths[c]) == written[c]; ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
      }
      const auto ready = std::chrono::steady_clock::now();
      const int early = moments[2 * round] <= moments[2 * round + 1] ? 0 : 1;
      for (const int c : {early, 1 - early}) {
        std::this_thread::sleep_until(ready + moments[2 * round + static_cast<std::size_t>(c)]);
        ::kill(static_cast<pid_t>(children[c].processId()), SIGKILL);
      }
      for (int c = 0; c < 2; ++c) {
        QVERIFY(children[c].waitForFinished(10'000));
        QCOMPARE(children[c].exitStatus(), QProcess::CrashExit);
        QVERIFY2(whole(paths[c]) >= 1, "the file is not whole after a kill");
        const fs::path dir = paths[c].parent_path();
        for (const std::string& entry : fathom::test::namesIn(dir)) {
          if (entry == name) {
            continue;
          }
          QVERIFY2(entry.rfind(name + ".tmp-", 0) == 0, entry.c_str());
          QVERIFY2(whole(dir / entry) >= 1, entry.c_str());  // a finished temporary, whole
          fs::remove(dir / entry);
          ++leftovers;
        }
      }
    }
    // Only a kill in the microseconds between naming the finished file and the rename leaves it (before the
    // unnamed temporary, 6 of 20 kills left one).
    qInfo("%d of 20 kills left a finished temporary behind", leftovers);
    QVERIFY2(leftovers <= 2, "temporaries are left behind by killed writers");
  }

private slots:
  void init() {
    for (const auto& entry : fs::directory_iterator(root())) {
      fs::permissions(entry.path(), fs::perms::owner_all, fs::perm_options::add);
      fs::remove_all(entry.path());
    }
  }

  void safetensorsKilledWhileWriting() {
    killLoop(
        QStringLiteral("safetensors-loop"), "w.safetensors", [](const fs::path& p) { writeVersion(p, 0, 100'000); },
        versionOf);
  }

  void configKilledWhileWriting() {
    killLoop(
        QStringLiteral("config-loop"), "config.yaml", [](const fs::path& p) { writeConfigVersion(p, 0); },
        configVersionOf);
  }

  /// 4 MB of tensor under a 1 MiB file size limit: "file size limit (ulimit -f) reached while writing PATH", the
  /// previous file whole, no temporary.
  void safetensorsFileSizeLimit() {
    const fs::path path = root() / "big.safetensors";
    writeVersion(path, 1, 1000);
    int code = 0;
    const QByteArray out =
        runChild({QStringLiteral("safetensors-once"), QString::fromStdString(path.string()), QStringLiteral("1000000")},
                 1 << 20, &code);
    QCOMPARE(code, 1);
    QVERIFY2(
        out.contains(QByteArray::fromStdString("cannot write safetensors file " + path.string() +
                                               ": file size limit (ulimit -f) reached while writing " + path.string())),
        out.constData());
    QCOMPARE(versionOf(path), 1);
    QCOMPARE(fathom::test::namesIn(root()), std::vector<std::string>{"big.safetensors"});
  }

  void configFileSizeLimit() {
    const fs::path path = root() / "limited.yaml";
    writeConfigVersion(path, 2);
    int code = 0;
    const QByteArray out =
        runChild({QStringLiteral("config-once"), QString::fromStdString(path.string())}, 1024, &code);
    QCOMPARE(code, 1);
    QVERIFY2(out.contains(QByteArray::fromStdString("cannot write config file " + path.string() +
                                                    ": file size limit (ulimit -f) reached")),
             out.constData());
    QCOMPARE(configVersionOf(path), 2);
    QCOMPARE(fathom::test::namesIn(root()), std::vector<std::string>{"limited.yaml"});
  }

  void readOnlyFolder_data() {
    QTest::addColumn<QString>("mode");
    QTest::newRow("safetensors") << QStringLiteral("safetensors-once");
    QTest::newRow("config") << QStringLiteral("config-once");
  }

  /// Writing into a folder without write permission: the message names the folder and the reason; the file stays.
  void readOnlyFolder() {
    QFETCH(QString, mode);
    const fs::path dir = root() / "ro";
    fs::create_directories(dir);
    const bool safetensors = mode.startsWith(QStringLiteral("safetensors"));
    const fs::path path = dir / (safetensors ? "w.safetensors" : "c.yaml");
    if (safetensors) {
      writeVersion(path, 4, 1000);
    } else {
      writeConfigVersion(path, 4);
    }
    int code = 0;
    QByteArray out;
    {
      const fathom::test::ReadOnlyFolder readOnly(dir);
      out = runChild({mode, QString::fromStdString(path.string()), QStringLiteral("1000")}, 0, &code);
    }
    QCOMPARE(code, 1);
    QVERIFY2(out.contains(QByteArray::fromStdString(path.string())), out.constData());
    QVERIFY2(
        out.contains(QByteArray::fromStdString("the folder " + dir.string() + " is not writable (Permission denied)")),
        out.constData());
    QCOMPARE(safetensors ? versionOf(path) : configVersionOf(path), 4);
    QCOMPARE(fathom::test::namesIn(dir), std::vector<std::string>{path.filename().string()});
  }
};

int main(int argc, char** argv) {
  if (std::getenv(kChildEnv) != nullptr) {
    return childMain(argc, argv);
  }
  QCoreApplication app(argc, argv);
  TestWriteFaults test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_write_faults.moc"
