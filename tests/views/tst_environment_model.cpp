// SPDX-License-Identifier: Apache-2.0
#include "common/environment_model.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace Qt::StringLiterals;
using fathom::views::EnvironmentModel;

namespace {
fathom::runtime::EnvironmentReport fixture() {
  fathom::runtime::EnvironmentReport r;
  r.build.version = "0.1.0";
  r.build.gitRevision = "abc123";
  r.build.buildType = "Release";
  r.system.platform = "Linux-6.1-x86_64-with-glibc2.36";
  r.system.cpuModel = "Test CPU";
  r.system.cpuCores = 2;
  r.system.ramBytes = 24ULL << 30;
  r.libtorchVersion = "1.13.0";
  r.glooAvailable = true;
  r.glooDetail = "one-rank group on 127.0.0.1 formed";
  r.ncclDetail = "LibTorch was built without c10d NCCL";
  r.cuda.devices.push_back({.index = 0,
                            .name = "NVIDIA H100 80GB HBM3",
                            .totalMemoryBytes = 80ULL << 30,
                            .computeCapabilityMajor = 9,
                            .computeCapabilityMinor = 0});
  r.cuptiAvailable = true;
  r.defaultConfigPath = "/home/u/.cache/fathom/default_config.yaml";
  return r;
}

QStringList dump(const QAbstractItemModel& m) {
  QStringList rows;
  for (int i = 0; i < m.rowCount(); ++i) {
    const QModelIndex v = m.index(i, EnvironmentModel::ValueColumn);
    const QVariant available = v.data(EnvironmentModel::AvailableRole);
    rows << u"%1=%2%3"_s.arg(v.data(EnvironmentModel::KeyRole).toString(), v.data().toString().section(u'\n', 0, 0),
                             available.isValid() ? (available.toBool() ? u" [ok]"_s : u" [missing]"_s) : QString());
  }
  return rows;
}
}  // namespace

class TestEnvironmentModel : public QObject {
  Q_OBJECT

private slots:
  void emptyUntilReport() {
    EnvironmentModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), int(EnvironmentModel::ColumnCount));
    QVERIFY(!model.hasReport());
  }

  void rowsFollowTheReport() {
    EnvironmentModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setReport(fixture());
    const QStringList expected = {
        u"fathom_version=0.1.0 (git abc123, Release)"_s,
        u"platform=Linux-6.1-x86_64-with-glibc2.36"_s,
        u"cpu_cores=Test CPU, 2 core(s)"_s,
        u"ram_bytes=24.0 GiB"_s,
        u"libtorch_version=1.13.0 (CPU only)"_s,
        u"gloo_available=available [ok]"_s,
        u"nccl_available=not available [missing]"_s,
        u"cuda_device_count=1 CUDA device(s) [ok]"_s,
        u"cupti_available=available [ok]"_s,
        u"qt_version=CLI-only build"_s,
        u"default_config_path=/home/u/.cache/fathom/default_config.yaml (not found) [missing]"_s,
    };
    QCOMPARE(dump(model), expected);
    QCOMPARE(model.index(7, EnvironmentModel::ValueColumn).data().toString().section(u'\n', 1),
             u"cuda:0 NVIDIA H100 80GB HBM3 (80.0 GiB)"_s);
    QCOMPARE(model.index(5, EnvironmentModel::ValueColumn).data(Qt::ToolTipRole).toString(),
             u"one-rank group on 127.0.0.1 formed"_s);
    QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), u"Property"_s);
  }
};

QTEST_GUILESS_MAIN(TestEnvironmentModel)
#include "tst_environment_model.moc"
