// SPDX-License-Identifier: Apache-2.0
// The built-in models: parameter counts against the planner, names, shapes, losses, determinism, the factory.
#include "fathom/common/error.h"
#include "fathom/models/gpt.h"
#include "fathom/models/mlp.h"
#include "fathom/models/model_factory.h"
#include "fathom/plan/model_spec.h"

#include <torch/torch.h>

#include <QTest>

#include "error_helpers.h"

#include <cmath>

using namespace fathom::models;

namespace {

std::int64_t countParams(const torch::nn::Module& module) {
  std::int64_t n = 0;
  for (const auto& p : module.parameters()) {
    n += p.numel();
  }
  return n;
}

std::vector<std::string> paramNames(const torch::nn::Module& module) {
  std::vector<std::string> names;
  for (const auto& item : module.named_parameters()) {
    names.push_back(item.key());
  }
  return names;
}

using fathom::test::messageOf;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Runs `steps` SGD steps on one fixed batch; returns the losses.
std::vector<double> train(Model& model, const at::Tensor& input, const at::Tensor& target, int steps, double lr) {
  torch::optim::SGD sgd(model.parameters(), torch::optim::SGDOptions(lr));
  std::vector<double> losses;
  for (int i = 0; i < steps; ++i) {
    sgd.zero_grad();
    at::Tensor loss = model.loss(model.forward(input), target);
    loss.backward();
    sgd.step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

GptOptions customGpt() {
  return GptOptions{.nLayer = 3, .nHead = 4, .nEmbd = 48, .blockSize = 20, .vocabSize = 50};
}

}  // namespace

class TstModels : public QObject {
  Q_OBJECT

private slots:
  void gptParamsMatchPlanner_data() {
    QTest::addColumn<QString>("preset");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("gpt-tiny") << "gpt-tiny" << qint64(112'384);
    QTest::newRow("gpt-small") << "gpt-small" << qint64(10'795'008);
    QTest::newRow("custom L3 h48 a4 T20 v50") << "custom" << qint64(-1);
  }
  void gptParamsMatchPlanner() {
    QFETCH(QString, preset);
    QFETCH(qint64, expected);
    const GptOptions o = preset == "custom" ? customGpt() : gptPreset(preset.toStdString());
    Gpt model(o);
    const std::int64_t actual = countParams(model);
    const auto spec = fathom::plan::modelFromDims(toPlanDims(o));
    QCOMPARE(actual, spec.totalParams);
    QCOMPARE(actual, gptParameterCount(o));
    if (expected > 0) {
      QCOMPARE(actual, expected);
    }
    // Per-block count too, so a mismatch points at the block rather than the embeddings.
    QCOMPARE(countParams(*model.repeatedBlocks().front()), spec.blockParams);
  }

  void gptWithoutBias() {
    GptOptions o = customGpt();
    o.bias = false;
    Gpt model(o);
    for (const auto& name : paramNames(model)) {
      QVERIFY2(name.find("bias") == std::string::npos, name.c_str());
    }
    QCOMPARE(countParams(model), gptParameterCount(o));
    QCOMPARE(gptParameterCount(customGpt()) - gptParameterCount(o), 3 * 11 * 48 + 48);
    ModelRequest request{.name = "gpt",
                         .dimensions = {{ModelDimension::NLayer, static_cast<double>(o.nLayer)},
                                        {ModelDimension::NHead, static_cast<double>(o.nHead)},
                                        {ModelDimension::NEmbd, static_cast<double>(o.nEmbd)},
                                        {ModelDimension::BlockSize, static_cast<double>(o.blockSize)},
                                        {ModelDimension::VocabSize, static_cast<double>(o.vocabSize)}},
                         .bias = false};
    const auto spec = builtinModelSpec(request);
    QCOMPARE(spec.totalParams, countParams(model));
    QCOMPARE(spec.blockParams, countParams(*model.repeatedBlocks().front()));
    QCOMPARE(countParams(*makeModel(request)), countParams(model));
  }

  void mlpParams_data() {
    QTest::addColumn<qint64>("hidden");
    QTest::addColumn<qint64>("layers");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("256x2") << qint64(256) << qint64(2) << qint64(131'841);
    QTest::newRow("1024x4") << qint64(1024) << qint64(4) << qint64(4'199'425);
  }
  void mlpParams() {
    QFETCH(qint64, hidden);
    QFETCH(qint64, layers);
    QFETCH(qint64, expected);
    const MlpOptions o{.hidden = hidden, .layers = layers};
    Mlp model(o);
    QCOMPARE(countParams(model), expected);
    QCOMPARE(mlpParameterCount(o), expected);
    const auto spec = builtinModelSpec({.name = "mlp",
                                        .dimensions = {{ModelDimension::Hidden, static_cast<double>(hidden)},
                                                       {ModelDimension::Layers, static_cast<double>(layers)}}});
    QCOMPARE(spec.totalParams, expected);
    QCOMPARE(spec.name, std::string("mlp"));
    QCOMPARE(static_cast<qint64>(model.repeatedBlocks().size()), layers);
  }

  void gptParameterNames() {
    Gpt model(gptPreset("gpt-tiny"));
    const auto names = paramNames(model);
    const std::vector<std::string> head = {"transformer.wte.weight",
                                           "transformer.wpe.weight",
                                           "transformer.h.0.ln_1.weight",
                                           "transformer.h.0.ln_1.bias",
                                           "transformer.h.0.attn.c_attn.weight",
                                           "transformer.h.0.attn.c_attn.bias",
                                           "transformer.h.0.attn.c_proj.weight",
                                           "transformer.h.0.attn.c_proj.bias",
                                           "transformer.h.0.ln_2.weight",
                                           "transformer.h.0.ln_2.bias",
                                           "transformer.h.0.mlp.c_fc.weight",
                                           "transformer.h.0.mlp.c_fc.bias",
                                           "transformer.h.0.mlp.c_proj.weight",
                                           "transformer.h.0.mlp.c_proj.bias"};
    QCOMPARE(std::vector<std::string>(names.begin(), names.begin() + head.size()), head);
    QCOMPARE(names.size(), std::size_t{2 + 2 * 12 + 2});
    QCOMPARE(names[names.size() - 2], std::string("transformer.ln_f.weight"));
    QCOMPARE(names.back(), std::string("transformer.ln_f.bias"));
    // Shapes follow torch.nn.Linear ([out, in]), as nanoGPT's state dict does.
    const auto params = model.named_parameters();
    QCOMPARE(params["transformer.h.0.attn.c_attn.weight"].sizes().vec(), (std::vector<std::int64_t>{192, 64}));
    QCOMPARE(params["transformer.wte.weight"].sizes().vec(), (std::vector<std::int64_t>{128, 64}));
    QVERIFY(model.named_buffers().is_empty());
  }

  void mlpParameterNames() {
    Mlp model({.hidden = 8, .layers = 2});
    const std::vector<std::string> expected = {
        "blocks.0.linear.weight", "blocks.0.linear.bias", "blocks.1.linear.weight",
        "blocks.1.linear.bias",   "head.weight",          "head.bias"};
    QCOMPARE(paramNames(model), expected);
  }

  void lmHeadIsTied() {
    torch::manual_seed(1);
    Gpt model(gptPreset("gpt-tiny"));
    const at::Tensor input = torch::randint(0, 128, {2, 8}, torch::kLong);
    const at::Tensor target = torch::randint(0, 128, {2, 8}, torch::kLong);
    model.loss(model.forward(input), target).backward();
    // wte gets gradient from both the embedding lookup (only the ids used) and the lm_head (every row).
    const at::Tensor grad = model.named_parameters()["transformer.wte.weight"].grad();
    QVERIFY(grad.defined());
    QVERIFY(grad.abs().sum(1).gt(0).all().item<bool>());
  }

  void repeatedBlocks() {
    Gpt gpt(gptPreset("gpt-small"));
    QCOMPARE(gpt.repeatedBlockType(), std::string("GptBlock"));
    QCOMPARE(gpt.repeatedBlocks().size(), std::size_t{6});
    QVERIFY(std::dynamic_pointer_cast<GptBlock>(gpt.repeatedBlocks()[5]) != nullptr);
    Mlp mlp({.hidden = 4, .layers = 3});
    QCOMPARE(mlp.repeatedBlockType(), std::string("MlpBlock"));
    QCOMPARE(mlp.repeatedBlocks().size(), std::size_t{3});
    QVERIFY(std::dynamic_pointer_cast<MlpBlock>(mlp.repeatedBlocks()[0]) != nullptr);
  }

  void forwardShapes() {
    Gpt gpt(gptPreset("gpt-tiny"));
    QCOMPARE(gpt.forward(torch::zeros({3, 64}, torch::kLong)).sizes().vec(), (std::vector<std::int64_t>{3, 64, 128}));
    QCOMPARE(gpt.forward(torch::zeros({1, 5}, torch::kLong)).sizes().vec(), (std::vector<std::int64_t>{1, 5, 128}));
    Mlp mlp({.hidden = 16, .layers = 2});
    QCOMPARE(mlp.forward(torch::zeros({7, 16})).sizes().vec(), (std::vector<std::int64_t>{7, 1}));
  }

  void causalMask() {
    // Changing a later token must not change earlier positions' logits.
    torch::manual_seed(3);
    Gpt gpt(gptPreset("gpt-tiny"));
    gpt.eval();
    at::Tensor a = torch::randint(0, 128, {1, 10}, torch::kLong);
    at::Tensor b = a.clone();
    b[0][9] = (a[0][9].item<std::int64_t>() + 1) % 128;
    const at::Tensor la = gpt.forward(a);
    const at::Tensor lb = gpt.forward(b);
    QVERIFY(torch::allclose(la.slice(1, 0, 9), lb.slice(1, 0, 9)));
    QVERIFY(!torch::allclose(la.slice(1, 9), lb.slice(1, 9)));
  }

  void inputErrors() {
    Gpt gpt(gptPreset("gpt-tiny"));
    const auto tooLong = messageOf([&] { gpt.forward(torch::zeros({1, 65}, torch::kLong)); });
    QVERIFY2(contains(tooLong, "65") && contains(tooLong, "block_size is 64"), tooLong.c_str());
    QVERIFY(contains(messageOf([&] { gpt.forward(torch::zeros({1, 4})); }), "int64"));
    QVERIFY(contains(messageOf([&] { gpt.forward(torch::zeros({4}, torch::kLong)); }), "[batch, time]"));
    Mlp mlp({.hidden = 16, .layers = 1});
    QVERIFY(contains(messageOf([&] { mlp.forward(torch::zeros({2, 15})); }), "[batch, 16]"));
  }

  void lossDecreases() {
    torch::manual_seed(0);
    {
      Gpt gpt(gptPreset("gpt-tiny"));
      const at::Tensor input = torch::randint(0, 128, {4, 16}, torch::kLong);
      const at::Tensor target = torch::randint(0, 128, {4, 16}, torch::kLong);
      const auto losses = train(gpt, input, target, 20, 0.5);
      QVERIFY(std::isfinite(losses.front()) && std::isfinite(losses.back()));
      // Untrained GPT-2 init predicts ~uniformly: loss ≈ ln(128).
      QVERIFY2(std::abs(losses.front() - std::log(128.0)) < 0.2, std::to_string(losses.front()).c_str());
      QVERIFY2(losses.back() < losses.front() - 0.5, std::to_string(losses.back()).c_str());
    }
    {
      Mlp mlp({.hidden = 32, .layers = 2});
      const at::Tensor input = torch::randn({16, 32});
      const at::Tensor target = torch::randn({16, 1});
      const auto losses = train(mlp, input, target, 20, 0.05);
      QVERIFY(std::isfinite(losses.back()));
      QVERIFY2(losses.back() < 0.8 * losses.front(),
               (std::to_string(losses.front()) + " -> " + std::to_string(losses.back())).c_str());
    }
  }

  void deterministicInit() {
    for (const std::string name : {"gpt-tiny", "mlp"}) {
      torch::manual_seed(42);
      auto a = makeModel({.name = name});
      torch::manual_seed(42);
      auto b = makeModel({.name = name});
      torch::manual_seed(43);
      auto c = makeModel({.name = name});
      const auto pa = a->parameters();
      const auto pb = b->parameters();
      const auto pc = c->parameters();
      QCOMPARE(pa.size(), pb.size());
      bool anyDiffers = false;
      for (std::size_t i = 0; i < pa.size(); ++i) {
        QVERIFY(torch::equal(pa[i], pb[i]));
        anyDiffers = anyDiffers || !torch::equal(pa[i], pc[i]);
      }
      QVERIFY(anyDiffers);
    }
  }

  void gptInit() {
    torch::manual_seed(0);
    Gpt gpt(gptPreset("gpt-small"));
    const auto p = gpt.named_parameters();
    QCOMPARE(p["transformer.h.0.ln_1.weight"].min().item<float>(), 1.0f);
    QCOMPARE(p["transformer.h.0.attn.c_attn.bias"].abs().max().item<float>(), 0.0f);
    QVERIFY(std::abs(p["transformer.wte.weight"].std().item<double>() - 0.02) < 0.002);
    const double residual = 0.02 / std::sqrt(12.0);
    QVERIFY(std::abs(p["transformer.h.3.mlp.c_proj.weight"].std().item<double>() - residual) < 0.1 * residual);
  }

  void presetsAndValidation() {
    QVERIFY(contains(messageOf([] { gptPreset("gpt-huge"); }), "gpt-small, gpt-tiny"));
    QVERIFY(contains(messageOf([] { Gpt g(GptOptions{.nHead = 3}); }), "n_embd (64) must be a multiple of n_head (3)"));
    QVERIFY(contains(messageOf([] { Gpt g(GptOptions{.dropout = 1.0}); }), "dropout"));
    QVERIFY(contains(messageOf([] { Mlp m({.hidden = 0}); }), "hidden must be >= 1, got 0"));
    QVERIFY(contains(messageOf([] { Mlp m({.layers = -1}); }), "layers must be >= 1, got -1"));
  }

  void factory() {
    QCOMPARE(builtinModelNames(), (std::vector<std::string>{"gpt", "gpt-small", "gpt-tiny", "mlp"}));
    const auto unknown = messageOf([] { makeModel({.name = "resnet"}); });
    QVERIFY2(contains(unknown, "'resnet'") && contains(unknown, "gpt, gpt-small, gpt-tiny, mlp"), unknown.c_str());

    auto mlp = std::dynamic_pointer_cast<Mlp>(
        makeModel({.name = "mlp", .dimensions = {{ModelDimension::Hidden, 8}, {ModelDimension::Layers, 3}}}));
    QVERIFY(mlp);
    QCOMPARE(mlp->options().layers, std::int64_t{3});

    // A preset gives defaults; explicit flags override them.
    ModelRequest request{.name = "gpt-small",
                         .dimensions = {{ModelDimension::NLayer, 2}, {ModelDimension::BlockSize, 32}}};
    const GptOptions o = resolveGptOptions(request);
    QCOMPARE(o.nLayer, std::int64_t{2});
    QCOMPARE(o.blockSize, std::int64_t{32});
    QCOMPARE(o.nEmbd, std::int64_t{384});
    QCOMPARE(o.nHead, std::int64_t{6});
    auto gpt = std::dynamic_pointer_cast<Gpt>(makeModel(request));
    QVERIFY(gpt);
    QCOMPARE(countParams(*gpt), builtinModelSpec(request).totalParams);
    QCOMPARE(resolveGptOptions({.name = "gpt"}).nEmbd, std::int64_t{64});  // "gpt" = gpt-tiny's defaults

    const auto spec = builtinModelSpec({.name = "gpt-tiny"});
    QCOMPARE(spec.arch, fathom::plan::Arch::Gpt);
    QCOMPARE(spec.dims.maxPositions, std::int64_t{64});
    QCOMPARE(spec.totalParams, std::int64_t{112'384});
    QVERIFY(contains(messageOf([] { resolveGptOptions({.name = "mlp"}); }), "not a gpt model"));
    QVERIFY(contains(messageOf([] {
                       makeModel({.name = "gpt", .dimensions = {{ModelDimension::NHead, 5}}});
                     }),
                     "multiple of n_head (5)"));
  }
};

QTEST_GUILESS_MAIN(TstModels)
#include "tst_models.moc"
