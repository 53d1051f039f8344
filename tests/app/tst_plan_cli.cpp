// SPDX-License-Identifier: Apache-2.0
// Drives `fathom plan`, `fathom plan search` and `fathom estimate-memory` as a user would: JSON keys, flag
// spellings, plan files, and clear errors for bad input.
#include "cli_runner.h"
#include "safetensors_bytes.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {
using Run = fathom::test::CliRun;
using fathom::test::runFathom;
QJsonObject json(const Run& r) {
  QJsonParseError error;
  const auto doc = QJsonDocument::fromJson(r.out, &error);
  if (!doc.isObject()) {
    qWarning("not JSON (%s): %s", qPrintable(error.errorString()), r.out.constData());
  }
  return doc.object();
}

QString config(const char* name) {
  return QStringLiteral(FATHOM_TEST_DATA_DIR "/hf_configs/") + QLatin1String(name) + u"/config.json"_s;
}

/// No launcher variables, no FATHOM_* or ACCELERATE_* of the machine, no default configuration file (the cache is
/// `cache`), the workspace in `cache`.
QProcessEnvironment isolated(const QTemporaryDir& cache) {
  QProcessEnvironment env = fathom::test::launcherFreeEnvironment();
  for (const QString& name : env.keys()) {
    if (name.startsWith(u"FATHOM_"_s) || name == u"HF_HOME"_s) {
      env.remove(name);
    }
  }
  env.insert(u"XDG_CACHE_HOME"_s, cache.path());
  env.insert(u"HF_HOME"_s, cache.filePath(u"hf"_s));
  env.insert(u"FATHOM_WORKSPACE"_s, cache.filePath(u"fathom.sqlite"_s));
  return env;
}

void writeText(const QString& path, const QByteArray& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(text);
}
}  // namespace

class TestPlanCli : public QObject {
  Q_OBJECT

private slots:
  void jsonKeys() {
    const Run r = runFathom({u"plan"_s, u"--hf_config"_s, config("llama-2-7b"), u"--num_gpus"_s, u"16"_s,
                             u"--strategy"_s, u"fsdp"_s, u"--fsdp_sharding_strategy"_s, u"full_shard"_s,
                             u"--micro_batch"_s, u"2"_s, u"--seq"_s, u"4096"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = json(r);
    QCOMPARE(o[u"model"_s][u"total_params"_s].toDouble(), 6738415616.0);
    QCOMPARE(o[u"model"_s][u"largest_unit_params"_s].toDouble(), 202383360.0);
    const QJsonObject mem = o[u"memory"_s].toObject();
    const QJsonObject perRank = mem[u"per_rank_bytes"_s].toObject();
    double sum = 0;
    for (const char* key : {"parameters", "gradients", "optimizer_states", "master_weights", "activations",
                            "gathered_parameters", "comm_buffers", "framework_overhead"}) {
      QVERIFY2(perRank.contains(QLatin1String(key)), key);
      sum += perRank[QLatin1String(key)].toDouble();
    }
    QVERIFY(std::abs(perRank[u"total"_s].toDouble() - sum) <= 8);
    QVERIFY(mem.contains(u"cpu_bytes_per_node"_s));
    QVERIFY(mem[u"fits"_s].isBool());
    const QJsonObject comm = o[u"communication"_s].toObject();
    QVERIFY(comm[u"bytes_per_rank_per_step"_s].toDouble() > 0);
    const QJsonArray collectives = comm[u"collectives"_s].toArray();
    QCOMPARE(collectives.size(), 3);  // all-gather forward, all-gather backward, reduce-scatter
    for (const auto& c : collectives) {
      for (const char* key : {"kind", "bytes", "count", "group_size", "scope"}) {
        QVERIFY2(c.toObject().contains(QLatin1String(key)), key);
      }
      QCOMPARE(c.toObject()[u"group_size"_s].toInt(), 16);
    }
    QVERIFY(o[u"compute"_s][u"model_flops_per_step"_s].toDouble() > 0);
    QVERIFY(o[u"compute"_s][u"hardware_flops_per_step"_s].toDouble() > 0);
    for (const char* key : {"step_s", "tokens_per_s", "mfu"}) {
      QVERIFY2(o[u"time"_s][QLatin1String(key)].toDouble() > 0, key);
    }
  }

  // Issue 20: sizes that do not fit are refused naming the flag, the value and the range (2^62 layers and hidden
  // exited 0 with 4.6e18 parameters; 2^16 layers of width 2^22 said "the model has no parameters").
  void hugeInputsAreRefused_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QStringList gpt{u"plan"_s, u"--arch"_s, u"gpt"_s, u"--heads"_s, u"1"_s, u"--vocab"_s, u"1000"_s};
    QTest::newRow("2^62 layers and hidden")
        << gpt + QStringList{u"--layers"_s, u"4611686018427387904"_s, u"--hidden"_s, u"4611686018427387904"_s} << 105
        << u"--layers: 4611686018427387904 is out of range (allowed 1..16777216)"_s;
    QTest::newRow("count beyond 2^63")
        << gpt + QStringList{u"--layers"_s, u"65536"_s, u"--hidden"_s, u"4194304"_s} << 2
        << u"fathom: error: the model's parameter count does not fit in 64 bits (layers 65536"_s;
    QTest::newRow("world size") << QStringList{u"plan"_s, u"--params"_s, u"1e9"_s, u"--num_processes"_s,
                                               u"4294967298"_s}
                                << 105 << u"--num_processes: 4294967298 is out of range (allowed 1..1048576)"_s;
    QTest::newRow("params 1e30")
        << QStringList{u"plan"_s, u"--params"_s, u"1e30"_s} << 2
        << u"fathom: error: --params: 1e+30 is out of range (allowed 1..9223372036854775807)"_s;
  }
  void hugeInputsAreRefused() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir cache;
    const Run r = runFathom(args, isolated(cache));
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY2(r.out.isEmpty(), r.out.constData());  // no table of wrapped numbers
  }

  void zeroFigureFromTheCommandLine() {
    // Dashed spellings; ZeRO Figure 1's P_os+g+p value in the JSON.
    const Run r = runFathom({u"plan"_s, u"--params"_s, u"7500000000"_s, u"--num-gpus"_s, u"64"_s, u"--strategy"_s,
                             u"zero3"_s, u"--precision"_s, u"fp16"_s, u"--optimizer"_s, u"adam"_s,
                             u"--bytes-convention"_s, u"zero"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject m = json(r)[u"memory"_s][u"per_rank_bytes"_s].toObject();
    QCOMPARE(m[u"parameters"_s].toDouble() + m[u"gradients"_s].toDouble() + m[u"optimizer_states"_s].toDouble() +
                 m[u"master_weights"_s].toDouble(),
             1.875e9);
  }

  void tableAndExplain() {
    const Run r = runFathom({u"plan"_s, u"--arch"_s, u"gpt"_s, u"--layers"_s, u"12"_s, u"--hidden"_s, u"768"_s,
                             u"--heads"_s, u"12"_s, u"--vocab"_s, u"50257"_s, u"--max_positions"_s, u"1024"_s,
                             u"--num_gpus"_s, u"2"_s, u"--hardware"_s, u"a100-40gb"_s, u"--explain"_s});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("124439808 parameters"), r.out.constData());
    QVERIFY(r.out.contains("Memory per rank"));
    QVERIFY(r.out.contains("all_reduce"));
    QVERIFY(r.out.contains("formula:"));
    QVERIFY(r.out.contains("source:  korthikanti-t2"));
    QVERIFY2(r.out.contains("2 GPUs on 1 node(s)") && r.out.contains("/s per GPU"), r.out.constData());
  }

  void cpuHardwareSpeaksOfProcesses() {
    // The cpu-host preset (`device: cpu`) runs Gloo processes, one per node: no GPU anywhere in the report.
    const QStringList args{u"plan"_s,       u"--model"_s, u"gpt-tiny"_s,    u"--hardware"_s, u"cpu"_s,
                           u"--num_gpus"_s, u"2"_s,       u"--precision"_s, u"fp32"_s};
    const Run table = runFathom(args);
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains("ddp, 2 CPU processes on 2 node(s)"), table.out.constData());
    QVERIFY2(table.out.contains("/s per process") && !table.out.contains("GPU"), table.out.constData());
    const Run asJson = runFathom(args + QStringList{u"--json"_s});
    QCOMPARE(asJson.exitCode, 0);
    QCOMPARE(json(asJson)[u"hardware"_s][u"device"_s].toString(), u"cpu"_s);
    const Run search = runFathom(
        {u"plan"_s, u"search"_s, u"--model"_s, u"gpt-tiny"_s, u"--hardware"_s, u"cpu"_s, u"--num_gpus"_s, u"2"_s});
    QCOMPARE(search.exitCode, 0);
    QVERIFY2(search.out.contains("hardware cpu-host; 2 CPU processes"), search.out.constData());
  }

  void planFileWithOverride() {
    QTemporaryDir dir;
    QFile f(dir.filePath(u"plan.yaml"_s));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("params: 1000000000\nstrategy: zero2\nnum_gpus: 8\nhardware: h100\n");
    f.close();
    const Run r = runFathom({u"plan"_s, u"--plan"_s, f.fileName(), u"--num_gpus"_s, u"16"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = json(r);
    QCOMPARE(o[u"plan"_s][u"strategy"_s].toString(), u"zero2"_s);
    QCOMPARE(o[u"plan"_s][u"num_gpus"_s].toInt(), 16);
    QCOMPARE(o[u"hardware"_s][u"name"_s].toString(), u"h100-sxm-80gb"_s);
  }

  void search() {
    const Run r = runFathom({u"plan"_s, u"search"_s, u"--hf_config"_s, config("llama-2-7b"), u"--num_gpus"_s, u"8"_s,
                             u"--seq"_s, u"4096"_s, u"--top"_s, u"5"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = json(r);
    QVERIFY(o[u"evaluated"_s].toInt() > o[u"fitting"_s].toInt());
    const QJsonArray results = o[u"results"_s].toArray();
    QCOMPARE(results.size(), 5);
    double previous = 1e300;
    for (const auto& v : results) {
      QVERIFY(v.toObject()[u"memory"_s][u"fits"_s].toBool());
      const double tps = v.toObject()[u"time"_s][u"tokens_per_s"_s].toDouble();
      QVERIFY(tps <= previous);
      previous = tps;
    }
    const Run table = runFathom({u"plan"_s, u"search"_s, u"--params"_s, u"1000000000"_s, u"--num_gpus"_s, u"4"_s});
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains("tokens/s"), table.out.constData());
  }

  void estimateMemory() {
    // accelerate counts the module AutoModel builds (BertModel with its pooler): 109,482,240 parameters, plus the
    // embeddings' int64 position_ids and token_type_ids buffers (2 x 512 x 8 B).
    const Run r = runFathom({u"estimate-memory"_s, config("bert-base-uncased"), u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject o = json(r);
    QCOMPARE(o[u"total_params"_s].toDouble(), 109482240.0);
    QCOMPARE(o[u"buffer_bytes"_s].toDouble(), 8192.0);
    const double total = 4.0 * 109482240 + 8192;
    const QJsonArray rows = o[u"rows"_s].toArray();
    QCOMPARE(rows.size(), 4);
    QCOMPARE(rows[0].toObject()[u"dtype"_s].toString(), u"float32"_s);
    QCOMPARE(rows[0].toObject()[u"total_size_bytes"_s].toDouble(), total);
    QCOMPARE(rows[0].toObject()[u"training_adam_bytes"_s].toDouble(), 4 * total);
    QCOMPARE(rows[1].toObject()[u"training_adam_bytes"_s].toDouble(), 2 * total);
    QCOMPARE(rows[3].toObject()[u"total_size_bytes"_s].toDouble(), total / 8);
    QVERIFY(rows[3].toObject()[u"training_adam_bytes"_s].isNull());
    QCOMPARE(rows[3].toObject()[u"training_adam"_s].toString(), u"N/A"_s);
    // accelerate's convert_bytes: 437,937,152 B = 417.65 MB (binary); the largest layer is BertEmbeddings, a
    // no-split module: 23,837,184 parameters x 4 B + the 8,192 B of buffers = 90.94 MB.
    QCOMPARE(rows[0].toObject()[u"total_size"_s].toString(), u"417.65 MB"_s);
    QCOMPARE(rows[0].toObject()[u"largest_layer"_s].toString(), u"90.94 MB"_s);
    QCOMPARE(o[u"largest_layer_params"_s].toDouble(), 23837184.0);
    const Run table = runFathom({u"estimate-memory"_s, QStringLiteral(FATHOM_TEST_DATA_DIR "/hf_configs/gpt2")});
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains("Training using Adam"), table.out.constData());
    QVERIFY(table.out.contains("float16"));
    QVERIFY(table.out.contains("int4"));
  }

  // What `accelerate estimate-memory bert-base-cased` prints, byte for byte: its test (tests/test_cli.py) pins
  // 433,249,280 B in total and a largest layer of 90,669,056 B; the table is its create_ascii_table's.
  void estimateMemoryAsAccelerate() {
    const Run r = runFathom({u"estimate-memory"_s, QStringLiteral(FATHOM_TEST_DATA_DIR "/hf_configs/bert-base-cased")});
    QCOMPARE(r.exitCode, 0);
    const QByteArray expected = "┌────────────────────────────────────────────────────┐\n"
                                "│     Memory Usage for loading `bert-base-cased`     │\n"
                                "├───────┬─────────────┬──────────┬───────────────────┤\n"
                                "│ dtype │Largest Layer│Total Size│Training using Adam│\n"
                                "├───────┼─────────────┼──────────┼───────────────────┤\n"
                                "│float32│   86.47 MB  │413.18 MB │      1.61 GB      │\n"
                                "│float16│   43.23 MB  │206.59 MB │     826.36 MB     │\n"
                                "│  int8 │   21.62 MB  │103.29 MB │        N/A        │\n"
                                "│  int4 │   10.81 MB  │ 51.65 MB │        N/A        │\n"
                                "└───────┴─────────────┴──────────┴───────────────────┘\n";
    QVERIFY2(r.out.startsWith(expected), r.out.constData());
    const Run j = runFathom({u"estimate-memory"_s, config("bert-base-cased"), u"--json"_s});
    QCOMPARE(j.exitCode, 0);
    const QJsonObject float32 = json(j)[u"rows"_s].toArray()[0].toObject();
    QCOMPARE(float32[u"total_size_bytes"_s].toDouble(), 433249280.0);
    QCOMPARE(float32[u"largest_layer_bytes"_s].toDouble(), 90669056.0);
    QCOMPARE(float32[u"training_adam_bytes"_s].toDouble(), 1732997120.0);
    // A title wider than the columns widens the last one, as accelerate does (by twice its excess over the
    // separator line). A config file not named config.json is named after its stem.
    QTemporaryDir dir;
    const QString longName = dir.filePath(u"bert-base-cased-with-a-long-name.json"_s);
    QVERIFY(QFile::copy(config("bert-base-cased"), longName));
    const Run wide = runFathom({u"estimate-memory"_s, longName, u"--dtypes"_s, u"float32"_s});
    QCOMPARE(wide.exitCode, 0);
    const QByteArray widened = "┌──────────────────────────────────────────────────────────────┐\n"
                               "│ Memory Usage for loading `bert-base-cased-with-a-long-name`  │\n"
                               "├───────┬─────────────┬──────────┬─────────────────────────────┤\n"
                               "│ dtype │Largest Layer│Total Size│     Training using Adam     │\n"
                               "├───────┼─────────────┼──────────┼─────────────────────────────┤\n"
                               "│float32│   86.47 MB  │413.18 MB │           1.61 GB           │\n"
                               "└───────┴─────────────┴──────────┴─────────────────────────────┘\n";
    QVERIFY2(wide.out.startsWith(widened), wide.out.constData());
  }

  /// The largest layer as infer_auto_device_map reserves it, beside accelerate's table: from a config whose modules
  /// Fathom builds, and from a safetensors checkpoint (whose table is its tree's, built in float32 as from_config
  /// builds it).
  void estimateMemoryDeviceMapLayer() {
    // GPT-2: wte (50257 x 768 float32); lm_head is the same tensor and counts nothing more.
    Run r = runFathom({u"estimate-memory"_s, config("gpt2"), u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(
        QJsonDocument(json(r)[u"device_map_largest_layer"_s].toObject()).toJson(QJsonDocument::Compact),
        QByteArray(R"({"bytes":154389504,"class":"Embedding","names":["transformer.wte"],"no_split":["GPT2Block"]})"));
    // Mixtral: 32 decoder layers of 1,451,270,144 bfloat16 parameters each (the text names the first).
    r = runFathom({u"estimate-memory"_s, config("mixtral-8x7b"), u"--dtypes"_s, u"float16"_s});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("Largest layer for a device map: model.layers.0 and 31 more of the same size "
                            "(MixtralDecoderLayer), 2.7 GB (2902540288 bytes)"),
             r.out.constData());
    // BERT's modules are not built: accelerate's table alone.
    r = runFathom({u"estimate-memory"_s, config("bert-base-cased"), u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(!json(r).contains(u"device_map_largest_layer"_s));

    // A tiny GPT-2's checkpoint as GPT-2's own are saved (no "transformer." prefix, lm_head not stored), in float16,
    // its config beside it: the table equals the config's; the device-map layer is a block at the stored dtype.
    QTemporaryDir dir;
    const QJsonObject tiny{{u"model_type"_s, u"gpt2"_s}, {u"n_embd"_s, 8},     {u"n_head"_s, 2}, {u"n_layer"_s, 2},
                           {u"n_positions"_s, 16},       {u"vocab_size"_s, 10}};
    QFile cfg(dir.filePath(u"config.json"_s));
    QVERIFY(cfg.open(QIODevice::WriteOnly) && cfg.write(QJsonDocument(tiny).toJson()) > 0);
    cfg.close();
    r = runFathom({u"device-map"_s, u"--config"_s, dir.path(), u"--print_tree"_s});
    QCOMPARE(r.exitCode, 0);
    QList<fathom::test::StoredTensor> stored;
    for (fathom::test::StoredTensor t : fathom::test::storedTensorsOf(json(r), u"F16"_s)) {
      if (t.name != u"lm_head.weight"_s) {
        t.name.remove(0, QStringLiteral("transformer.").size());
        stored.append(t);
      }
    }
    QVERIFY(fathom::test::writeSafetensors(dir.filePath(u"model.safetensors"_s), stored));
    const Run fromConfig = runFathom({u"estimate-memory"_s, dir.filePath(u"config.json"_s), u"--json"_s});
    const Run fromCheckpoint = runFathom({u"estimate-memory"_s, dir.filePath(u"model.safetensors"_s), u"--json"_s});
    QVERIFY2(fromConfig.exitCode == 0 && fromCheckpoint.exitCode == 0, fromCheckpoint.err.constData());
    for (const QString& key : {u"total_params"_s, u"buffer_bytes"_s, u"largest_layer_params"_s, u"rows"_s}) {
      QVERIFY2(json(fromCheckpoint)[key] == json(fromConfig)[key], qPrintable(key));
    }
    // transformer.h.0: 872 float16 parameters, its bool mask (16 x 16 at 1/8 byte) and float32 masked_bias.
    const QJsonObject layer = json(fromCheckpoint)[u"device_map_largest_layer"_s].toObject();
    QCOMPARE(layer[u"bytes"_s].toDouble(), 872.0 * 2 + 32 + 4);
    QCOMPARE(layer[u"class"_s].toString(), u"GPT2Block"_s);
    QCOMPARE(layer[u"names"_s].toArray().size(), 2);

    // A broken checkpoint is bad input.
    QFile broken(dir.filePath(u"broken.safetensors"_s));
    QVERIFY(broken.open(QIODevice::WriteOnly) && broken.write("\x05\0\0\0\0\0\0\0{}") > 0);
    broken.close();
    r = runFathom({u"estimate-memory"_s, dir.filePath(u"broken.safetensors"_s)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("invalid safetensors file"), r.err.constData());
  }

  void builtinModels() {
    // Introspected from the LibTorch module: gpt-small's 10,795,008 parameters, largest unit = one block
    // (12·384² + 13·384 = 1,774,464).
    Run r = runFathom({u"estimate-memory"_s, u"gpt-small"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(json(r)[u"total_params"_s].toDouble(), 10795008.0);
    QCOMPARE(json(r)[u"largest_layer_params"_s].toDouble(), 1774464.0);
    r = runFathom({u"estimate-memory"_s, u"mlp"_s, u"--hidden"_s, u"64"_s, u"--layers"_s, u"3"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(json(r)[u"total_params"_s].toDouble(), 3.0 * (64 * 64 + 64) + 65);
    // `fathom plan --model`, with the dimension flags of `fathom train`.
    r = runFathom({u"plan"_s, u"--model"_s, u"gpt"_s, u"--n_layer"_s, u"3"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(json(r)[u"model"_s].toObject()[u"total_params"_s].toDouble(), 162368.0);
    QVERIFY(json(r)[u"memory"_s].toObject()[u"per_rank_bytes"_s].toObject()[u"activations"_s].toDouble() > 0);
    r = runFathom({u"plan"_s, u"search"_s, u"--model"_s, u"gpt-tiny"_s, u"--num_gpus"_s, u"2"_s, u"--json"_s});
    QCOMPARE(r.exitCode, 0);
    r = runFathom({u"plan"_s, u"--model"_s, u"gpt-tiny"_s, u"--hidden"_s, u"32"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--n_embd"), r.err.constData());
    r = runFathom({u"plan"_s, u"--model"_s, u"mlp"_s, u"--n_layer"_s, u"2"_s});
    QCOMPARE(r.exitCode, 2);
    r = runFathom({u"plan"_s, u"--model"_s, u"resnet"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("unknown model 'resnet'"), r.err.constData());
  }

  // The exact layout of gpt-tiny from the command line (docs/planner.md, "Exact layout for built-in models").
  void exactLayoutFlags() {
    const QStringList common{u"plan"_s,        u"--model"_s, u"gpt-tiny"_s,   u"--precision"_s, u"fp32"_s,
                             u"--optimizer"_s, u"adamw"_s,   u"--hardware"_s, u"cpu-host"_s,    u"--micro_batch"_s,
                             u"8"_s,           u"--seq"_s,   u"64"_s,         u"--json"_s};
    const auto collectives = [](const QJsonObject& o) {
      QStringList out;
      for (const auto& c : o[u"communication"_s].toObject()[u"collectives"_s].toArray()) {
        const QJsonObject x = c.toObject();
        out << u"%1 %2/%3"_s.arg(x[u"kind"_s].toString())
                   .arg(x[u"bytes"_s].toDouble(), 0, 'f', 0)
                   .arg(x[u"count"_s].toInt());
      }
      return out;
    };
    Run r = runFathom(common + QStringList{u"--strategy"_s, u"fsdp"_s, u"--num_gpus"_s, u"3"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QJsonObject o = json(r);
    QCOMPARE(o[u"memory"_s].toObject()[u"per_rank_bytes"_s].toObject()[u"parameters"_s].toDouble(), 149852.0);
    QCOMPARE(o[u"plan"_s].toObject()[u"fsdp_auto_wrap_policy"_s].toString(), u"transformer_based_wrap"_s);
    QCOMPARE(collectives(o),
             (QStringList{u"all_gather 449556/3"_s, u"all_gather 399888/2"_s, u"reduce_scatter 449556/3"_s}));
    r = runFathom(common + QStringList{u"--strategy"_s, u"fsdp"_s, u"--num_gpus"_s, u"3"_s,
                                       u"--fsdp_auto_wrap_policy"_s, u"SIZE_BASED_WRAP"_s, u"--fsdp_min_num_params"_s,
                                       u"50000"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(collectives(json(r)), (QStringList{u"all_gather 449544/1"_s, u"reduce_scatter 449544/1"_s}));
    r = runFathom(common + QStringList{u"--strategy"_s, u"zero2"_s, u"--num_gpus"_s, u"3"_s, u"--zero_bucket_size"_s,
                                       u"50000"_s});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    o = json(r);
    QCOMPARE(o[u"plan"_s].toObject()[u"zero_bucket_size"_s].toDouble(), 50000.0);
    QCOMPARE(collectives(o), (QStringList{u"reduce_scatter 449544/3"_s, u"all_gather 449544/3"_s}));
    r = runFathom(common + QStringList{u"--strategy"_s, u"zero2"_s, u"--zero_bucket_size"_s, u"0"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("zero_bucket_size must be >= 1"), r.err.constData());
    r = runFathom(common + QStringList{u"--strategy"_s, u"fsdp"_s, u"--fsdp_auto_wrap_policy"_s, u"lambda"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("invalid fsdp_auto_wrap_policy 'lambda'"), r.err.constData());
  }

  // Issue 17: `fathom plan` resolves its configuration as `fathom launch` does (flag > environment > file >
  // default), so at every level the planner plans the precision and world size the workers get.
  void everyLevelReachesThePlannerAsTheLauncher_data() {
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QString>("variable");  // NAME=VALUE or empty
    QTest::addColumn<QByteArray>("file");   // the configuration, or empty for none
    QTest::addColumn<QString>("precision");
    QTest::addColumn<int>("processes");
    const QByteArray saysNo = "distributed_type: MULTI_CPU\nmixed_precision: 'no'\nnum_processes: 2\n";
    QTest::newRow("default: Accelerate's no, fp32") << QStringList() << QString() << QByteArray() << u"no"_s << 1;
    QTest::newRow("file") << QStringList() << QString()
                          << QByteArray("distributed_type: MULTI_CPU\nmixed_precision: bf16\nnum_processes: 2\n")
                          << u"bf16"_s << 2;
    QTest::newRow("environment over file")
        << QStringList() << u"ACCELERATE_MIXED_PRECISION=bf16"_s << saysNo << u"bf16"_s << 2;
    QTest::newRow("command line over environment")
        << QStringList{u"--mixed_precision"_s, u"fp16"_s, u"--num_processes"_s, u"1"_s}
        << u"ACCELERATE_MIXED_PRECISION=bf16"_s << saysNo << u"fp16"_s << 1;
  }

  void everyLevelReachesThePlannerAsTheLauncher() {
    QFETCH(QStringList, flags);
    QFETCH(QString, variable);
    QFETCH(QByteArray, file);
    QFETCH(QString, precision);
    QFETCH(int, processes);
    QTemporaryDir cache;
    QProcessEnvironment env = isolated(cache);
    if (!variable.isEmpty()) {
      env.insert(variable.section(u'=', 0, 0), variable.section(u'=', 1));
    }
    QStringList withFile;
    if (!file.isEmpty()) {
      withFile = {u"--config_file"_s, cache.filePath(u"run.yaml"_s)};
      writeText(withFile.last(), file);
    }
    const Run planned =
        runFathom(QStringList{u"plan"_s, u"--model"_s, u"gpt-tiny"_s, u"--json"_s} + withFile + flags, env);
    QVERIFY2(planned.exitCode == 0, fathom::test::describe(planned).toUtf8().constData());
    const QJsonObject plan = json(planned)[u"plan"_s].toObject();
    QCOMPARE(plan[u"precision"_s].toString(), precision == u"no"_s ? u"fp32"_s : precision);
    QCOMPARE(plan[u"num_gpus"_s].toInt(), processes);

    const Run launched = runFathom(QStringList{u"launch"_s, u"--quiet"_s} + withFile + flags +
                                       QStringList{u"sh"_s, u"-c"_s, u"echo $WORLD_SIZE $ACCELERATE_MIXED_PRECISION"_s},
                                   env);
    QVERIFY2(launched.exitCode == 0, fathom::test::describe(launched).toUtf8().constData());
    QVERIFY2(launched.out.contains(u"[rank0]: %1 %2"_s.arg(processes).arg(precision).toUtf8()),
             launched.out.constData());
  }

  // The same setting has the same flag as in `fathom train` and `fathom launch`; the old spellings still work, with
  // a note, and plan the same.
  void deprecatedSpellingsPlanTheSame() {
    QTemporaryDir cache;
    const QProcessEnvironment env = isolated(cache);
    const QStringList common{u"plan"_s, u"--model"_s, u"gpt-tiny"_s, u"--hardware"_s, u"cpu-host"_s, u"--json"_s};
    const Run old = runFathom(common + QStringList{u"--num_gpus"_s, u"2"_s, u"--precision"_s, u"fp32"_s,
                                                   u"--strategy"_s, u"zero3"_s, u"--offload_optimizer"_s,
                                                   u"--offload_params"_s, u"--zero_bucket_size"_s, u"1000"_s},
                              env);
    QVERIFY2(old.exitCode == 0, old.err.constData());
    QVERIFY2(old.err.contains("fathom plan: note: --num_gpus is deprecated; use --num_processes"), old.err.constData());
    QVERIFY(old.err.contains("note: --precision is deprecated; use --mixed_precision"));
    QVERIFY(old.err.contains("note: --offload_optimizer is deprecated; use --offload_optimizer_device cpu"));
    QVERIFY(old.err.contains("note: --zero_bucket_size is deprecated; use --zero_reduce_bucket_size"));
    const Run now = runFathom(common + QStringList{u"--num_processes"_s, u"2"_s, u"--mixed_precision"_s, u"no"_s,
                                                   u"--strategy"_s, u"zero3"_s, u"--offload_optimizer_device"_s,
                                                   u"cpu"_s, u"--offload_param_device"_s, u"cpu"_s,
                                                   u"--zero_reduce_bucket_size"_s, u"1000"_s},
                              env);
    QVERIFY2(now.exitCode == 0, now.err.constData());
    QVERIFY2(!now.err.contains("deprecated"), now.err.constData());
    QCOMPARE(json(now), json(old));
    QCOMPARE(json(now)[u"plan"_s].toObject()[u"offload_params"_s].toBool(), true);

    const QStringList fsdp = common + QStringList{u"--num_processes"_s, u"2"_s, u"--strategy"_s, u"fsdp"_s};
    const Run fsdpOld = runFathom(fsdp + QStringList{u"--offload_optimizer"_s, u"--offload_params"_s}, env);
    const Run fsdpNow = runFathom(fsdp + QStringList{u"--fsdp_offload_params"_s, u"true"_s}, env);
    QVERIFY2(fsdpNow.exitCode == 0, fsdpNow.err.constData());
    QCOMPARE(json(fsdpNow), json(fsdpOld));

    const Run wrong = runFathom(fsdp + QStringList{u"--offload_optimizer_device"_s, u"cpu"_s}, env);
    QCOMPARE(wrong.exitCode, 2);
    QVERIFY2(wrong.err.contains("--offload_optimizer_device applies to ZeRO"), wrong.err.constData());
    const Run nvme =
        runFathom(common + QStringList{u"--strategy"_s, u"zero3"_s, u"--offload_param_device"_s, u"nvme"_s}, env);
    QCOMPARE(nvme.exitCode, 2);
    QVERIFY2(nvme.err.contains("offload device 'nvme' is not supported by Fathom"), nvme.err.constData());
  }

  void badInputs() {
    Run r = runFathom({u"plan"_s, u"--params"_s, u"1000"_s, u"--strategy"_s, u"zero4"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("invalid strategy 'zero4'"), r.err.constData());
    r = runFathom({u"plan"_s, u"--params"_s, u"1000"_s, u"--hardware"_s, u"tpu-v9"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("unknown hardware 'tpu-v9'"), r.err.constData());
    r = runFathom({u"plan"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no model"), r.err.constData());
    r = runFathom({u"plan"_s, u"--params"_s, u"1000"_s, u"--num_gpus"_s, u"4"_s, u"--tp"_s, u"2"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("tensor and pipeline parallelism need transformer dimensions"), r.err.constData());
    r = runFathom({u"estimate-memory"_s, u"/no/such/model"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("/no/such/model"), r.err.constData());
  }
};

QTEST_GUILESS_MAIN(TestPlanCli)
#include "tst_plan_cli.moc"
