// SPDX-License-Identifier: Apache-2.0
// Plan vs actual end to end (issue 18): `fathom launch --num_processes 2 fathom train --model gpt-tiny` stores the plan
// with the run, the ranks log their model-state bytes, collectives and (profiled) activations, and `fathom runs
// plan-vs-actual RUN --json` shows, for DDP, FSDP and ZeRO-3, parameters, gradients, optimizer states, master weights
// and every collective kind's count and bytes equal on both ranks; the activation difference the profiler measures
// is reported, not asserted. A run stored without a plan gets one with --compute (the ZeRO-3 run, its plan deleted).
#include "cli_runner.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

using namespace Qt::StringLiterals;
using fathom::test::runFathom;

class RunsPlanVsActualTest : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_workspace = m_dir.filePath(u"ws.sqlite"_s);
    fathom::test::useWorkspaceIn(m_dir);
  }

  void modelStatesAndCollectivesAreExact_data() {
    QTest::addColumn<QString>("strategy");
    for (const QString& s : {u"ddp"_s, u"fsdp"_s, u"zero3"_s}) {
      QTest::addRow("%s", qPrintable(s)) << s;
    }
  }

  void modelStatesAndCollectivesAreExact() {
    QFETCH(QString, strategy);
    // --log_every 3 with 3 steps: one steps_per_second (the step time) and one memory and collectives sample, at the
    // last step; the loss reduction of that log counts in the step after it. The profiler records step 3 (wait 1,
    // warmup 1, active 1), which gives the peak activations.
    const QString traces = m_dir.filePath(u"traces-"_s + strategy);
    const auto run = runFathom({u"launch"_s,
                                u"--num_processes"_s,
                                u"2"_s,
                                u"--quiet"_s,
                                u"--workspace"_s,
                                m_workspace,
                                fathom::test::fathomExecutable(),
                                u"train"_s,
                                u"--model"_s,
                                u"gpt-tiny"_s,
                                u"--strategy"_s,
                                strategy,
                                u"--optimizer"_s,
                                u"adamw"_s,
                                u"--batch_size"_s,
                                u"4"_s,
                                u"--steps"_s,
                                u"3"_s,
                                u"--log_every"_s,
                                u"3"_s,
                                u"--profile"_s,
                                u"--profile_dir"_s,
                                traces,
                                u"--profile_schedule"_s,
                                u"1,1,1,1"_s},
                               fathom::test::launcherFreeEnvironment(), {}, 180'000);
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    const auto listed = runFathom({u"runs"_s, u"list"_s, u"--workspace"_s, m_workspace, u"--json"_s});
    const QJsonArray runs = QJsonDocument::fromJson(listed.out).array();
    QVERIFY(!runs.isEmpty());
    const QString id = QString::number(runs.last().toObject()[u"id"_s].toInt());

    if (strategy == u"zero3"_s) {
      // The same run without its stored plan (as a run launched before schema 7): --compute makes the same one from
      // the run's specification and command, stores it, and the comparison below runs on it.
      QVERIFY(forgetPlans());
      const auto refused = runFathom({u"runs"_s, u"plan-vs-actual"_s, id, u"--workspace"_s, m_workspace});
      QVERIFY2(refused.exitCode != 0 && refused.err.contains("--compute"), refused.err.constData());
      const auto computed =
          runFathom({u"runs"_s, u"plan-vs-actual"_s, id, u"--workspace"_s, m_workspace, u"--compute"_s});
      QVERIFY2(computed.exitCode == 0, qPrintable(fathom::test::describe(computed)));
      QVERIFY2(computed.out.contains("(computed)"), computed.out.constData());
    }
    const auto compared = runFathom({u"runs"_s, u"plan-vs-actual"_s, id, u"--workspace"_s, m_workspace, u"--json"_s});
    QVERIFY2(compared.exitCode == 0, qPrintable(fathom::test::describe(compared)));
    const QJsonObject result = QJsonDocument::fromJson(compared.out).object();
    QCOMPARE(result[u"run"_s].toInt(), id.toInt());
    const QJsonArray ranks = result[u"ranks"_s].toArray();
    QCOMPARE(ranks.size(), 2);
    for (const QJsonValue& item : ranks) {
      const QJsonObject rank = item.toObject();
      const int r = rank[u"rank"_s].toInt();
      const QJsonObject memory = rank[u"memory"_s].toObject();
      for (const QString& key : {u"parameters"_s, u"gradients"_s, u"optimizer_states"_s, u"master_weights"_s}) {
        const QJsonObject c = memory[key].toObject();
        QVERIFY2(!c[u"measured"_s].isNull(), qPrintable(u"rank %1 %2 unmeasured"_s.arg(r).arg(key)));
        QVERIFY2(c[u"predicted"_s].toInteger() == c[u"measured"_s].toInteger(),
                 qPrintable(u"rank %1 %2: predicted %3, measured %4"_s.arg(r)
                                .arg(key)
                                .arg(c[u"predicted"_s].toInteger())
                                .arg(c[u"measured"_s].toInteger())));
      }
      QVERIFY(memory[u"parameters"_s].toObject()[u"measured"_s].toInteger() > 0);
      const QJsonObject collectives = rank[u"collectives"_s].toObject();
      QVERIFY(!collectives.isEmpty());
      for (auto it = collectives.begin(); it != collectives.end(); ++it) {
        const QJsonObject c = it.value().toObject();
        QVERIFY2(c[u"predicted"_s] == c[u"measured"_s],
                 qPrintable(u"rank %1 %2: predicted %3, measured %4"_s.arg(r)
                                .arg(it.key())
                                .arg(QString::fromUtf8(
                                    QJsonDocument(c[u"predicted"_s].toObject()).toJson(QJsonDocument::Compact)))
                                .arg(QString::fromUtf8(
                                    QJsonDocument(c[u"measured"_s].toObject()).toJson(QJsonDocument::Compact)))));
      }
      // Reported, not asserted equal: the planner's activations against the profiler's peak.
      const QJsonObject activations = memory[u"activations"_s].toObject();
      QVERIFY2(!activations[u"measured"_s].isNull(), "the profiler measured no activations");
      const QJsonObject step = rank[u"step_s"_s].toObject();
      QVERIFY(step[u"measured"_s].toDouble() > 0);
      qInfo("%s rank %d: activations predicted %lld B, measured %lld B (%+lld B); step predicted %.4g s, measured "
            "%.4g s",
            qPrintable(strategy), r, activations[u"predicted"_s].toInteger(), activations[u"measured"_s].toInteger(),
            activations[u"measured"_s].toInteger() - activations[u"predicted"_s].toInteger(),
            step[u"predicted"_s].toDouble(), step[u"measured"_s].toDouble());
    }
    // The text form says "exact" for what is equal.
    const auto text = runFathom({u"runs"_s, u"plan-vs-actual"_s, id, u"--workspace"_s, m_workspace});
    QVERIFY2(text.exitCode == 0, qPrintable(fathom::test::describe(text)));
    QVERIFY2(text.out.contains("Rank 1") && text.out.contains("exact"), text.out.constData());
  }

  // A local run is planned on the profile `fathom calibrate` measured here when there is one (issue 24): the stored
  // plan names this-machine; without the profile, cpu-host.
  void aLocalRunIsPlannedOnThisMachinesProfile() {
    QTemporaryDir config;
    QVERIFY(QDir().mkpath(config.filePath(u"fathom/hardware"_s)));
    QVERIFY(QFile::copy(QStringLiteral(FATHOM_TEST_DATA_DIR) + u"/hardware/this-machine-quick.yaml"_s,
                        config.filePath(u"fathom/hardware/this-machine.yaml"_s)));
    for (const bool calibrated : {true, false}) {
      QProcessEnvironment env = fathom::test::launcherFreeEnvironment();
      env.insert(u"XDG_CONFIG_HOME"_s, calibrated ? config.path() : m_dir.filePath(u"no-config"_s));
      const auto run = runFathom({u"launch"_s, u"--num_processes"_s, u"1"_s, u"--quiet"_s, u"--workspace"_s,
                                  m_workspace, u"--run_name"_s, calibrated ? u"calibrated"_s : u"preset"_s,
                                  fathom::test::fathomExecutable(), u"train"_s, u"--model"_s, u"mlp"_s, u"--hidden"_s,
                                  u"16"_s, u"--steps"_s, u"2"_s, u"--log_every"_s, u"0"_s},
                                 env, {}, 120'000);
      QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
      const auto text = runFathom(
          {u"runs"_s, u"plan-vs-actual"_s, calibrated ? u"calibrated"_s : u"preset"_s, u"--workspace"_s, m_workspace});
      QVERIFY2(text.exitCode == 0, qPrintable(fathom::test::describe(text)));
      const QByteArray expected = calibrated ? "x this-machine" : "x cpu-host";
      QVERIFY2(text.out.contains(expected), text.out.constData());
    }
  }

  // --hardware plans a run again on other hardware (a recalibrated profile) without touching its stored plan.
  void aRunIsPlannedAgainOnOtherHardware() {
    const QString profile = QStringLiteral(FATHOM_TEST_DATA_DIR) + u"/hardware/this-machine-quick.yaml"_s;
    const auto run =
        runFathom({u"launch"_s, u"--num_processes"_s, u"1"_s, u"--quiet"_s, u"--workspace"_s, m_workspace,
                   u"--run_name"_s, u"what-if"_s, fathom::test::fathomExecutable(), u"train"_s, u"--model"_s, u"mlp"_s,
                   u"--hidden"_s, u"16"_s, u"--steps"_s, u"2"_s, u"--log_every"_s, u"1"_s},
                  noProfileEnvironment(), {}, 120'000);
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    // The JSON object of plan-vs-actual with `extra` flags, or {"error": stderr}.
    auto planJson = [this](const QStringList& extra) {
      const auto r = runFathom(
          QStringList{u"runs"_s, u"plan-vs-actual"_s, u"what-if"_s, u"--workspace"_s, m_workspace, u"--json"_s} +
          extra);
      return r.exitCode == 0 ? QJsonDocument::fromJson(r.out).object()
                             : QJsonObject{{u"error"_s, QString::fromUtf8(r.err)}};
    };
    auto rank0Step = [](const QJsonObject& j) {
      return j[u"ranks"_s].toArray()[0].toObject()[u"step_s"_s].toObject()[u"predicted"_s].toDouble();
    };
    const QJsonObject stored = planJson({});
    QVERIFY2(stored.contains(u"plan"_s), QJsonDocument(stored).toJson().constData());
    QCOMPARE(stored[u"plan"_s][u"source"_s].toString(), u"launch"_s);
    QCOMPARE(stored[u"plan"_s][u"hardware"_s].toString(), u"cpu-host"_s);
    const QJsonObject again = planJson({u"--hardware"_s, profile});
    QVERIFY2(again.contains(u"plan"_s), QJsonDocument(again).toJson().constData());
    QCOMPARE(again[u"plan"_s][u"source"_s].toString(), u"recomputed"_s);
    QCOMPARE(again[u"plan"_s][u"hardware"_s].toString(), u"this-machine"_s);
    const double predicted = rank0Step(again);
    QVERIFY(predicted > 0 && predicted != rank0Step(stored));
    QCOMPARE(again[u"plan"_s][u"time"_s][u"step_s"_s].toDouble(), predicted);
    // Nothing stored: the run's plan is still the one it was launched with.
    QCOMPARE(planJson({})[u"plan"_s][u"hardware"_s].toString(), u"cpu-host"_s);
    const QJsonObject unknown = planJson({u"--hardware"_s, u"no-such-box"_s});
    QVERIFY2(unknown[u"error"_s].toString().contains(u"no-such-box"_s), QJsonDocument(unknown).toJson().constData());
  }

  void aRunWithoutAPlanGetsOneWithCompute() {
    // A program the planner does not know is launched without a plan; plan-vs-actual says how to get one, and
    // --compute says why it cannot.
    const auto run = runFathom({u"launch"_s, u"--num_processes"_s, u"1"_s, u"--quiet"_s, u"--workspace"_s, m_workspace,
                                u"--run_name"_s, u"shell"_s, u"true"_s},
                               fathom::test::launcherFreeEnvironment());
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    auto compared = runFathom({u"runs"_s, u"plan-vs-actual"_s, u"shell"_s, u"--workspace"_s, m_workspace});
    QVERIFY(compared.exitCode != 0);
    QVERIFY2(compared.err.contains("--compute"), compared.err.constData());
    compared = runFathom({u"runs"_s, u"plan-vs-actual"_s, u"shell"_s, u"--workspace"_s, m_workspace, u"--compute"_s});
    QVERIFY(compared.exitCode != 0);
    QVERIFY2(compared.err.contains("fathom train"), compared.err.constData());
  }

private:
  /// The launcher's clean environment with a configuration folder that has no hardware profile: a local run is
  /// planned on cpu-host, whatever the user running the tests calibrated.
  QProcessEnvironment noProfileEnvironment() const {
    QProcessEnvironment env = fathom::test::launcherFreeEnvironment();
    env.insert(u"XDG_CONFIG_HOME"_s, m_dir.filePath(u"no-config"_s));
    return env;
  }

  /// Deletes every stored run plan, with SQLite directly (no Fathom API forgets a plan).
  bool forgetPlans() const {
    sqlite3* db = nullptr;
    const bool opened = sqlite3_open(m_workspace.toUtf8().constData(), &db) == SQLITE_OK;
    const bool deleted = opened && sqlite3_exec(db, "DELETE FROM run_plans", nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return deleted;
  }

  QTemporaryDir m_dir;
  QString m_workspace;
};

QTEST_GUILESS_MAIN(RunsPlanVsActualTest)
#include "tst_runs_plan_vs_actual.moc"
