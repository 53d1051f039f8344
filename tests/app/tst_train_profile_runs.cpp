// SPDX-License-Identifier: Apache-2.0
// Issue 20: two `fathom train --profile` runs with the same --profile_dir overwrote each other's trace files, and the
// first run's artifact rows then pointed at the second run's files. Each run recorded in a workspace now writes into
// its own folder, run_<id>/ (trace_file_names.h), says so in its trace ("fathom": {"run_id": N}), and its artifact
// rows point at its own files; a trace file is never replaced.
#include "cli_runner.h"

#include <fathom/store/workspace.h>
#include <fathom/trace/trace_reader.h>
#include <fathom/trace/trace_summary.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <filesystem>

using namespace Qt::StringLiterals;

namespace {

/// The bytes of a file ("(missing)" when it cannot be read).
QByteArray bytesOf(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(missing)");
}

}  // namespace

class TestTrainProfileRuns : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  fathom::test::CliRun train(const QString& workspace, const QString& profileDir) const {
    return fathom::test::runFathom({u"train"_s, u"--model"_s, u"mlp"_s, u"--steps"_s, u"2"_s, u"--log_every"_s, u"0"_s,
                                    u"--workspace"_s, workspace, u"--profile"_s, u"--profile_dir"_s, profileDir,
                                    u"--profile_schedule"_s, u"0,0,1,1"_s},
                                   QProcessEnvironment::systemEnvironment(), {}, 180'000);
  }

private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    fathom::test::useWorkspaceIn(m_dir);
  }

  void twoRunsInOneFolderKeepTheirOwnTraces() {
    const QString workspace = m_dir.filePath(u"ws.sqlite"_s);
    const QString profileDir = m_dir.filePath(u"traces"_s);
    for (int i = 0; i < 2; ++i) {
      const fathom::test::CliRun r = train(workspace, profileDir);
      QVERIFY2(r.exitCode == 0, qPrintable(fathom::test::describe(r)));
    }
    fathom::store::Workspace ws(workspace.toStdString());
    const auto runs = ws.listRuns();
    QCOMPARE(runs.size(), std::size_t{2});
    std::vector<std::string> paths;
    for (const auto& run : runs) {
      std::vector<std::string> traces;
      for (const auto& a : ws.artifacts(run.id)) {
        if (a.artifact.kind == fathom::store::ArtifactKind::Trace) {
          traces.push_back(a.artifact.path);
        }
      }
      QCOMPARE(traces.size(), std::size_t{1});
      const std::string& path = traces.front();
      // In the run's own folder, whole, loadable, and written by this run.
      const std::string expected =
          (std::filesystem::path(profileDir.toStdString()) / ("run_" + std::to_string(run.id.value)) / "profile_0.json")
              .string();
      QCOMPARE(std::filesystem::weakly_canonical(path).string(), std::filesystem::weakly_canonical(expected).string());
      QVERIFY2(fathom::trace::summarizeTrace(path).events > 0, path.c_str());
      const nlohmann::json metadata = fathom::trace::TraceReader::readMetadata(path);
      QCOMPARE(metadata.at("fathom").at("run_id").get<std::int64_t>(), run.id.value);
      // The artifact's file is the trace this run streamed to the workspace, byte for byte.
      QCOMPARE(bytesOf(QString::fromStdString(path)),
               QByteArray::fromStdString(ws.traceData(run.id, "profile_0.json", 0)));
      paths.push_back(path);
    }
    QVERIFY(paths[0] != paths[1]);
    QVERIFY(bytesOf(QString::fromStdString(paths[0])) != bytesOf(QString::fromStdString(paths[1])));
    QVERIFY(QDir(profileDir).entryList({u"*.partial"_s}, QDir::Files).isEmpty());
  }

  /// A trace already at the profile directory's top (an older Fathom's, or a program's without a workspace) is left
  /// alone: the run writes into its own folder.
  void aTraceOutsideTheRunFolderIsLeftAlone() {
    const QString profileDir = m_dir.filePath(u"plain"_s);
    QVERIFY(QDir().mkpath(profileDir));
    QFile previous(profileDir + u"/profile_0.json"_s);
    QVERIFY(previous.open(QIODevice::WriteOnly));
    previous.write("{\"traceEvents\":[]}");
    previous.close();
    const fathom::test::CliRun r =
        fathom::test::runFathom({u"train"_s, u"--model"_s, u"mlp"_s, u"--steps"_s, u"2"_s, u"--log_every"_s, u"0"_s,
                                 u"--workspace"_s, m_dir.filePath(u"ws2.sqlite"_s), u"--profile"_s, u"--profile_dir"_s,
                                 profileDir, u"--profile_schedule"_s, u"0,0,1,1"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(fathom::test::describe(r)));
    QCOMPARE(bytesOf(previous.fileName()), QByteArray("{\"traceEvents\":[]}"));
    QVERIFY(QFile::exists(profileDir + u"/run_1/profile_0.json"_s));
  }
};

QTEST_GUILESS_MAIN(TestTrainProfileRuns)
#include "tst_train_profile_runs.moc"
