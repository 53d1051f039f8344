// SPDX-License-Identifier: Apache-2.0
// The environment report must state true facts about this machine: compared here against independent
// sources (sysconf, /proc/meminfo, the filesystem), not against the code under test.
#include <fathom/runtime/environment.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sched.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

class TestEnvironment : public QObject {
  Q_OBJECT

private slots:
  void factsMatchTheKernel() {
    const auto r = fathom::runtime::collectEnvironment();
    cpu_set_t set;
    CPU_ZERO(&set);
    QCOMPARE(sched_getaffinity(0, sizeof(set), &set), 0);
    QCOMPARE(r.system.cpuCores, CPU_COUNT(&set));

    // /proc/meminfo's MemTotal is physical memory minus what the kernel reserved at boot: a little less.
    QFile meminfo(u"/proc/meminfo"_s);
    QVERIFY(meminfo.open(QIODevice::ReadOnly));
    const QByteArray first = meminfo.readLine();  // "MemTotal:  24576000 kB"
    const qint64 memTotalKb = first.simplified().split(' ').at(1).toLongLong();
    QVERIFY(memTotalKb > 0);
    QVERIFY2(r.system.ramBytes >= quint64(memTotalKb) * 1024, "RAM below MemTotal");
    QVERIFY2(r.system.ramBytes < quint64(memTotalKb) * 1024 * 11 / 10, "RAM more than 10% above MemTotal");

    QVERIFY(r.system.platform.rfind("Linux-", 0) == 0);
    // Independent source: the version TorchConfigVersion.cmake reported at configure time.
    QCOMPARE(QString::fromStdString(r.libtorchVersion), QStringLiteral(FATHOM_TEST_TORCH_VERSION));
  }

  void glooFormsAOneRankGroup() {
    const auto r = fathom::runtime::collectEnvironment();
    QVERIFY2(r.glooAvailable, r.glooDetail.c_str());
  }

  void cudaFactsAreConsistent() {
    const auto r = fathom::runtime::collectEnvironment();
    // NCCL is only usable with a device, the library and LibTorch support together.
    QCOMPARE(r.ncclAvailable, r.ncclInLibtorch && r.cuda.ncclLoaded && r.cudaDeviceCount() > 0);
    QVERIFY(!r.cuda.driverDetail.empty());
    QVERIFY(!r.cuda.cuptiDetail.empty());
    if (!r.cuda.driverLoaded) {
      QCOMPARE(r.cudaDeviceCount(), 0);
    }
    // When CUPTI loaded, the file it names exists.
    if (r.cuptiAvailable) {
      QVERIFY2(QFile::exists(QString::fromStdString(r.cuda.cuptiLibrary)), r.cuda.cuptiLibrary.c_str());
    }
  }

  void defaultConfigIsReadFromXdgCache() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkpath(u"fathom"_s));
    QFile file(dir.filePath(u"fathom/default_config.yaml"_s));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("compute_environment: LOCAL_MACHINE\nnum_processes: 2\n");
    file.close();
    qputenv("XDG_CACHE_HOME", dir.path().toUtf8());
    const auto r = fathom::runtime::collectEnvironment({.checkGloo = false, .probeCuda = false});
    qunsetenv("XDG_CACHE_HOME");
    QVERIFY(r.defaultConfigExists);
    QCOMPARE(QString::fromStdString(r.defaultConfigContent),
             u"compute_environment: LOCAL_MACHINE\nnum_processes: 2\n"_s);
    const std::string text = fathom::runtime::formatEnvironmentText(r);
    QVERIFY(text.find("\tnum_processes: 2\n") != std::string::npos);
  }

  void jsonHasTheDocumentedKeys() {
    const auto r = fathom::runtime::collectEnvironment();
    const auto doc = QJsonDocument::fromJson(QByteArray::fromStdString(fathom::runtime::formatEnvironmentJson(r)));
    QVERIFY(doc.isObject());
    const QJsonObject o = doc.object();
    for (const char* key :
         {"fathom_version", "git_revision", "libtorch_version", "gloo_available", "nccl_available", "cuda_device_count",
          "cupti_available", "cpu_cores", "ram_bytes", "platform", "qt_version", "default_config_path"}) {
      QVERIFY2(o.contains(QLatin1String(key)), key);
    }
    QCOMPARE(o.value(u"cpu_cores"_s).toInt(), r.system.cpuCores);
    QCOMPARE(o.value(u"ram_bytes"_s).toDouble(), double(r.system.ramBytes));
    QCOMPARE(o.value(u"gloo_available"_s).toBool(), r.glooAvailable);
    QCOMPARE(o.value(u"cuda_device_count"_s).toInt(), r.cudaDeviceCount());
  }

  void textFollowsAccelerateEnvShape() {
    const auto r = fathom::runtime::collectEnvironment({.checkGloo = false, .probeCuda = false});
    const std::string text = fathom::runtime::formatEnvironmentText(r);
    for (const char* line : {"- `Fathom` version: ", "- Platform: ", "- System RAM: ", "- LibTorch version (GPU?): ",
                             "- c10d Gloo available: ", "- CUDA devices: ", "- CUPTI available: ", "- Qt version: ",
                             "- `Fathom` default config ("}) {
      QVERIFY2(text.find(line) != std::string::npos, line);
    }
  }
};

QTEST_GUILESS_MAIN(TestEnvironment)
#include "tst_environment.moc"
