// SPDX-License-Identifier: Apache-2.0
// `fathom device-map`: every case Accelerate's tests assert (tests/data/device_map/accelerate_asserted_cases.json)
// answered through `--request FILE --json` exactly as tests/core/tst_device_map.cpp checks core/bigmodel; a module
// tree with --max_memory strings and the other flags; --strategy (each one, through core's plan_device_map); models
// from a config.json and from safetensors checkpoints (one file, sharded, a folder); the text form; bad input refused
// with exit code 2, naming the flag or file.
#include "cli_runner.h"
#include "safetensors_bytes.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {
using Run = fathom::test::CliRun;
using fathom::test::describe;
using fathom::test::runFathom;
using fathom::test::StoredTensor;
using fathom::test::storedTensorsOf;
using fathom::test::writeSafetensors;

QJsonArray cases() {
  QFile file(QStringLiteral(FATHOM_TEST_DATA_DIR "/device_map/accelerate_asserted_cases.json"));
  if (!file.open(QIODevice::ReadOnly)) {
    qFatal("cannot read %s", qPrintable(file.fileName()));
  }
  return QJsonDocument::fromJson(file.readAll()).array();
}

QJsonObject caseById(const QString& id) {
  for (const QJsonValue& c : cases()) {
    if (c.toObject().value(u"id"_s).toString() == id) {
      return c.toObject();
    }
  }
  qFatal("no case %s", qPrintable(id));
}

QJsonValue parse(const Run& r) {
  QJsonParseError error;
  const QJsonDocument doc = QJsonDocument::fromJson(r.out, &error);
  if (doc.isNull()) {
    qWarning("%s\n%s\n%s", qPrintable(error.errorString()), r.out.constData(), r.err.constData());
  }
  return doc.isObject() ? QJsonValue(doc.object()) : QJsonValue();
}

QString compact(const QJsonValue& v) {
  return QString::fromUtf8(v.isObject()  ? QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact)
                           : v.isArray() ? QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)
                                         : QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact));
}

QString hfConfig(const char* name) {
  return QStringLiteral(FATHOM_TEST_DATA_DIR "/hf_configs/") + QLatin1String(name);
}

/// A small Llama: 2 layers, width 8, 2 heads of 4, 1 key/value head, MLP 16, vocabulary 10, bfloat16.
QJsonObject tinyLlama() {
  return {{u"model_type"_s, u"llama"_s},
          {u"architectures"_s, QJsonArray{u"LlamaForCausalLM"_s}},
          {u"hidden_size"_s, 8},
          {u"num_attention_heads"_s, 2},
          {u"num_key_value_heads"_s, 1},
          {u"num_hidden_layers"_s, 2},
          {u"intermediate_size"_s, 16},
          {u"vocab_size"_s, 10},
          {u"torch_dtype"_s, u"bfloat16"_s}};
}

/// ModelForTest: linear1 (64 bytes), batchnorm (72, 40 of them buffers), linear2 (100); idm_basic_two_gpus's model.
QJsonObject modelForTest() {
  return caseById(u"idm_basic_two_gpus"_s).value(u"model"_s).toObject();
}

}  // namespace

class TestDeviceMapCli : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_dir;

  QString write(const QString& name, const QByteArray& bytes) {
    const QString path = m_dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size()) {
      qFatal("cannot write %s", qPrintable(path));
    }
    return path;
  }
  QString write(const QString& name, const QJsonObject& o) { return write(name, QJsonDocument(o).toJson()); }

private slots:
  void initTestCase() { QVERIFY(m_dir.isValid()); }

  void everyAcceleratedCase_data() {
    QTest::addColumn<QJsonObject>("testCase");
    const QJsonArray all = cases();
    QCOMPARE(all.size(), 29);
    for (const QJsonValue& c : all) {
      QTest::newRow(qPrintable(c.toObject().value(u"id"_s).toString())) << c.toObject();
    }
  }

  /// The whole case file (id, source, expected and all) is the request: the answer is "expected", but for the two keys
  /// that describe Python's hash-seeded order rather than a result.
  void everyAcceleratedCase() {
    QFETCH(QJsonObject, testCase);
    const QString path = write(testCase.value(u"id"_s).toString() + u".json"_s, testCase);
    const Run r = runFathom({u"device-map"_s, u"--request"_s, path, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QJsonObject expected = testCase.value(u"expected"_s).toObject();
    const bool deterministic = expected.value(u"device_map_order_deterministic"_s).toBool(true);
    const QJsonArray possible = expected.value(u"device_map_orders_possible"_s).toArray();
    expected.remove(u"device_map_order_deterministic"_s);
    expected.remove(u"device_map_orders_possible"_s);
    const QJsonValue answer = parse(r);
    QVERIFY2(answer == QJsonValue(expected),
             qPrintable(u"\n got      "_s + compact(answer) + u"\n expected "_s + compact(expected)));
    if (!deterministic) {
      QVERIFY(possible.contains(answer.toObject().value(u"device_map"_s)));
    }
  }

  void requestFromStandardInput() {
    const QJsonObject c = caseById(u"bal_two_gpus_200"_s);
    const Run r = runFathom({u"device-map"_s, u"--request"_s, u"-"_s, u"--json"_s},
                            QProcessEnvironment::systemEnvironment(), QJsonDocument(c).toJson());
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(parse(r), QJsonValue(c.value(u"expected"_s).toObject()));
  }

  /// --module_tree with Accelerate's memory strings: the flags become infer_auto_device_map's arguments.
  void moduleTreeWithFlags() {
    const QString tree = write(u"model_for_test.json"_s, modelForTest());
    // idm_basic_two_gpus (200 bytes on GPUs 0 and 1), the limits written as a bare number of bytes and as "0.2KB".
    Run r = runFathom({u"device-map"_s, u"--module_tree"_s, tree, u"--max_memory"_s, u"0=200,1=0.2KB"_s, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(parse(r).toObject().value(u"device_map"_s),
             caseById(u"idm_basic_two_gpus"_s).value(u"expected"_s).toObject().value(u"device_map"_s));

    // GiB strings, cpu, and the dashed spellings: everything fits GPU 0 and merges into "".
    r = runFathom({u"device-map"_s, u"--module-tree"_s, tree, u"--max-memory"_s, u"0=1GiB,cpu=64GiB"_s, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(compact(parse(r).toObject().value(u"device_map"_s)), u"[[\"\",0]]"_s);

    // --dtype bf16 (Fathom's shorthand for bfloat16), --no_split, --special_dtype and --no_clean_result reach the
    // call: the same request written as a request file, in Accelerate's own spellings, gives the same answer.
    r = runFathom({u"device-map"_s, u"--module_tree"_s, tree, u"--max_memory"_s, u"0=120,cpu=1MB"_s, u"--dtype"_s,
                   u"bf16"_s, u"--no_split"_s, u"BatchNorm1d"_s, u"--special_dtype"_s, u"linear2.bias=float32"_s,
                   u"--no_clean_result"_s, u"--offload_buffers"_s, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject fromFlags = parse(r).toObject();
    const QJsonObject args{{u"max_memory"_s, QJsonObject{{u"0"_s, 120}, {u"cpu"_s, u"1MB"_s}}},
                           {u"dtype"_s, u"torch.bfloat16"_s},
                           {u"no_split_module_classes"_s, QJsonArray{u"BatchNorm1d"_s}},
                           {u"special_dtypes"_s, QJsonObject{{u"linear2.bias"_s, u"float32"_s}}},
                           {u"clean_result"_s, false},
                           {u"offload_buffers"_s, true}};
    const QJsonObject request{{u"model"_s, modelForTest()},
                              {u"call"_s, QJsonObject{{u"function"_s, u"infer_auto_device_map"_s}, {u"args"_s, args}}}};
    r = runFathom({u"device-map"_s, u"--request"_s, write(u"bf16_request.json"_s, request), u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(fromFlags, parse(r).toObject());
    // Unclean: every name is listed; some of the model went to cpu.
    QVERIFY2(compact(fromFlags).contains(u"[\"linear1\",0]"_s) && compact(fromFlags).contains(u"\"cpu\"]"_s),
             qPrintable(compact(fromFlags)));
    // And the flags made a difference: without them the answer differs.
    r = runFathom({u"device-map"_s, u"--module_tree"_s, tree, u"--max_memory"_s, u"0=120,cpu=1MB"_s, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY(parse(r).toObject() != fromFlags);

    // --balanced_memory: bal_two_gpus_300's limits (GPU 0 capped at 215), --max_memory given twice.
    const QJsonObject bal = caseById(u"bal_two_gpus_300"_s);
    r = runFathom({u"device-map"_s, u"--module_tree"_s, write(u"bal.json"_s, bal.value(u"model"_s).toObject()),
                   u"--max_memory"_s, u"0=300"_s, u"--max_memory"_s, u"1=300"_s, u"--balanced_memory"_s, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(parse(r).toObject(), bal.value(u"expected"_s).toObject());
  }

  void strategy_data() {
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<QString>("limits");
    QTest::addColumn<QString>("map");
    QTest::addColumn<int>("maxGpuLoad");
    // ModelForTest (64, 72, 100 bytes) on two GPUs of 300: tst_device_map_strategy works these out by hand.
    QTest::newRow("auto") << u"auto"_s << u"[[0,215],[1,300]]"_s
                          << u"[[\"linear1\",0],[\"batchnorm\",1],[\"linear2\",1]]"_s << 172;
    QTest::newRow("balanced") << u"balanced"_s << u"[[0,215],[1,300]]"_s
                              << u"[[\"linear1\",0],[\"batchnorm\",1],[\"linear2\",1]]"_s << 172;
    QTest::newRow("balanced_low_0") << u"balanced_low_0"_s << u"[[0,0],[1,300]]"_s << u"[[\"\",1]]"_s << 236;
    QTest::newRow("sequential") << u"sequential"_s << u"[[0,300],[1,300]]"_s << u"[[\"\",0]]"_s << 236;
    QTest::newRow("optimal") << u"optimal"_s << u"[[0,300],[1,300]]"_s
                             << u"[[\"linear1\",0],[\"batchnorm\",0],[\"linear2\",1]]"_s << 136;
  }

  /// --strategy NAME --json: the map, the limits it was planned with, the largest GPU load, and for optimal
  /// balanced's load and the gain; the answer of the same plan_device_map request written as a file.
  void strategy() {
    QFETCH(QString, strategy);
    QFETCH(QString, limits);
    QFETCH(QString, map);
    QFETCH(int, maxGpuLoad);
    const QString tree = write(u"strategy_tree.json"_s, modelForTest());
    Run r = runFathom({u"device-map"_s, u"--module_tree"_s, tree, u"--max_memory"_s, u"0=300,1=300"_s, u"--strategy"_s,
                       strategy, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject answer = parse(r).toObject();
    QCOMPARE(answer.value(u"strategy"_s).toString(), strategy);
    QCOMPARE(compact(answer.value(u"max_memory"_s)), limits);
    QCOMPARE(compact(answer.value(u"device_map"_s)), map);
    QCOMPARE(answer.value(u"max_gpu_load"_s).toInt(), maxGpuLoad);
    QCOMPARE(answer.contains(u"gain"_s), strategy == u"optimal"_s);
    if (strategy == u"optimal"_s) {
      QCOMPARE(answer.value(u"balanced_max_gpu_load"_s).toInt(), 172);
      QCOMPARE(answer.value(u"gain"_s).toDouble(), 36.0 / 172.0);
    }
    const QJsonObject args{{u"strategy"_s, strategy},
                           {u"max_memory"_s, QJsonArray{QJsonArray{0, 300}, QJsonArray{1, 300}}}};
    const QJsonObject request{{u"model"_s, modelForTest()},
                              {u"call"_s, QJsonObject{{u"function"_s, u"plan_device_map"_s}, {u"args"_s, args}}}};
    r = runFathom({u"device-map"_s, u"--request"_s, write(u"plan_request.json"_s, request), u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(parse(r).toObject(), answer);

    // The text form names the strategy and the largest GPU load, and for optimal balanced's.
    r = runFathom(
        {u"device-map"_s, u"--module_tree"_s, tree, u"--max_memory"_s, u"0=300,1=300"_s, u"--strategy"_s, strategy});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QString out = QString::fromUtf8(r.out);
    QVERIFY2(out.startsWith(u"Device map (strategy "_s + strategy), qPrintable(out));
    QVERIFY2(out.contains(u"\nLargest GPU load: "_s + QString::number(maxGpuLoad) + u" bytes"_s), qPrintable(out));
    QCOMPARE(out.contains(u"Limits planned with (get_balanced_memory): 0="_s),
             strategy.startsWith(u"balanced"_s) || strategy == u"auto"_s);
    if (strategy == u"optimal"_s) {
      QVERIFY2(out.contains(u"Balanced's largest GPU load: 172 bytes; optimal's is 20.9% lower.\n"_s), qPrintable(out));
    }
  }

  void withoutStrategyNothingChanges() {
    // No --strategy: infer_auto_device_map's answer as before, with none of plan_device_map's keys.
    const QString tree = write(u"plain_tree.json"_s, modelForTest());
    const Run r =
        runFathom({u"device-map"_s, u"--module_tree"_s, tree, u"--max_memory"_s, u"0=300,1=300"_s, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(parse(r).toObject().keys(), (QStringList{u"buffer_warning"_s, u"buffer_warning_bytes"_s, u"device_map"_s,
                                                      u"insufficient_memory_minimums"_s}));
  }

  void textForm() {
    const Run r = runFathom(
        {u"device-map"_s, u"--request"_s, write(u"warns.json"_s, caseById(u"idm_buffers_offloaded_warns"_s))});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject expected = caseById(u"idm_buffers_offloaded_warns"_s).value(u"expected"_s).toObject();
    const QString out = QString::fromUtf8(r.out);
    QVERIFY2(out.startsWith(u"Device map (infer_auto_device_map), "_s), qPrintable(out));
    // Each entry of the map on a row of its own: module, then device.
    for (const QJsonValue& entry : expected.value(u"device_map"_s).toArray()) {
      const QString module = entry.toArray()[0].toString();
      const QJsonValue device = entry.toArray()[1];
      const QString deviceText = device.isString() ? device.toString() : QString::number(device.toInt());
      const QString name = module.isEmpty() ? u"(the whole model)"_s : module;
      QVERIFY2(out.contains(QRegularExpression(u"\n  "_s + QRegularExpression::escape(name) + u" +"_s +
                                               QRegularExpression::escape(deviceText) + u"\n"_s)),
               qPrintable(name + u" -> "_s + deviceText + u" not in\n"_s + out));
    }
    QVERIFY2(out.contains(u"\nBytes per device:\n  device  "_s), qPrintable(out));
    QVERIFY2(out.contains(u"\nWarning: the buffers of the modules on cpu and disk ("_s +
                          QString::number(expected.value(u"buffer_warning_bytes"_s).toInt()) + u" bytes"_s),
             qPrintable(out));

    // Balanced limits and sizes have their own tables.
    const Run bal =
        runFathom({u"device-map"_s, u"--request"_s, write(u"bal200.json"_s, caseById(u"bal_two_gpus_200"_s))});
    QVERIFY2(bal.exitCode == 0 && bal.out.startsWith("Balanced limits (get_balanced_memory):\n  device"),
             qPrintable(describe(bal)));
    const Run sizes =
        runFathom({u"device-map"_s, u"--request"_s, write(u"sizes.json"_s, caseById(u"cms_model_for_test_fp32"_s))});
    QVERIFY2(sizes.exitCode == 0 && sizes.out.contains("\n  (the whole model)") && sizes.out.contains("236"),
             qPrintable(describe(sizes)));
  }

  void textBytesPerDevice() {
    // idm_basic_two_gpus: linear1 (64) on GPU 0, batchnorm (72) and linear2 (100) on GPU 1, 200 bytes each.
    const Run r =
        runFathom({u"device-map"_s, u"--request"_s, write(u"basic.json"_s, caseById(u"idm_basic_two_gpus"_s))});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QString out = QString::fromUtf8(r.out);
    QVERIFY2(out.contains(QRegularExpression(u"\n  0 +64 +64 B +200 B\n"_s)), qPrintable(out));
    QVERIFY2(out.contains(QRegularExpression(u"\n  1 +172 +172 B +200 B\n"_s)), qPrintable(out));
    QVERIFY2(!out.contains(u"Warning"_s), qPrintable(out));
  }

  /// A config.json as the model: the modules transformers builds, its family's decoder block kept whole by default.
  void configAsModel() {
    Run r = runFathom({u"device-map"_s, u"--config"_s, hfConfig("gpt2"), u"--print_tree"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject tree = parse(r).toObject();
    QCOMPARE(tree.value(u"root_class"_s).toString(), u"GPT2LMHeadModel"_s);
    QCOMPARE(compact(tree.value(u"tied_parameters"_s)), u"[[\"lm_head.weight\",\"transformer.wte.weight\"]]"_s);
    // 300 MB on GPU 0 holds wte and some blocks; --config gives GPT2Block as no-split class, as --no_split would.
    const QStringList limits{u"--max_memory"_s, u"0=300MB,cpu=2GB"_s, u"--json"_s};
    r = runFathom(QStringList{u"device-map"_s, u"--config"_s, hfConfig("gpt2") + u"/config.json"_s} + limits);
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject fromConfig = parse(r).toObject();
    const QString map = compact(fromConfig.value(u"device_map"_s));
    QVERIFY2(map.contains(u"[\"transformer.h.0\",0]"_s) && map.contains(u"\"cpu\"]"_s) && !map.contains(u".attn"_s),
             qPrintable(map));
    r = runFathom(QStringList{u"device-map"_s, u"--module_tree"_s, write(u"gpt2_tree.json"_s, tree), u"--no_split"_s,
                              u"GPT2Block"_s} +
                  limits);
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(parse(r).toObject(), fromConfig);
  }

  /// A checkpoint as the model: one file, a folder, a sharded index; matched to the config.json beside it.
  void checkpointAsModel() {
    QVERIFY(m_dir.isValid());
    QDir(m_dir.path()).mkpath(u"llama"_s);
    QDir(m_dir.path()).mkpath(u"llama_sharded"_s);
    write(u"llama/config.json"_s, tinyLlama());
    write(u"llama_sharded/config.json"_s, tinyLlama());
    Run r = runFathom({u"device-map"_s, u"--config"_s, m_dir.filePath(u"llama"_s), u"--print_tree"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject tree = parse(r).toObject();
    const QList<StoredTensor> stored = storedTensorsOf(tree, u"F32"_s);
    QCOMPARE(stored.size(), 21);  // embed, 2 x (4 attention, 3 MLP, 2 norms), norm, lm_head
    QVERIFY(writeSafetensors(m_dir.filePath(u"llama/model.safetensors"_s), stored));
    const qsizetype half = stored.size() / 2;
    QVERIFY(writeSafetensors(m_dir.filePath(u"llama_sharded/model-00001-of-00002.safetensors"_s), stored.mid(0, half)));
    QVERIFY(writeSafetensors(m_dir.filePath(u"llama_sharded/model-00002-of-00002.safetensors"_s), stored.mid(half)));
    QJsonObject weightMap;
    qint64 total = 0;
    for (qsizetype i = 0; i < stored.size(); ++i) {
      weightMap.insert(stored[i].name,
                       i < half ? u"model-00001-of-00002.safetensors"_s : u"model-00002-of-00002.safetensors"_s);
      total += fathom::test::storedBytes(stored[i]);
    }
    write(u"llama_sharded/model.safetensors.index.json"_s,
          QJsonObject{{u"metadata"_s, QJsonObject{{u"total_size"_s, total}}}, {u"weight_map"_s, weightMap}});

    // The same map from the config (bfloat16) and from each form of the checkpoint (float32), loaded as bf16.
    const QStringList limits{u"--max_memory"_s, u"0=2000,cpu=1MB"_s, u"--dtype"_s, u"bf16"_s, u"--json"_s};
    r = runFathom(QStringList{u"device-map"_s, u"--config"_s, m_dir.filePath(u"llama/config.json"_s)} + limits);
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject fromConfig = parse(r).toObject();
    // 2000 bytes on GPU 0: the embedding (160 B) beside the room kept for a decoder layer (1184 B); the rest on cpu
    // (clean_device_map merges the layers last, as Accelerate does).
    QCOMPARE(compact(fromConfig.value(u"device_map"_s)),
             u"[[\"model.embed_tokens\",0],[\"model.norm\",\"cpu\"],[\"model.rotary_emb\",\"cpu\"],"
             "[\"lm_head\",\"cpu\"],[\"model.layers\",\"cpu\"]]"_s);
    for (const QString& source :
         {m_dir.filePath(u"llama"_s), m_dir.filePath(u"llama/model.safetensors"_s), m_dir.filePath(u"llama_sharded"_s),
          m_dir.filePath(u"llama_sharded/model.safetensors.index.json"_s)}) {
      r = runFathom(QStringList{u"device-map"_s, u"--checkpoint"_s, source} + limits);
      QVERIFY2(r.exitCode == 0, qPrintable(source + u"\n"_s + describe(r)));
      QVERIFY2(r.err.isEmpty(), qPrintable(describe(r)));
      QCOMPARE(parse(r).toObject(), fromConfig);
    }
    // The tree is the config's, tensors in their stored dtype.
    r = runFathom({u"device-map"_s, u"--checkpoint"_s, m_dir.filePath(u"llama"_s), u"--print_tree"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonArray modules = parse(r).toObject().value(u"modules"_s).toArray();
    QCOMPARE(modules.size(), tree.value(u"modules"_s).toArray().size());
    QVERIFY2(r.out.contains("\"dtype\":\"float32\"") && !r.out.contains("\"dtype\":\"bfloat16\""), r.out.constData());

    // A tensor the model has no place for is left out, with a note; a checkpoint without config derives its modules.
    QList<StoredTensor> extra = stored;
    extra.append({u"score.weight"_s, u"F32"_s, {2, 8}});
    QVERIFY(writeSafetensors(m_dir.filePath(u"llama/extra.safetensors"_s), extra));
    r = runFathom(QStringList{u"device-map"_s, u"--checkpoint"_s, m_dir.filePath(u"llama/extra.safetensors"_s)} +
                  limits);
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(r.err.contains("Note: 1 tensor(s) of the checkpoint are not in LlamaForCausalLM and are left out, as "
                            "transformers leaves them: score.weight"),
             qPrintable(describe(r)));
    QCOMPARE(parse(r).toObject(), fromConfig);
    QDir(m_dir.path()).mkpath(u"plain"_s);
    QVERIFY(writeSafetensors(m_dir.filePath(u"plain/model.safetensors"_s), stored));
    r = runFathom({u"device-map"_s, u"--checkpoint"_s, m_dir.filePath(u"plain"_s), u"--print_tree"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(parse(r).toObject().value(u"root_class"_s).toString(), u"Model"_s);
  }

  void badModelFiles_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString bad = m_dir.filePath(u"bad_checkpoints"_s);
    QTest::newRow("missing shard") << QStringList{u"--checkpoint"_s, bad + u"/missing_shard"_s}
                                   << u"shard 'model-00002-of-00002.safetensors' is missing from"_s;
    QTest::newRow("tensor not in its shard")
        << QStringList{u"--checkpoint"_s, bad + u"/missing_tensor/model.safetensors.index.json"_s}
        << u"the index puts tensor 'model.norm.weight' in shard 'model-00001-of-00001.safetensors', which does not "
           "hold it"_s;
    QTest::newRow("shapes disagree") << QStringList{u"--checkpoint"_s, bad + u"/wrong_shape"_s}
                                     << u"tensor 'model.embed_tokens.weight' (in model.safetensors) has shape [11, 8], "
                                        "but LlamaForCausalLM as "_s;
    QTest::newRow("no checkpoint") << QStringList{u"--checkpoint"_s, bad + u"/absent"_s}
                                   << u"--checkpoint: no such checkpoint file or folder"_s;
    QTest::newRow("empty folder") << QStringList{u"--checkpoint"_s, bad}
                                  << u"holds neither model.safetensors nor model.safetensors.index.json"_s;
    QTest::newRow("unsupported config")
        << QStringList{u"--config"_s, hfConfig("bert-base-cased"), u"--max_memory"_s, u"0=1GiB"_s}
        << u"--config: "_s + hfConfig("bert-base-cased") +
               u"/config.json: Fathom builds the modules of gpt2, llama, mistral, mixtral models, not of model_type "
               "'bert'"_s;
    QTest::newRow("no config") << QStringList{u"--config"_s, bad + u"/absent.json"_s}
                               << u"--config: no such file '"_s + bad + u"/absent.json'"_s;
    QTest::newRow("two models") << QStringList{u"--config"_s, hfConfig("gpt2"), u"--checkpoint"_s, bad}
                                << u"--config and --checkpoint exclude each other"_s;
    QTest::newRow("no max_memory") << QStringList{u"--config"_s, hfConfig("gpt2")}
                                   << u"--max_memory is required with --config"_s;
    QTest::newRow("print a request")
        << QStringList{u"--request"_s, bad + u"/absent.json"_s, u"--print_tree"_s}
        << u"--print_tree prints the model of --module_tree, --model, --config or --checkpoint"_s;
  }

  void badModelFiles() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    // A tiny Llama's checkpoint, broken three ways: a shard missing, a tensor its shard lacks, a shape off by a row.
    QDir root(m_dir.filePath(u"bad_checkpoints"_s));
    root.removeRecursively();
    for (const QString& d : {u"missing_shard"_s, u"missing_tensor"_s, u"wrong_shape"_s}) {
      QVERIFY(root.mkpath(d));
      write(u"bad_checkpoints/"_s + d + u"/config.json"_s, tinyLlama());
    }
    const Run printed = runFathom({u"device-map"_s, u"--config"_s, root.filePath(u"wrong_shape"_s), u"--print_tree"_s});
    QVERIFY2(printed.exitCode == 0, qPrintable(describe(printed)));
    QList<StoredTensor> stored = storedTensorsOf(parse(printed).toObject(), u"BF16"_s);
    QJsonObject oneShard;
    QJsonObject twoShards;
    for (const StoredTensor& t : stored) {
      oneShard.insert(t.name, u"model-00001-of-00001.safetensors"_s);
      twoShards.insert(t.name, t.name == u"lm_head.weight"_s ? u"model-00002-of-00002.safetensors"_s
                                                             : u"model-00001-of-00002.safetensors"_s);
    }
    write(u"bad_checkpoints/missing_shard/model.safetensors.index.json"_s, QJsonObject{{u"weight_map"_s, twoShards}});
    QVERIFY(writeSafetensors(root.filePath(u"missing_shard/model-00001-of-00002.safetensors"_s),
                             stored.mid(0, stored.size() - 1)));
    write(u"bad_checkpoints/missing_tensor/model.safetensors.index.json"_s, QJsonObject{{u"weight_map"_s, oneShard}});
    QList<StoredTensor> withoutNorm = stored;
    withoutNorm.removeIf([](const StoredTensor& t) { return t.name == u"model.norm.weight"_s; });
    QVERIFY(writeSafetensors(root.filePath(u"missing_tensor/model-00001-of-00001.safetensors"_s), withoutNorm));
    QCOMPARE(stored.front().name, u"model.embed_tokens.weight"_s);
    stored.front().shape = {11, 8};
    QVERIFY(writeSafetensors(root.filePath(u"wrong_shape/model.safetensors"_s), stored));

    const Run r = runFathom(QStringList{u"device-map"_s} + args);
    QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
    QVERIFY2(r.out.isEmpty(), qPrintable(describe(r)));
    QVERIFY2(QString::fromUtf8(r.err).contains(message), qPrintable(u"expected: "_s + message + u"\n"_s + describe(r)));
  }

  void badInputExitsWithTwo_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString tree = m_dir.filePath(u"tree.json"_s);
    const QString missing = m_dir.filePath(u"missing.json"_s);
    QTest::newRow("missing file") << QStringList{u"--request"_s, missing} << u"--request: no such file '"_s + missing;
    QTest::newRow("missing tree") << QStringList{u"--module_tree"_s, missing, u"--max_memory"_s, u"0=1GiB"_s}
                                  << u"--module_tree: no such file '"_s + missing;
    QTest::newRow("folder") << QStringList{u"--request"_s, m_dir.path()} << u"is a folder; expected a JSON file"_s;
    QTest::newRow("bad json") << QStringList{u"--request"_s, m_dir.filePath(u"bad.json"_s)}
                              << u"bad.json' is not valid JSON: parse error at line 2, column"_s;
    QTest::newRow("unknown device") << QStringList{u"--module_tree"_s, tree, u"--max_memory"_s, u"gpu0=1GiB"_s}
                                    << u"--max_memory: device 'gpu0' is not recognized"_s;
    QTest::newRow("no size") << QStringList{u"--module_tree"_s, tree, u"--max_memory"_s, u"0"_s}
                             << u"--max_memory: expected DEVICE=SIZE"_s;
    QTest::newRow("bad size") << QStringList{u"--module_tree"_s, tree, u"--max_memory"_s, u"0=20 parsecs"_s}
                              << u"--max_memory: device 0: "_s;
    QTest::newRow("unknown dtype") << QStringList{u"--module_tree"_s, tree,         u"--max_memory"_s,
                                                  u"0=1GiB"_s,        u"--dtype"_s, u"float12"_s}
                                   << u"--dtype: unknown dtype 'float12' (expected one of float64, float32"_s;
    QTest::newRow("unknown special dtype")
        << QStringList{u"--module_tree"_s, tree, u"--max_memory"_s, u"0=1GiB"_s, u"--special_dtype"_s, u"a.weight=f8"_s}
        << u"--special_dtype a.weight: unknown dtype 'f8'"_s;
    QTest::newRow("both inputs")
        << QStringList{u"--request"_s, tree, u"--module_tree"_s, tree}
        << u"--request, --module_tree, --model, --config and --checkpoint exclude each other"_s;
    QTest::newRow("neither input") << QStringList{u"--json"_s}
                                   << u"give --model NAME, --module_tree FILE, --config FILE or --checkpoint PATH"_s;
    QTest::newRow("no max_memory") << QStringList{u"--module_tree"_s, tree}
                                   << u"--max_memory is required with --module_tree"_s;
    QTest::newRow("tree flag with request")
        << QStringList{u"--request"_s, tree, u"--max_memory"_s, u"0=1GiB"_s}
        << u"--max_memory applies to --model, --module_tree, --config and --checkpoint"_s;
    QTest::newRow("low_zero without balanced")
        << QStringList{u"--module_tree"_s, tree, u"--max_memory"_s, u"0=1GiB"_s, u"--low_zero"_s}
        << u"--low_zero applies to --balanced_memory only"_s;
    QTest::newRow("unknown strategy")
        << QStringList{u"--module_tree"_s, tree, u"--max_memory"_s, u"0=1GiB"_s, u"--strategy"_s, u"fastest"_s}
        << u"--strategy: unknown device-map strategy 'fastest' (expected one of auto, balanced, balanced_low_0, "
           u"sequential, optimal)"_s;
    QTest::newRow("strategy with balanced_memory")
        << QStringList{u"--module_tree"_s, tree,          u"--max_memory"_s,     u"0=1GiB"_s,
                       u"--strategy"_s,    u"balanced"_s, u"--balanced_memory"_s}
        << u"--strategy plans a device map; --balanced_memory prints limits"_s;
    QTest::newRow("strategy with request")
        << QStringList{u"--request"_s, tree, u"--strategy"_s, u"optimal"_s}
        << u"--strategy applies to --model, --module_tree, --config and --checkpoint"_s;
    QTest::newRow("optimal with fallback")
        << QStringList{u"--module_tree"_s, tree,         u"--max_memory"_s,         u"0=1GiB"_s,
                       u"--strategy"_s,    u"optimal"_s, u"--fallback_allocation"_s}
        << u"fallback_allocation does not apply"_s;
    QTest::newRow("bad tree") << QStringList{u"--module_tree"_s, m_dir.filePath(u"broken_tree.json"_s),
                                             u"--max_memory"_s, u"0=1GiB"_s}
                              << u"broken_tree.json: module tree: "_s;
    QTest::newRow("unknown function") << QStringList{u"--request"_s, m_dir.filePath(u"unknown_function.json"_s)}
                                      << u"unknown_function.json: device-map request: unknown function 'guess'"_s;
    const QString mapFile = m_dir.filePath(u"bad_map.json"_s);
    QTest::newRow("model and tree")
        << QStringList{u"--model"_s, u"gpt-tiny"_s, u"--module_tree"_s, tree}
        << u"--request, --module_tree, --model, --config and --checkpoint exclude each other"_s;
    QTest::newRow("unknown model") << QStringList{u"--model"_s, u"gpt-huge"_s, u"--max_memory"_s, u"cpu=1GB"_s}
                                   << u"gpt-huge"_s;
    QTest::newRow("run without a built-in model")
        << QStringList{u"--module_tree"_s, tree, u"--max_memory"_s, u"0=1GiB"_s, u"--run"_s}
        << u"--run dispatches a built-in model: give --model NAME"_s;
    QTest::newRow("device_map without run") << QStringList{u"--model"_s, u"gpt-tiny"_s, u"--device_map"_s, mapFile}
                                            << u"--device_map FILE is the map --run dispatches: add --run"_s;
    QTest::newRow("run flag without run")
        << QStringList{u"--model"_s, u"gpt-tiny"_s, u"--max_memory"_s, u"cpu=1GB"_s, u"--seed"_s, u"3"_s}
        << u"--seed applies to --run"_s;
    QTest::newRow("device_map with limits")
        << QStringList{u"--model"_s, u"gpt-tiny"_s,     u"--run"_s,  u"--device_map"_s,
                       mapFile,      u"--max_memory"_s, u"cpu=1GB"_s}
        << u"--max_memory plans a map; --device_map gives one"_s;
    QTest::newRow("run with balanced memory")
        << QStringList{u"--model"_s, u"gpt-tiny"_s, u"--max_memory"_s, u"cpu=1GB"_s, u"--balanced_memory"_s, u"--run"_s}
        << u"--run dispatches a device map; --balanced_memory prints limits"_s;
    QTest::newRow("map names no module") << QStringList{u"--model"_s, u"gpt-tiny"_s, u"--run"_s, u"--device_map"_s,
                                                        m_dir.filePath(u"map_unknown.json"_s)}
                                         << u"'transformer.h.9' is not a module or tensor of the model"_s;
    QTest::newRow("map leaves a tensor") << QStringList{u"--model"_s, u"gpt-tiny"_s, u"--run"_s, u"--device_map"_s,
                                                        m_dir.filePath(u"map_partial.json"_s)}
                                         << u"places no device for 'transformer.ln_f.weight'"_s;
    QTest::newRow("map device unknown") << QStringList{u"--model"_s, u"gpt-tiny"_s, u"--run"_s, u"--device_map"_s,
                                                       mapFile}
                                        << u"module '': device \"gpu0\" is not recognized"_s;
    QTest::newRow("GPU without CUDA") << QStringList{u"--model"_s, u"gpt-tiny"_s, u"--run"_s, u"--device_map"_s,
                                                     m_dir.filePath(u"map_gpu.json"_s)}
                                      << u"LibTorch sees 0 CUDA devices"_s;
  }

  void badInputExitsWithTwo() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    write(u"tree.json"_s, modelForTest());
    write(u"bad.json"_s, "{\"model\":\n  {\"modules\": [,]}}\n");
    write(u"broken_tree.json"_s, QJsonObject{{u"modules"_s, QJsonArray{QJsonObject{{u"name"_s, u""_s}}}}});
    write(u"bad_map.json"_s, QJsonObject{{u""_s, u"gpu0"_s}});
    write(u"map_gpu.json"_s, QJsonObject{{u""_s, 0}});
    write(u"map_unknown.json"_s, QJsonObject{{u""_s, u"cpu"_s}, {u"transformer.h.9"_s, u"disk"_s}});
    write(u"map_partial.json"_s, QJsonObject{{u"transformer.wte"_s, u"cpu"_s},
                                             {u"transformer.wpe"_s, u"cpu"_s},
                                             {u"transformer.h"_s, u"disk"_s}});
    write(u"unknown_function.json"_s,
          QJsonObject{{u"model"_s, modelForTest()}, {u"call"_s, QJsonObject{{u"function"_s, u"guess"_s}}}});
    const Run r = runFathom(QStringList{u"device-map"_s} + args);
    QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
    QVERIFY2(r.out.isEmpty(), qPrintable(describe(r)));
    QVERIFY2(QString::fromUtf8(r.err).contains(message), qPrintable(u"expected: "_s + message + u"\n"_s + describe(r)));
  }

  void dispatchABuiltInModel() {
    // Plan gpt-tiny with room on the CPU for part of it, write the map, dispatch it: the output is the undispatched
    // model's exactly.
    const QString output = m_dir.filePath(u"gpt_tiny_map.json"_s);
    const QString offload = m_dir.filePath(u"offload"_s);
    const Run r = runFathom({u"device-map"_s, u"--model"_s, u"gpt-tiny"_s, u"--max_memory"_s, u"cpu=300KB"_s,
                             u"--output"_s, output, u"--run"_s, u"--offload_folder"_s, offload, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject answer = parse(r).toObject();
    const QJsonObject dispatch = answer.value(u"dispatch"_s).toObject();
    QVERIFY2(dispatch.value(u"identical"_s).toBool(), qPrintable(compact(dispatch)));
    QCOMPARE(dispatch.value(u"max_abs_difference"_s).toDouble(), 0.0);
    QCOMPARE(dispatch.value(u"main_device"_s).toString(), u"cpu"_s);
    const QJsonObject placed = dispatch.value(u"placed_bytes"_s).toObject();
    QVERIFY2(placed.value(u"cpu"_s).toDouble() > 0 && placed.value(u"disk"_s).toDouble() > 0,
             qPrintable(compact(placed)));
    QVERIFY(placed.value(u"cpu"_s).toDouble() <= 300'000);
    // Units: the model, and per block the block, its attention and MLP and their four Linear layers: 1 + 2 x 7.
    QCOMPARE(dispatch.value(u"units"_s).toArray().size(), 15);
    QVERIFY(!QFile::exists(offload + u"/offload.safetensors"_s));  // removed with the dispatch
    QVERIFY(dispatch.value(u"recorded_in_run"_s).isNull());  // not under `fathom launch`: no run to record it with

    // --output is Hugging Face's form of the same map, in its order.
    QFile file(output);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject hf = QJsonDocument::fromJson(file.readAll()).object();
    const QJsonArray pairs = answer.value(u"device_map"_s).toArray();
    QCOMPARE(hf.size(), pairs.size());
    for (const QJsonValue& pair : pairs) {
      QCOMPARE(hf.value(pair.toArray().at(0).toString()), pair.toArray().at(1));
    }

    // The written map dispatched again, in the text form.
    const Run again = runFathom({u"device-map"_s, u"--model"_s, u"gpt-tiny"_s, u"--run"_s, u"--device_map"_s, output,
                                 u"--batch_size"_s, u"2"_s, u"--seq_len"_s, u"8"_s});
    QVERIFY2(again.exitCode == 0, qPrintable(describe(again)));
    QVERIFY2(again.out.contains("Output against the undispatched model: identical (max abs difference 0)"),
             again.out.constData());
    QVERIFY2(again.out.contains("transformer.h.1.mlp"), again.out.constData());
    QVERIFY2(again.out.contains("Peak RSS over the forward"), again.out.constData());
  }

  // Under `fathom launch`, the dispatch is recorded with the run (docs/bigmodel.md, "In the workspace"): the model's
  // tree, the map and the limits it was planned with, which `fathom runs show --json` prints and the Studio opens.
  void launchedDispatchIsRecordedWithTheRun() {
    const QString workspace = m_dir.filePath(u"dispatch_runs.sqlite"_s);
    const Run r =
        runFathom({u"launch"_s, u"--workspace"_s, workspace, u"--num_processes"_s, u"1"_s,
                   fathom::test::fathomExecutable(), u"device-map"_s, u"--model"_s, u"gpt-tiny"_s, u"--max_memory"_s,
                   u"cpu=300KB"_s, u"--no_split"_s, u"GptBlock"_s, u"--run"_s, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QString line = QString::fromUtf8(r.out).split(u'\n').filter(u"\"dispatch\""_s).value(0);
    const QJsonObject answer = QJsonDocument::fromJson(line.mid(line.indexOf(u'{')).toUtf8()).object();
    const qint64 run = answer.value(u"dispatch"_s).toObject().value(u"recorded_in_run"_s).toInteger();
    QVERIFY2(run > 0, qPrintable(describe(r)));

    const Run shown = runFathom({u"runs"_s, u"show"_s, QString::number(run), u"--workspace"_s, workspace, u"--json"_s});
    QVERIFY2(shown.exitCode == 0, qPrintable(describe(shown)));
    const QJsonArray maps = parse(shown).toObject().value(u"device_maps"_s).toArray();
    QCOMPARE(maps.size(), 1);
    QCOMPARE(maps[0].toObject().value(u"rank"_s).toInt(), 0);
    const QJsonObject record = maps[0].toObject().value(u"record"_s).toObject();
    QCOMPARE(record.value(u"format"_s).toString(), u"fathom-dispatch-record"_s);
    QCOMPARE(record.value(u"model"_s).toString(), u"gpt-tiny"_s);
    QCOMPARE(record.value(u"device_map"_s).toArray(), answer.value(u"device_map"_s).toArray());
    QCOMPARE(record.value(u"max_memory"_s).toArray(), (QJsonArray{QJsonArray{u"cpu"_s, 300'000}}));
    QCOMPARE(record.value(u"no_split"_s).toArray(), QJsonArray{u"GptBlock"_s});
    QCOMPARE(record.value(u"module_tree"_s).toObject().value(u"root_class"_s).toString(), u"Gpt"_s);

    const Run text = runFathom({u"runs"_s, u"show"_s, QString::number(run), u"--workspace"_s, workspace});
    QVERIFY2(text.out.contains("Device maps") && text.out.contains("gpt-tiny"), text.out.constData());
  }

  void helpHasAnExample() {
    const Run r = runFathom({u"device-map"_s, u"--help"_s});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("--max_memory 0=20GiB,1=20GiB,cpu=64GiB"), r.out.constData());
    QVERIFY2(r.out.contains("--request"), r.out.constData());
    QVERIFY2(r.out.contains("--strategy") && r.out.contains("balanced_low_0") && r.out.contains("optimal"),
             r.out.constData());
    QVERIFY2(r.out.contains("Without --strategy, the map is infer_auto_device_map's"), r.out.constData());
    QVERIFY2(r.out.contains("--model gpt-small --max_memory cpu=20MB --output map.json --run"), r.out.constData());
  }
};

QTEST_GUILESS_MAIN(TestDeviceMapCli)
#include "tst_device_map_cli.moc"
