// SPDX-License-Identifier: Apache-2.0
// `fathom trace export --run` over a run's stored traces, through the real command (CLI11 parsing included) but with
// the traces in memory instead of a workspace. Two things are checked:
// - the choice: the merged trace of every rank by default, one rank's trace for --rank N, every rank's for --rank
//   all; a directory output (created when missing, one file per rank); clear errors for what is ambiguous or a file
//   that is in the way (the traces are named as `fathom train --profile` names them, trace/trace_file_names.h);
// - the dependency: this executable links fathom_cli_trace, and through it Fathom::trace only (no fathom_core, no
//   LibTorch, tests/app/CMakeLists.txt). A `fathom trace` command that used anything else of core would not link.
#include "error_helpers.h"
#include "trace_command.h"
#include "trace_fixtures.h"

#include <fathom/common/error.h>
#include <fathom/trace/trace_file_names.h>
#include <fathom/trace/trace_input.h>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using fathom::cli::StoredTrace;

namespace {

/// A valid one-event trace whose event name says which trace it is.
std::string traceText(const std::string& tag, int rank) {
  namespace t = fathom::test;
  return t::objectTrace({t::completeEvent("cpu_op", tag, 1, 1, "0.000", "1.000")}, t::traceKeys(rank));
}

/// A run's stored traces, in memory: what trace_workspace.cpp reads from a workspace.
class FakeRun {
public:
  void add(const std::string& name, int rank) {
    const std::string bytes = traceText(name + "@" + std::to_string(rank), rank);
    m_bytes[{name, rank}] = bytes;
    m_traces.push_back({name, rank, static_cast<std::int64_t>(bytes.size())});
  }
  std::string bytesOf(const std::string& name, int rank) const { return m_bytes.at({name, rank}); }

  fathom::cli::RunTraces open() const {
    return {"run 7 (gpt)", m_traces, [this](const StoredTrace& t) { return m_bytes.at({t.name, t.rank}); }};
  }

private:
  std::vector<StoredTrace> m_traces;
  std::map<std::pair<std::string, int>, std::string> m_bytes;
};

/// What the 2-rank `fathom launch ... fathom train --profile` of one window stores.
FakeRun profiledRun() {
  FakeRun run;
  run.add(fathom::trace::mergedTraceFileName(false), 0);
  run.add(fathom::trace::rankTraceFileName(0, false), 0);
  run.add(fathom::trace::rankTraceFileName(1, false), 1);
  return run;
}

/// Runs `fathom trace <args>` against `run`; the error's message when it refuses, else "".
std::string traceCommand(const FakeRun& run, std::vector<std::string> args) {
  CLI::App root{"fathom", "fathom"};
  fathom::cli::CommandAction action;
  fathom::cli::addTraceCommand(root, action, [&run](const std::string&, const std::string& id) {
    if (id != "7")
      throw fathom::ConfigError("no run \"" + id + "\"");
    return run.open();
  });
  args.insert(args.begin(), {"fathom", "trace", "export", "--run", "7"});
  std::vector<char*> argv;
  for (std::string& a : args)
    argv.push_back(a.data());
  root.parse(static_cast<int>(argv.size()), argv.data());
  int exitCode = 0;
  const std::string message = fathom::test::messageOf([&] { exitCode = action(); });
  if (message != "<no exception>")
    return message;
  return exitCode == 0 ? std::string() : "exit code " + std::to_string(exitCode);
}

}  // namespace

class TestTraceCommand : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const std::string& name) const { return (fs::path(m_dir.path().toStdString()) / name).string(); }

private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  void defaultIsTheMergedTrace() {
    const FakeRun run = profiledRun();
    const std::string out = path("all.json");
    const std::string error = traceCommand(run, {"-o", out});
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(fathom::test::readRaw(out), run.bytesOf("merged/profile_merged.json", 0));
  }

  void rankPicksThatRanksOwnTrace() {
    const FakeRun run = profiledRun();
    for (const int rank : {0, 1}) {
      const std::string out = path("r" + std::to_string(rank) + ".json");
      const std::string error = traceCommand(run, {"--rank", std::to_string(rank), "-o", out});
      QVERIFY2(error.empty(), error.c_str());
      QCOMPARE(fathom::test::readRaw(out), run.bytesOf("profile_" + std::to_string(rank) + ".json", rank));
    }
    const std::string error = traceCommand(run, {"--rank", "2"});
    QVERIFY2(error.find("run 7 (gpt) has no trace for rank 2.") != std::string::npos, error.c_str());
    QVERIFY2(error.find("profile_1.json  rank 1") != std::string::npos, error.c_str());  // the listing
  }

  /// --from/--to with --run: the chosen stored trace, cut to the range by exportTraceRange.
  void rangeOfAStoredTrace() {
    const FakeRun run = profiledRun();
    const std::string in = path("in_range.json");
    std::string error = traceCommand(run, {"--rank", "1", "--from", "0.5", "--to", "2", "-o", in});
    QVERIFY2(error.empty(), error.c_str());
    QVERIFY(fathom::test::readRaw(in).find("profile_1.json@1") != std::string::npos);
    const std::string out = path("out_of_range.json.gz");
    error = traceCommand(run, {"--rank", "1", "--from", "2", "-o", out});
    QVERIFY2(error.empty(), error.c_str());
    QVERIFY(fathom::trace::isGzip(fathom::test::readRaw(out)));
    QVERIFY(fathom::test::readText(out).find("profile_1.json@1") == std::string::npos);
    QVERIFY(fathom::test::readText(out).find("\"fathomExport\"") != std::string::npos);
    error = traceCommand(run, {"--from", "3", "--to", "1"});
    QVERIFY2(error.find("the range is empty") != std::string::npos, error.c_str());
  }

  void withoutAMergedTraceTheLowestRank() {
    // A single-process run, or a workspace written before merged traces were stored.
    FakeRun run;
    run.add("profile_1.json", 1);
    run.add("profile_0.json", 0);
    const std::string out = path("lowest.json");
    const std::string error = traceCommand(run, {"-o", out});
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(fathom::test::readRaw(out), run.bytesOf("profile_0.json", 0));
  }

  void allRanksIntoANewDirectory() {
    const FakeRun run = profiledRun();
    for (const std::string& dir : {path("new-dir") + "/", path("new-dir-no-slash"), path("nested/a/b/")}) {
      const std::string error = traceCommand(run, {"--rank", "all", "-o", dir});
      QVERIFY2(error.empty(), error.c_str());
      QCOMPARE(fathom::test::readRaw(fs::path(dir) / "profile_0.rank0.json"), run.bytesOf("profile_0.json", 0));
      QCOMPARE(fathom::test::readRaw(fs::path(dir) / "profile_1.rank1.json"), run.bytesOf("profile_1.json", 1));
      QVERIFY(!fs::exists(fs::path(dir) / "profile_merged.json"));  // every rank's own trace, not the merged one
    }
  }

  void oneTraceIntoADirectory() {
    const FakeRun run = profiledRun();
    // An existing directory, without a trailing '/': the file goes inside it, under its default name.
    fs::create_directory(path("existing"));
    std::string error = traceCommand(run, {"--rank", "1", "-o", path("existing")});
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(fathom::test::readRaw(path("existing/profile_1.rank1.json")), run.bytesOf("profile_1.json", 1));
    // A trailing '/' names a directory, created when missing.
    error = traceCommand(run, {"-o", path("fresh/")});
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(fathom::test::readRaw(path("fresh/profile_merged.json")), run.bytesOf("merged/profile_merged.json", 0));
  }

  void aFileInTheWayIsAClearError() {
    const FakeRun run = profiledRun();
    fathom::test::writeTraceFile(path("taken"), "x");
    const std::string error = traceCommand(run, {"--rank", "all", "-o", path("taken")});
    QVERIFY2(error.find("-o " + path("taken") +
                        " is a file, but --rank all writes one file per rank into a "
                        "directory") != std::string::npos,
             error.c_str());
    QCOMPARE(fathom::test::readRaw(path("taken")), std::string("x"));
  }

  void severalWindowsNeedAName() {
    FakeRun run;
    for (const std::string& window : {std::string("window_0/"), std::string("window_1/")}) {
      run.add(window + fathom::trace::mergedTraceFileName(true), 0);
      run.add(window + fathom::trace::rankTraceFileName(0, true), 0);
      run.add(window + fathom::trace::rankTraceFileName(1, true), 1);
    }
    std::string error = traceCommand(run, {});
    QVERIFY2(error.find("run 7 (gpt) has several traces: pass --name.") != std::string::npos, error.c_str());
    QVERIFY2(error.find("window_1/merged/profile_merged.json.gz  rank 0") != std::string::npos, error.c_str());
    error = traceCommand(run, {"--rank", "1"});
    QVERIFY2(error.find("has several traces for rank 1: pass --name.") != std::string::npos, error.c_str());
    // With --name, the choice is the named trace.
    const std::string out = path("w1.json.gz");
    error = traceCommand(run, {"--name", "window_1/profile_1.json.gz", "-o", out});
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(fathom::test::readText(out), run.bytesOf("window_1/profile_1.json.gz", 1));
  }
};

QTEST_GUILESS_MAIN(TestTraceCommand)
#include "tst_trace_command.moc"
