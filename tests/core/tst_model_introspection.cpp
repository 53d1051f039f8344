// SPDX-License-Identifier: Apache-2.0
// Built-in models introspected from their LibTorch modules (core/models/model_introspection.h): the counts equal
// the planner's closed forms (builtinModelSpec / modelFromDims) for gpt and the exact mlp formula, and the
// default generator is left as it was.
#include "fathom/common/error.h"
#include "fathom/models/mlp.h"
#include "fathom/models/model_factory.h"
#include "fathom/models/model_introspection.h"
#include "fathom/plan/model_spec.h"
#include "plan_test_support.h"

#include <torch/torch.h>

#include <QTest>

using namespace fathom::models;

class TestModelIntrospection : public QObject {
  Q_OBJECT

private slots:
  void gptMatchesPlanner_data();
  void gptMatchesPlanner();
  void mlpExact_data();
  void mlpExact();
  void leavesGeneratorAlone();
  void unknownModel();
  void gptTinyLayoutIsThePlannerFixture();
};

void TestModelIntrospection::gptMatchesPlanner_data() {
  QTest::addColumn<QString>("name");
  QTest::addColumn<qlonglong>("nLayer");  // 0 = preset
  QTest::addColumn<bool>("bias");
  QTest::addColumn<qlonglong>("total");
  QTest::newRow("gpt-tiny") << "gpt-tiny" << 0LL << true << 112'384LL;
  QTest::newRow("gpt-small") << "gpt-small" << 0LL << true << 10'795'008LL;
  QTest::newRow("gpt 3 layers") << "gpt" << 3LL << true << 162'368LL;
  QTest::newRow("gpt-tiny no bias") << "gpt-tiny" << 0LL << false << 0LL;
}

void TestModelIntrospection::gptMatchesPlanner() {
  QFETCH(QString, name);
  QFETCH(qlonglong, nLayer);
  QFETCH(bool, bias);
  QFETCH(qlonglong, total);
  ModelRequest request;
  request.name = name.toStdString();
  if (nLayer > 0)
    request.set(ModelDimension::NLayer, static_cast<double>(nLayer));
  request.bias = bias;
  const fathom::plan::ModelSpec real = introspectModel(request);
  const fathom::plan::ModelSpec closed = builtinModelSpec(request);
  const GptOptions o = resolveGptOptions(request);
  if (total > 0)
    QCOMPARE(real.totalParams, total);
  QCOMPARE(real.totalParams, closed.totalParams);
  QCOMPARE(real.totalParams, gptParameterCount(o));
  QCOMPARE(real.blockParams, closed.blockParams);
  QCOMPARE(real.embeddingParams, closed.embeddingParams);
  QCOMPARE(real.headParams, closed.headParams);    // tied lm_head: 0
  QCOMPARE(real.otherParams, closed.otherParams);  // ln_f
  QCOMPARE(real.largestUnitParams, closed.largestUnitParams);
  QCOMPARE(real.largestModuleParams, closed.largestModuleParams);
  QCOMPARE(real.matmulParamsPerToken, closed.matmulParamsPerToken);
  QCOMPARE(real.bufferElements, 0LL);  // the causal mask is built per call, not a buffer
  QVERIFY(real.hasDims());
  QCOMPARE(real.dims.layers, o.nLayer);
  QCOMPARE(real.dims.hidden, o.nEmbd);
  QCOMPARE(real.dims.dropout, false);  // the presets have dropout 0
  // wte, wpe, 12 (or 7 without biases) per block, ln_f (1 or 2)
  const std::size_t perBlock = bias ? 12 : 6;
  QCOMPARE(real.parameterTensors.size(), 2 + perBlock * static_cast<std::size_t>(o.nLayer) + (bias ? 2 : 1));
  std::int64_t sum = 0;
  for (std::int64_t n : real.parameterTensors)
    sum += n;
  QCOMPARE(sum, real.totalParams);
  QCOMPARE(real.parameterTensors.front(), o.vocabSize * o.nEmbd);  // transformer.wte.weight first
}

void TestModelIntrospection::mlpExact_data() {
  QTest::addColumn<qlonglong>("hidden");
  QTest::addColumn<qlonglong>("layers");
  QTest::newRow("64x2") << 64LL << 2LL;
  QTest::newRow("1024x4") << 1024LL << 4LL;
}

void TestModelIntrospection::mlpExact() {
  QFETCH(qlonglong, hidden);
  QFETCH(qlonglong, layers);
  ModelRequest request;
  request.name = "mlp";
  request.set(ModelDimension::Hidden, static_cast<double>(hidden))
      .set(ModelDimension::Layers, static_cast<double>(layers));
  const fathom::plan::ModelSpec spec = introspectModel(request);
  const std::int64_t h = hidden;
  QCOMPARE(spec.totalParams, layers * (h * h + h) + h + 1);
  QCOMPARE(spec.totalParams, mlpParameterCount(request.shape().mlp));
  QCOMPARE(spec.totalParams, builtinModelSpec(request).totalParams);
  QCOMPARE(spec.blockParams, h * h + h);
  QCOMPARE(spec.headParams, h + 1);
  QCOMPARE(spec.embeddingParams, 0LL);
  QCOMPARE(spec.otherParams, 0LL);
  QCOMPARE(spec.largestUnitParams, h * h + h);
  QCOMPARE(spec.largestModuleParams, h * h + h);
  QCOMPARE(spec.bufferElements, 0LL);
  QVERIFY(!spec.hasDims());
  QCOMPARE(spec.parameterTensors.size(), static_cast<std::size_t>(2 * layers + 2));
  QCOMPARE(spec.parameterTensors.front(), h * h);  // blocks.0.linear.weight
  QCOMPARE(spec.parameterTensors.back(), 1LL);     // head.bias
}

void TestModelIntrospection::leavesGeneratorAlone() {
  torch::manual_seed(7);
  const at::Tensor expected = torch::rand({4});
  torch::manual_seed(7);
  ModelRequest request;
  request.name = "gpt-tiny";
  (void)introspectModel(request);
  QVERIFY(torch::equal(torch::rand({4}), expected));
}

void TestModelIntrospection::unknownModel() {
  ModelRequest request;
  request.name = "resnet";
  QVERIFY_THROWS_EXCEPTION(fathom::ConfigError, introspectModel(request));
}

// The planner's exact-layout tests (tst_plan_memory, tst_plan_comm) use a hand-written gpt-tiny; it must be the
// real module's tensors and blocks.
void TestModelIntrospection::gptTinyLayoutIsThePlannerFixture() {
  ModelRequest request;
  request.name = "gpt-tiny";
  const fathom::plan::ModelSpec real = introspectModel(request);
  const fathom::plan::ModelSpec fixture = plantest::gptTiny();
  QCOMPARE(real.parameterTensors, fixture.parameterTensors);
  QCOMPARE(real.blockElements, fixture.blockElements);
  QCOMPARE(real.totalParams, fixture.totalParams);

  request.name = "mlp";
  request.dimensions = {{ModelDimension::Hidden, 8}, {ModelDimension::Layers, 3}};
  QCOMPARE(introspectModel(request).blockElements, (std::vector<std::int64_t>{72, 72, 72}));
}

QTEST_GUILESS_MAIN(TestModelIntrospection)
#include "tst_model_introspection.moc"
