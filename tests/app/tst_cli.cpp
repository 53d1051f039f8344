// SPDX-License-Identifier: Apache-2.0
// Drives the real `fathom` executable as a user would and checks what it prints against the machine.
#include "cli_runner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sched.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace {
using Run = fathom::test::CliRun;
using fathom::test::runFathom;
}  // namespace

class TestCli : public QObject {
  Q_OBJECT

private slots:
  void versionAndHelp() {
    const Run v = runFathom({u"--version"_s});
    QCOMPARE(v.exitCode, 0);
    QVERIFY2(v.out.startsWith("fathom 0."), v.out.constData());
    QVERIFY(v.out.contains("LibTorch "));

    const Run h = runFathom({u"--help"_s});
    QCOMPARE(h.exitCode, 0);
    QVERIFY(h.out.contains("env"));
    QVERIFY(h.out.contains("SUBCOMMANDS") || h.out.contains("Subcommands"));

    const Run bare = runFathom({});
    QCOMPARE(bare.exitCode, 0);
    QCOMPARE(bare.out, h.out);
  }

  void unknownCommandIsAUsageError() {
    const Run r = runFathom({u"frobnicate"_s});
    QCOMPARE(r.exitCode, 109);  // CLI11's ExtrasError; printed with the offending word
    QVERIFY2(r.err.contains("frobnicate"), r.err.constData());
  }

  // Issue 20: an argument that is not UTF-8 is refused before anything else, naming it (and the flag it is the value
  // of), escaped: it failed deep inside with "[json.exception.type_error.316] invalid UTF-8 byte at index 9: 0xFF".
  void argumentsMustBeUtf8() {
    // QProcess encodes arguments as UTF-8, so the raw byte goes through a shell's printf.
    QProcess p;
    p.setProgram(u"/bin/sh"_s);
    p.setArguments({u"-c"_s, u"exec \"$0\" launch --num_processes 1 /bin/echo \"$(printf 'a\\377b')\""_s,
                    fathom::test::fathomExecutable()});
    p.start();
    QVERIFY(p.waitForFinished(60'000));
    const QByteArray err = p.readAllStandardError();
    QCOMPARE(p.exitCode(), 2);
    QCOMPARE(err, QByteArray("fathom: error: argument 5 'a\\xffb' is not valid UTF-8 (byte 2): Fathom reads and "
                             "records arguments as UTF-8 text; pass the name in UTF-8 (rename the file if its name is "
                             "not)\n"));
    p.setArguments({u"-c"_s, u"exec \"$0\" plan --params 1e9 --hardware \"$(printf '\\033[2J\\377')\""_s,
                    fathom::test::fathomExecutable()});
    p.start();
    QVERIFY(p.waitForFinished(60'000));
    QCOMPARE(p.exitCode(), 2);
    QCOMPARE(p.readAllStandardError(),
             QByteArray("fathom: error: argument 5 '\\x1b[2J\\xff' (the value of --hardware) is not valid UTF-8 "
                        "(byte 5): Fathom reads and records arguments as UTF-8 text; pass the name in UTF-8 (rename "
                        "the file if its name is not)\n"));
  }

  void envJsonStatesTheMachine() {
    QTemporaryDir cache;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(u"XDG_CACHE_HOME"_s, cache.path());
    const Run r = runFathom({u"env"_s, u"--json"_s}, env);
    QCOMPARE(r.exitCode, 0);
    QJsonParseError error;
    const auto doc = QJsonDocument::fromJson(r.out, &error);
    QVERIFY2(doc.isObject(), qPrintable(error.errorString()));
    const QJsonObject o = doc.object();

    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof(set), &set);
    QCOMPARE(o.value(u"cpu_cores"_s).toInt(), CPU_COUNT(&set));
    QCOMPARE(o.value(u"ram_bytes"_s).toDouble(), double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE)));
    QVERIFY(o.value(u"fathom_version"_s).toString().startsWith(u"0."_s));
    QVERIFY(!o.value(u"libtorch_version"_s).toString().isEmpty());
    QVERIFY(o.value(u"gloo_available"_s).toBool());
    QVERIFY(o.value(u"nccl_available"_s).isBool());
    QVERIFY(o.value(u"cupti_available"_s).isBool());
    QCOMPARE(o.value(u"cuda_device_count"_s).toInt(), o.value(u"cuda_devices"_s).toArray().size());
    QCOMPARE(o.value(u"default_config_path"_s).toString(), cache.path() + u"/fathom/default_config.yaml"_s);
    QVERIFY(o.value(u"default_config"_s).isNull());
  }

  void envTextPrintsTheConfigFile() {
    QTemporaryDir cache;
    QVERIFY(QDir(cache.path()).mkpath(u"fathom"_s));
    QFile f(cache.filePath(u"fathom/default_config.yaml"_s));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("mixed_precision: bf16\n");
    f.close();
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(u"XDG_CACHE_HOME"_s, cache.path());
    const Run r = runFathom({u"env"_s}, env);
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith("Copy-and-paste the text below in your GitHub issue"));
    QVERIFY(r.out.contains("\tmixed_precision: bf16\n"));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
