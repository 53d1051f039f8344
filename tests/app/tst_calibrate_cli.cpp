// SPDX-License-Identifier: Apache-2.0
// `fathom calibrate --quick` as a user runs it: real Gloo ranks on 127.0.0.1, the profile written to --output and
// read back by `fathom plan --hardware FILE` and (from the user's config folder) `--hardware this-machine`, listed by
// `fathom env`; and the errors for bad flags and a missing profile.
#include "cli_runner.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using fathom::test::CliRun;
using fathom::test::describe;
using fathom::test::runFathom;

namespace {
/// The user's config folder in `config`, no FATHOM_* of the machine, no launcher variables.
QProcessEnvironment isolated(const QTemporaryDir& config) {
  QProcessEnvironment env = fathom::test::launcherFreeEnvironment();
  for (const QString& name : env.keys()) {
    if (name.startsWith(u"FATHOM_"_s) && name != u"FATHOM_WORKSPACE"_s) {
      env.remove(name);
    }
  }
  env.insert(u"XDG_CONFIG_HOME"_s, config.path());
  env.insert(u"XDG_CACHE_HOME"_s, config.filePath(u"cache"_s));
  return env;
}

QStringList planArgs(const QString& hardware) {
  return {u"plan"_s, u"--model"_s,    u"gpt-small"_s, u"--num_processes"_s, u"2"_s, u"--hardware"_s,
          hardware,  u"--strategy"_s, u"ddp"_s,       u"--micro_batch"_s,   u"1"_s, u"--json"_s};
}
}  // namespace

class TestCalibrateCli : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() { fathom::test::useWorkspaceIn(m_workspace); }

  void quickCalibrationFeedsThePlanner() {
    QTemporaryDir config;
    const QProcessEnvironment env = isolated(config);
    const QString output = config.filePath(u"out/profile.yaml"_s);
    const CliRun r = runFathom({u"calibrate"_s, u"--quick"_s, u"--device"_s, u"cpu"_s, u"--max_processes"_s, u"2"_s,
                                u"--output"_s, output, u"--json"_s},
                               env, {}, 60'000);
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    // The progress bar reached its end: per (processes, threads) in {1, 2} x {1, 2}, 2 dtypes x 3 layouts and the
    // element-wise and optimizer steps (32), the memory (1), 4 collectives x 4 sizes (16).
    QVERIFY2(r.err.contains("49/49"), r.err.constData());
    const QJsonObject o = fathom::test::stdoutJson(r).object();
    QCOMPARE(o[u"path"_s].toString(), output);
    QCOMPARE(o[u"hardware"_s][u"name"_s].toString(), u"this-machine"_s);
    QCOMPARE(o[u"hardware"_s][u"device"_s].toString(), u"cpu"_s);
    const QJsonObject c = o[u"calibration"_s].toObject();
    QCOMPARE(c[u"backend"_s].toString(), u"gloo"_s);
    QCOMPARE(c[u"mode"_s].toString(), u"quick"_s);
    QVERIFY(c[u"seconds"_s].toDouble() > 0 && c[u"seconds"_s].toDouble() < 60);
    QVERIFY(!c[u"matmul"_s].toArray().isEmpty());
    for (const auto& m : c[u"matmul"_s].toArray()) {
      QVERIFY(m[u"flops"_s].toDouble() > 0);
    }
    const QJsonArray collectives = c[u"collectives"_s].toArray();
    QCOMPARE(collectives.size(), 4);
    for (const auto& f : collectives) {
      QCOMPARE(f[u"ranks"_s].toInt(), 2);
      QVERIFY(f[u"beta"_s].toDouble() > 0);
      QVERIFY(f[u"alpha"_s].toDouble() >= 0);
      QCOMPARE(f[u"points"_s].toArray().size(), 4);  // --quick: 1 KiB, 16 KiB, 256 KiB, 4 MiB
    }
    QVERIFY(QFile::exists(output));
    QVERIFY(!QFile::exists(output + u".partial"_s));
    QVERIFY2(!QDir(config.filePath(u"fathom/hardware"_s)).exists(), "--output wrote the default place too");

    // The planner reads the file by path...
    const CliRun byPath = runFathom(planArgs(output), env);
    QVERIFY2(byPath.exitCode == 0, qPrintable(describe(byPath)));
    const QJsonObject plan = fathom::test::stdoutJson(byPath).object();
    QCOMPARE(plan[u"hardware"_s][u"name"_s].toString(), u"this-machine"_s);
    QCOMPARE(plan[u"hardware"_s][u"source"_s].toString(), output);
    QCOMPARE(plan[u"hardware"_s][u"device"_s].toString(), u"cpu"_s);
    QVERIFY(plan[u"time"_s][u"step_s"_s].toDouble() > 0);
    // --explain names the calibration behind the peak and the link: the profile, when and where it was measured.
    QStringList explain = planArgs(output);
    explain.removeAll(u"--json"_s);
    const CliRun explained = runFathom(explain << u"--explain"_s, env);
    QVERIFY2(explained.exitCode == 0, qPrintable(describe(explained)));
    QVERIFY2(explained.out.contains("hardware.peak_flops_per_gpu") &&
                 explained.out.contains("hardware.intra_node_bandwidth"),
             explained.out.constData());
    QVERIFY2(explained.out.contains("measured_at=" + c[u"measured_at"_s].toString().toUtf8()),
             explained.out.constData());
    QVERIFY2(explained.out.contains("source:  calibration"), explained.out.constData());

    // ...and by name from the user's config folder, where `fathom calibrate` writes it by default.
    QVERIFY(QDir().mkpath(config.filePath(u"fathom/hardware"_s)));
    QVERIFY(QFile::copy(output, config.filePath(u"fathom/hardware/this-machine.yaml"_s)));
    const CliRun byName = runFathom(planArgs(u"this-machine"_s), env);
    QVERIFY2(byName.exitCode == 0, qPrintable(describe(byName)));
    QCOMPARE(fathom::test::stdoutJson(byName).object()[u"hardware"_s][u"name"_s].toString(), u"this-machine"_s);

    // --check: a second, independent calibration against the first profile's fits, every point compared.
    const CliRun checked =
        runFathom({u"calibrate"_s, u"--quick"_s, u"--device"_s, u"cpu"_s, u"--max_processes"_s, u"2"_s, u"--output"_s,
                   config.filePath(u"out/again.yaml"_s), u"--check"_s, output, u"--json"_s},
                  env, {}, 60'000);
    QVERIFY2(checked.exitCode == 0, qPrintable(describe(checked)));
    const QJsonObject check = fathom::test::stdoutJson(checked).object()[u"check"_s].toObject();
    QCOMPARE(check[u"profile"_s].toString(), output);
    const QJsonArray points = check[u"points"_s].toArray();
    QCOMPARE(points.size(), 4 * 4);  // 4 collectives x 4 sizes at 2 ranks
    for (const auto& point : points) {
      const double predicted = point[u"predicted_s"_s].toDouble();
      const double measured = point[u"measured_s"_s].toDouble();
      QVERIFY(predicted > 0 && measured > 0);
      QCOMPARE(point[u"error"_s].toDouble(), predicted / measured - 1.0);
    }

    // `fathom env` lists it with its measured-at time.
    const CliRun env1 = runFathom({u"env"_s, u"--json"_s, u"--skip_gloo_check"_s}, env);
    QVERIFY2(env1.exitCode == 0, qPrintable(describe(env1)));
    const QJsonArray profiles = fathom::test::stdoutJson(env1).object()[u"hardware_profiles"_s].toArray();
    QCOMPARE(profiles.size(), 1);
    QCOMPARE(profiles[0][u"name"_s].toString(), u"this-machine"_s);
    QCOMPARE(profiles[0][u"measured_at"_s].toString(), c[u"measured_at"_s].toString());
    const CliRun envText = runFathom({u"env"_s, u"--skip_gloo_check"_s}, env);
    QVERIFY2(envText.out.contains("this-machine: measured at " + c[u"measured_at"_s].toString().toUtf8()),
             envText.out.constData());
  }

  void missingProfileSaysToCalibrate() {
    QTemporaryDir config;
    const CliRun r = runFathom(planArgs(u"this-machine"_s), isolated(config));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("run `fathom calibrate`"), r.err.constData());
  }

  void badFlags_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("quick and thorough") << QStringList{u"--quick"_s, u"--thorough"_s} << QByteArray("excludes");
    QTest::newRow("one process") << QStringList{u"--quick"_s, u"--device"_s, u"cpu"_s, u"--max_processes"_s, u"1"_s}
                                 << QByteArray("--max_processes must be >= 2");
    QTest::newRow("zero processes") << QStringList{u"--max_processes"_s, u"0"_s} << QByteArray("--max_processes");
    QTest::newRow("device") << QStringList{u"--device"_s, u"tpu"_s} << QByteArray("--device");
    // Read before anything is measured: refused in a moment.
    QTest::newRow("check a missing profile")
        << QStringList{u"--check"_s, u"/nonexistent/box.yaml"_s} << QByteArray("box.yaml");
  }
  void badFlags() {
    QFETCH(QStringList, args);
    QFETCH(QByteArray, expected);
    QTemporaryDir config;
    const CliRun r = runFathom(QStringList{u"calibrate"_s} + args, isolated(config));
    QVERIFY2(r.exitCode != 0, qPrintable(describe(r)));
    QVERIFY2(r.err.contains(expected), r.err.constData());
  }

private:
  QTemporaryDir m_workspace;
};

QTEST_GUILESS_MAIN(TestCalibrateCli)
#include "tst_calibrate_cli.moc"
