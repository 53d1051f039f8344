// SPDX-License-Identifier: Apache-2.0
// Replays every fuzz target (tests/fuzz/targets, built here with the normal compiler: no clang, no libFuzzer) on every
// file of its seed corpus (tests/fuzz/corpus/<target>/) and of its findings (tests/fuzz/regressions/<target>/), one
// data row per file. A target aborts, crashes or lets an exception other than Fathom's escape on an input it must
// survive, so a finding that comes back fails this test; under the asan preset the sanitizers judge as in fuzzing.
#include "fuzz_entries.h"

#include <QtTest/QtTest>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

const std::filesystem::path kFuzzDir = FATHOM_FUZZ_DIR;

/// The regular files of `dir`, sorted (an absent folder has none).
std::vector<std::filesystem::path> filesIn(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().filename() != ".gitkeep" && entry.path().filename() != "README.md") {
      out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

class TstFuzzReplay : public QObject {
  Q_OBJECT

private slots:
  // Every target has seeds: a target whose corpus folder were empty or misnamed would replay nothing and pass.
  void everyTargetHasSeeds_data() {
    QTest::addColumn<QString>("target");
    for (const FuzzEntry& entry : kFuzzEntries) {
      QTest::newRow(entry.name) << QString::fromUtf8(entry.name);
    }
  }
  void everyTargetHasSeeds() {
    QFETCH(QString, target);
    const auto seeds = filesIn(kFuzzDir / "corpus" / target.toStdString());
    QVERIFY2(!seeds.empty(), qPrintable("no seeds in tests/fuzz/corpus/" + target));
  }

  // Every regressions/<name>/ folder belongs to a target (a renamed target must take its findings along).
  void regressionFoldersHaveTargets() {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(kFuzzDir / "regressions", ec)) {
      if (!entry.is_directory()) {
        continue;
      }
      const std::string name = entry.path().filename().string();
      const bool known = std::any_of(std::begin(kFuzzEntries), std::end(kFuzzEntries),
                                     [&](const FuzzEntry& e) { return name == e.name; });
      QVERIFY2(known, qPrintable(QString::fromStdString("tests/fuzz/regressions/" + name + " has no fuzz target")));
    }
  }

  void replay_data() {
    QTest::addColumn<int>("entry");
    QTest::addColumn<QString>("file");
    int index = 0;
    for (const FuzzEntry& entry : kFuzzEntries) {
      for (const char* kind : {"corpus", "regressions"}) {
        for (const auto& file : filesIn(kFuzzDir / kind / entry.name)) {
          const std::string row = std::string(entry.name) + "/" + kind + "/" + file.filename().string();
          QTest::newRow(row.c_str()) << index << QString::fromStdString(file.string());
        }
      }
      ++index;
    }
  }
  void replay() {
    QFETCH(int, entry);
    QFETCH(QString, file);
    const std::string bytes = readBytes(file.toStdString());
    // The entry point returns 0 for every input it survives; it aborts (the test process dies) otherwise.
    QCOMPARE(kFuzzEntries[entry].run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), 0);
  }
};

QTEST_GUILESS_MAIN(TstFuzzReplay)
#include "tst_fuzz_replay.moc"
