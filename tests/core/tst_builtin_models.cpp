// SPDX-License-Identifier: Apache-2.0
// The one description of the built-in models (models/builtin_model.h): names, families and dimensions, the request
// a command line or a saved JSON object makes, and the words `fathom train` is given back. No LibTorch.
#include "error_helpers.h"

#include <fathom/common/error.h>
#include <fathom/models/builtin_model.h>

#include <nlohmann/json.hpp>

#include <QTest>

#include <functional>
#include <set>
#include <string>
#include <vector>

using namespace fathom;
using namespace fathom::models;
using fathom::test::messageOf;

class TestBuiltinModels : public QObject {
  Q_OBJECT

private slots:
  void oneListOfNames() {
    QCOMPARE(builtinModelNames(), (std::vector<std::string>{"gpt", "gpt-small", "gpt-tiny", "mlp"}));
    QVERIFY(builtinModel("gpt-small").family == ModelFamily::Gpt);
    QVERIFY(builtinModel("mlp").family == ModelFamily::Mlp);
    const std::string m = messageOf([] { builtinModel("resnet"); });
    QVERIFY2(m == "unknown model 'resnet' (known: gpt, gpt-small, gpt-tiny, mlp)", m.c_str());
  }

  void everyDimensionOnceWithItsFlag() {
    std::set<std::string> flags;
    for (const ModelDimensionInfo& d : modelDimensions()) {
      QVERIFY(flags.insert(std::string(d.flag)).second);
      QCOMPARE(&dimensionInfo(d.dimension), &d);
      QCOMPARE(findDimension(d.flag), &d);
      QVERIFY(!d.help.empty());
      QVERIFY(d.minimum < d.maximum);
    }
    QCOMPARE(findDimension("n-layer"), &dimensionInfo(ModelDimension::NLayer));  // dashes as the CLI takes them
    QVERIFY(findDimension("--n_layer") == nullptr);
    // --help shows each preset's value, from the presets themselves.
    QCOMPARE(dimensionHelp(ModelDimension::NLayer),
             std::string("gpt: transformer blocks (default: gpt-small 6, gpt-tiny 2)"));
    QCOMPARE(dimensionHelp(ModelDimension::Hidden).substr(dimensionHelp(ModelDimension::Hidden).find('(')),
             std::string("(default: mlp 256)"));
  }

  void requestsResolveFromTheirPreset() {
    ModelRequest r{.name = "gpt-small"};
    QCOMPARE(r.value(ModelDimension::NEmbd), 384.0);
    r.set(ModelDimension::NLayer, 3).set(ModelDimension::NEmbd, 384);
    const ModelShape shape = r.shape();
    QCOMPARE(shape.gpt.nLayer, std::int64_t{3});
    QCOMPARE(shape.gpt.nHead, std::int64_t{6});
    QVERIFY(r.hasOverrides());
    // A dimension equal to the preset's is no override: `--model gpt-small --n_embd 384` is gpt-small.
    QCOMPARE(r.withoutPresetValues().dimensions.size(), std::size_t{1});
    QCOMPARE(r.withoutPresetValues().trainArguments(),
             (std::vector<std::string>{"--model", "gpt-small", "--n_layer", "3"}));
    QVERIFY(!ModelRequest{.name = "gpt"}.hasOverrides());
    QCOMPARE(ModelRequest{.name = "gpt"}.shape().gpt.nEmbd, std::int64_t{64});  // gpt is gpt-tiny's shape
    QCOMPARE(ModelRequest{.name = "mlp"}.shape().mlp.hidden, std::int64_t{256});
  }

  void dimensionsOfTheOtherFamilyAreRefused() {
    ModelRequest gpt{.name = "gpt-tiny"};
    gpt.set(ModelDimension::Hidden, 32);
    std::string m = messageOf([&] { gpt.shape(); });
    QVERIFY2(m.starts_with("--hidden applies to --model mlp, not gpt-tiny") && m.find("--n_embd") != std::string::npos,
             m.c_str());
    ModelRequest mlp{.name = "mlp"};
    mlp.set(ModelDimension::NLayer, 2).set(ModelDimension::Dropout, 0.1);
    m = messageOf([&] { mlp.checkDimensions(); });
    QVERIFY2(m.starts_with("--n_layer, --dropout apply to the gpt models, not mlp"), m.c_str());
  }

  void jsonRoundTripAndEarlierSavedRequests() {
    ModelRequest r{.name = "gpt-tiny"};
    r.set(ModelDimension::BlockSize, 128).set(ModelDimension::Dropout, 0.25);
    const nlohmann::ordered_json j = toJson(r);
    QCOMPARE(j.dump(), std::string(R"({"name":"gpt-tiny","block_size":128,"dropout":0.25})"));
    QVERIFY(modelRequestFromJson(nlohmann::json::parse(j.dump())) == r);
    // What the Studio saved before the description moved to core: flag keys, 0 for "the preset's".
    const ModelRequest old = modelRequestFromJson(nlohmann::json::parse(R"({"name":"mlp","hidden":64,"layers":0})"));
    QCOMPARE(old.name, std::string("mlp"));
    QCOMPARE(old.dimensions.size(), std::size_t{1});
    QCOMPARE(old.value(ModelDimension::Layers), 2.0);
    const std::string m = messageOf([] { modelRequestFromJson(nlohmann::json::parse(R"({"n_layer":"x"})"), "m"); });
    QVERIFY2(m == "m: bad value for 'n_layer': '\"x\"'", m.c_str());
  }

  /// Values from outside (a saved JSON object, a command line, a C++ caller) are checked where they enter the request:
  /// before, 1e300 layers reached std::llround (undefined behaviour; on x86 -9223372036854775808 layers) and a
  /// dropout of 7 reached the model.
  void valuesOutOfRangeAreRefusedWhereTheyEnter() {
    std::string m = messageOf([] { ModelRequest{.name = "mlp"}.set(ModelDimension::Layers, 1e300); });
    QVERIFY2(m == "--layers: 1e+300 is out of range (allowed 1..9223372036854775807)", m.c_str());
    m = messageOf([] { ModelRequest{.name = "gpt"}.set(ModelDimension::NLayer, 2.5); });
    QVERIFY2(m == "--n_layer: 2.5 is not a whole number", m.c_str());
    m = messageOf([] { ModelRequest{.name = "gpt"}.set(ModelDimension::Dropout, 7); });
    QVERIFY2(m == "--dropout: 7 is out of range (allowed 0..1)", m.c_str());
    m = messageOf([] { modelRequestFromJson(nlohmann::json::parse(R"({"name":"gpt","n_embd":-64})"), "run.json"); });
    QVERIFY2(m == "run.json: key 'n_embd': -64 is out of range (allowed 1..9223372036854775807)", m.c_str());
    m = messageOf([] { modelRequestFromArguments(std::vector<std::string>{"--model", "mlp", "--hidden", "1e30"}); });
    QVERIFY2(m == "--hidden: 1e+30 is out of range (allowed 1..9223372036854775807)", m.c_str());
    ModelRequest direct{.name = "mlp"};
    direct.dimensions[ModelDimension::Hidden] = -1;
    m = messageOf([&] { direct.shape(); });
    QVERIFY2(m == "--hidden: -1 is out of range (allowed 1..9223372036854775807)", m.c_str());
    QCOMPARE(ModelRequest{.name = "gpt"}.set(ModelDimension::Dropout, 1).value(ModelDimension::Dropout), 1.0);
  }

  void commandLinesReadAsTheyAreWritten() {
    ModelRequest r{.name = "gpt-small"};
    r.set(ModelDimension::NHead, 12).set(ModelDimension::Dropout, 0.1);
    std::vector<std::string> words{"--steps", "10"};
    const std::vector<std::string> model = r.trainArguments();
    words.insert(words.end(), model.begin(), model.end());
    words.emplace_back("--log_every=5");
    QVERIFY(modelRequestFromArguments(words) == r);
    const auto dashed =
        modelRequestFromArguments(std::vector<std::string>{"--model=gpt", "--n-embd=128", "--batch_size", "4"});
    QVERIFY(dashed.has_value());
    QCOMPARE(dashed->name, std::string("gpt"));
    QCOMPARE(dashed->value(ModelDimension::NEmbd), 128.0);
    QVERIFY(!modelRequestFromArguments(std::vector<std::string>{"--steps", "10"}).has_value());
    const std::string m = messageOf([] {
      modelRequestFromArguments(std::vector<std::string>{"--model", "gpt", "--n_layer", "many"});
    });
    QVERIFY2(m == "--n_layer: 'many' is not a number", m.c_str());
  }
};

QTEST_GUILESS_MAIN(TestBuiltinModels)
#include "tst_builtin_models.moc"
