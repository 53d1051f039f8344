// SPDX-License-Identifier: Apache-2.0
// The what-if planner's computation: model sources, hardware choices and requests as JSON, the strategy
// comparison against plan::predict, the GPU sweep, plan search, explanations, CSV and the saved-plan JSON. Prints
// how long a comparison and a built-in model's introspection take (docs/studio.md quotes these numbers).
#include "planner/plan_comparison.h"

#include <fathom/common/error.h>
#include <fathom/plan/predict.h>

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace fathom;
using views::ModelSource;
using views::PlanRequest;

namespace {

/// Llama 2 7B typed in by hand (the what-if view's "dimensions" source).
ModelSource llama7b() {
  ModelSource s;
  s.kind = ModelSource::Kind::Dimensions;
  s.dimsName = u"Llama 2 7B"_s;
  s.dims.arch = plan::Arch::Llama;
  s.dims.layers = 32;
  s.dims.hidden = 4096;
  s.dims.heads = 32;
  s.dims.ffnHidden = 11008;
  s.dims.vocab = 32000;
  s.dims.tiedEmbeddings = false;
  return s;
}

PlanRequest request() {
  PlanRequest r;
  r.model = llama7b();
  r.hardware.preset = u"h100-sxm-80gb"_s;
  r.plan.numGpus = 8;
  r.plan.microBatch = 1;
  r.plan.seqLen = 4096;
  return r;
}

}  // namespace

class TestPlanComparison : public QObject {
  Q_OBJECT

private slots:
  void modelSourcesResolve() {
    const plan::ModelSpec fromDims = llama7b().resolve();
    ModelSource hf;
    hf.kind = ModelSource::Kind::HfConfig;
    hf.hfConfigPath = QStringLiteral(FATHOM_TEST_DATA_DIR "/hf_configs/llama-2-7b");  // a folder: its config.json
    QCOMPARE(hf.resolve().totalParams, fromDims.totalParams);
    QCOMPARE(fromDims.totalParams, 6738415616);  // Llama 2 7B as transformers counts it

    ModelSource builtin;
    builtin.builtin.name = "gpt-tiny";
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(builtin.resolve().totalParams, 112384);
    builtin.builtin.name = "gpt-small";
    const auto small = builtin.resolve();
    qInfo("introspecting gpt-tiny and gpt-small took %.1f ms", double(timer.nsecsElapsed()) / 1e6);
    QCOMPARE(small.totalParams, 10795008);
    QVERIFY(!small.parameterTensors.empty());
    builtin.builtin.set(models::ModelDimension::NLayer, 3);
    QCOMPARE(builtin.builtin.trainArguments(), (std::vector<std::string>{"--model", "gpt-small", "--n_layer", "3"}));

    ModelSource params;
    params.kind = ModelSource::Kind::Parameters;
    params.parameters = 7.5e9;
    QCOMPARE(params.resolve().totalParams, 7500000000);
    params.parameters = 0;
    QVERIFY_THROWS_EXCEPTION(ConfigError, params.resolve());
    hf.hfConfigPath = u"/nonexistent/config.json"_s;
    QVERIFY_THROWS_EXCEPTION(ConfigError, hf.resolve());
  }

  void requestsRoundTripAsJson() {
    PlanRequest r = request();
    r.plan.strategy = plan::Strategy::Fsdp;
    r.plan.fsdpSharding = plan::FsdpSharding::HybridShard;
    r.plan.offloadOptimizer = true;
    r.plan.recompute = plan::Recompute::Selective;
    r.hardware.custom = plan::loadHardware("a100-80gb");
    r.hardware.custom->name = "my-a100";
    r.hardware.custom->memoryBytes = 40LL << 30;
    const QJsonObject json = r.toJson();
    const PlanRequest back = PlanRequest::fromJson(QJsonDocument::fromJson(QJsonDocument(json).toJson()).object());
    QCOMPARE(back.toJson(), json);
    QVERIFY(back.plan.fsdpSharding == plan::FsdpSharding::HybridShard);
    QCOMPARE(back.hardware.resolve().memoryBytes, 40LL << 30);
    QCOMPARE(back.model.cacheKey(), r.model.cacheKey());
    QVERIFY(back.model.dims.arch == plan::Arch::Llama);
    // A bad custom device is refused with the core's message.
    PlanRequest bad = back;
    bad.hardware.custom->memoryBytes = 0;
    QVERIFY_THROWS_EXCEPTION(ConfigError, bad.hardware.resolve());
    QJsonObject unknown = json;
    unknown[u"model"_s] = QJsonObject{{u"kind"_s, u"onnx"_s}};
    QVERIFY_THROWS_EXCEPTION(ConfigError, PlanRequest::fromJson(unknown));
  }

  void strategiesSideBySideEqualPredict() {
    const PlanRequest r = request();
    const plan::ModelSpec model = r.model.resolve();
    const plan::HardwareSpec hw = r.hardware.resolve();
    const views::PlanComparison c = views::compare(r, model, hw);
    qInfo("one comparison (8 strategies, 11 GPU counts each, plan search) took %.2f ms", c.elapsedMs);
    QStringList labels;
    for (const auto& e : c.strategies) {
      labels << views::strategyName(e.plan);
    }
    QCOMPARE(labels, (QStringList{u"DDP"_s, u"FSDP full shard"_s, u"FSDP shard grad op"_s, u"FSDP hybrid shard"_s,
                                  u"FSDP no shard"_s, u"ZeRO-1"_s, u"ZeRO-2"_s, u"ZeRO-3"_s}));
    for (const auto& e : c.strategies) {
      QVERIFY2(e.ok(), qPrintable(e.error));
      const plan::Prediction direct = plan::predict(model, hw, e.plan);
      QCOMPARE(e.prediction->memory.total, direct.memory.total);
      QCOMPARE(e.prediction->time.stepS, direct.time.stepS);
      QVERIFY(!e.prediction->explanations.empty());
    }
    // 7B parameters at 18 bytes each do not fit one 80 GB device under DDP; sharded over 8 GPUs they do.
    QVERIFY(!c.strategies[0].prediction->fits);
    QVERIFY(c.strategies[1].prediction->fits);
    QVERIFY(c.strategies[7].prediction->fits);
    QCOMPARE(c.current(), &c.strategies[0]);
    QVERIFY(views::explanation(c.strategies[1], "memory.parameters").startsWith(u"memory.parameters = "_s));
    QVERIFY(views::communicationExplanation(c.strategies[1]).contains(u"reduce_scatter"_s));
  }

  void sweepAndSearch() {
    PlanRequest r = request();
    const auto model = r.model.resolve();
    const auto hw = r.hardware.resolve();
    const views::PlanComparison c = views::compare(r, model, hw);
    QCOMPARE(c.gpuCounts, (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}));
    QCOMPARE(c.scaling.size(), c.strategies.size());
    // FSDP full shard: memory per GPU falls as the shards get smaller.
    const views::ScalingSeries& fsdp = c.scaling[1];
    for (std::size_t i = 1; i < c.gpuCounts.size(); ++i) {
      QVERIFY(fsdp.memoryBytes[i].has_value());
      QVERIFY(*fsdp.memoryBytes[i] < *fsdp.memoryBytes[i - 1]);
    }
    // DDP replicates everything: the same memory at every count.
    QCOMPARE(*c.scaling[0].memoryBytes.front(), *c.scaling[0].memoryBytes.back());
    // Hybrid shard across nodes of 8: from 16 GPUs on it shards within the node only, so it keeps more per GPU.
    QVERIFY(*c.scaling[3].memoryBytes[8] > *c.scaling[1].memoryBytes[8]);
    // Top plans: fitting, best first, at most kSearchLimit.
    QVERIFY(c.searchError.isEmpty());
    QVERIFY(!c.search.results.empty());
    QVERIFY(c.search.results.size() <= views::kSearchLimit);
    for (std::size_t i = 1; i < c.search.results.size(); ++i) {
      QVERIFY(c.search.results[i - 1].prediction.time.tokensPerS >= c.search.results[i].prediction.time.tokensPerS);
      QVERIFY(c.search.results[i].prediction.fits);
    }
  }

  void invalidPlansAreReportedNotThrown() {
    PlanRequest r = request();
    r.plan.numGpus = 3;
    r.plan.tp = 2;  // does not divide 3 GPUs
    const views::PlanComparison c = views::compare(r, r.model.resolve(), r.hardware.resolve());
    for (const auto& e : c.strategies) {
      QVERIFY(!e.ok());
      QVERIFY2(e.error.contains(u"tp"_s), qPrintable(e.error));
    }
  }

  void exportsCsvAndJson() {
    const PlanRequest r = request();
    const views::PlanComparison c = views::compare(r, r.model.resolve(), r.hardware.resolve());
    const QStringList lines = views::comparisonCsv(c).split(u'\n');
    QCOMPARE(lines.at(0), u"# model,Llama 2 7B,parameters,6738415616"_s);
    QVERIFY(lines.at(4).startsWith(u"strategy,parameters,gradients,"_s));
    const QStringList ddp = lines.at(5).split(u',');
    QCOMPARE(ddp.at(0), u"ddp"_s);
    QCOMPARE(ddp.at(9).toDouble(), c.strategies[0].prediction->memory.total);
    QCOMPARE(ddp.at(10), u"no"_s);
    QCOMPARE(lines.at(6).split(u',').at(0), u"fsdp/full_shard"_s);
    QVERIFY2(lines.at(14).startsWith(u"num_gpus,ddp total_bytes,ddp step_s,fsdp/full_shard total_bytes"_s),
             qPrintable(lines.at(14)));
    QCOMPARE(lines.at(15).split(u',').at(0), u"1"_s);
    QCOMPARE(lines.at(25).split(u',').at(0), u"1024"_s);

    const QJsonObject input =
        QJsonDocument::fromJson(QByteArray::fromStdString(views::comparisonInputJson(r))).object();
    QCOMPARE(input[u"kind"_s].toString(), u"comparison"_s);
    QCOMPARE(PlanRequest::fromJson(input[u"request"_s].toObject()).toJson(), r.toJson());
    const QJsonObject prediction =
        QJsonDocument::fromJson(QByteArray::fromStdString(views::comparisonPredictionJson(c))).object();
    const QJsonArray strategies = prediction[u"strategies"_s].toArray();
    QCOMPARE(strategies.size(), 8);
    QCOMPARE(strategies[1].toObject()[u"plan"_s].toObject()[u"fsdp_sharding_strategy"_s].toString(), u"full_shard"_s);
    QCOMPARE(prediction[u"search"_s].toObject()[u"results"_s].toArray().size(), qsizetype(c.search.results.size()));
  }
};

QTEST_GUILESS_MAIN(TestPlanComparison)
#include "tst_plan_comparison.moc"
