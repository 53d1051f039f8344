// SPDX-License-Identifier: Apache-2.0
// Device maps by strategy name (core/bigmodel/device_map_strategy.h): the names; "sequential" answers every
// infer_auto_device_map case Accelerate's tests assert exactly; "auto", "balanced" and "balanced_low_0" are
// get_balanced_memory's limits then infer_auto_device_map, as load_checkpoint_and_dispatch chains them, on every
// asserted model and limits; hand-checked maps of every strategy, "optimal" included; the loads of a map
// (device_load.h); and plan_device_map through answerRequest.
#include "device_map_test_support.h"
#include "error_helpers.h"

#include <fathom/bigmodel/device_load.h>
#include <fathom/bigmodel/device_map_json.h>
#include <fathom/bigmodel/device_map_strategy.h>
#include <fathom/bigmodel/module_tree_json.h>
#include <fathom/common/error.h>

#include <nlohmann/json.hpp>

#include <QTest>

#include <string>
#include <vector>

using namespace fathom;
using namespace fathom::bigmodel;
using namespace devicemaptest;
using fathom::test::contains;
using fathom::test::messageOf;

namespace {

std::string dump(const json& j) {
  return j.dump();
}

/// ModelForTest: linear1 (64 bytes), batchnorm (72, 40 of them buffers), linear2 (100); 236 in all.
json modelForTest() {
  return caseById("idm_basic_two_gpus").at("model");
}

/// plan_device_map for `model` with `strategy` and infer_auto_device_map's arguments.
json plan(const json& model, const std::string& strategy, json args) {
  args["strategy"] = strategy;
  return ask(model, "plan_device_map", args);
}

/// The call's arguments without the ones plan_device_map does not take.
json planArgs(const json& testCase) {
  json args = testCase.at("call").at("args");
  args.erase("verbose");
  return args;
}

DeviceMap mapOf(const json& pairs) {
  DeviceMap map;
  for (const json& pair : pairs) {
    map.push_back({pair[0].get<std::string>(), deviceKeyFromJson(pair[1], "test")});
  }
  return map;
}

}  // namespace

class TestDeviceMapStrategy : public QObject {
  Q_OBJECT

private slots:
  void names() {
    QCOMPARE(strategyNames(),
             (std::vector<std::string>{"auto", "balanced", "balanced_low_0", "sequential", "optimal"}));
    for (const std::string& name : strategyNames()) {
      QCOMPARE(std::string(strategyName(parseStrategy(name))), name);
    }
    QVERIFY(!strategyFromName("Balanced") && !strategyFromName("balanced-low-0") && !strategyFromName(""));
    const std::string m = messageOf([] { parseStrategy("fastest"); });
    QVERIFY2(contains(m, "unknown device-map strategy 'fastest' (expected one of auto, balanced, balanced_low_0, "
                         "sequential, optimal)"),
             m.c_str());
  }

  void inferCase_data() {
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < cases().size(); ++i) {
      if (cases()[i].at("call").at("function") == "infer_auto_device_map") {
        QTest::newRow(cases()[i].at("id").get<std::string>().c_str()) << static_cast<int>(i);
      }
    }
  }

  /// "sequential" is infer_auto_device_map on the limits as given: Accelerate's asserted answer, exactly.
  void inferCase() {
    QFETCH(int, index);
    const json& c = cases()[static_cast<std::size_t>(index)];
    const json answer = plan(c.at("model"), "sequential", planArgs(c));
    for (const char* key : {"device_map", "buffer_warning", "buffer_warning_bytes", "insufficient_memory_minimums"}) {
      QVERIFY2(answer.at(key) == c.at("expected").at(key),
               (std::string(key) + ": " + dump(answer.at(key)) + " vs " + dump(c.at("expected").at(key))).c_str());
    }
    QCOMPARE(dump(answer.at("strategy")), std::string(R"("sequential")"));
  }

  void balancedCase_data() {
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("strategy");
    for (std::size_t i = 0; i < cases().size(); ++i) {
      const std::string function = cases()[i].at("call").at("function");
      if (function != "infer_auto_device_map" && function != "get_balanced_memory") {
        continue;
      }
      for (const char* strategy : {"auto", "balanced", "balanced_low_0"}) {
        const std::string row = cases()[i].at("id").get<std::string>() + " " + strategy;
        QTest::newRow(row.c_str()) << static_cast<int>(i) << QString::fromLatin1(strategy);
      }
    }
  }

  /// auto, balanced, balanced_low_0: get_balanced_memory (low_zero for balanced_low_0) then infer_auto_device_map
  /// with its limits, each call answered as the asserted cases check it; or the same error.
  void balancedCase() {
    QFETCH(int, index);
    QFETCH(QString, strategy);
    const json& c = cases()[static_cast<std::size_t>(index)];
    json args = planArgs(c);
    args.erase("low_zero");
    json balancedArgs = {{"max_memory", args.at("max_memory")},
                         {"no_split_module_classes", args.value("no_split_module_classes", json(nullptr))},
                         {"dtype", args.value("dtype", json(nullptr))},
                         {"special_dtypes", args.value("special_dtypes", json(nullptr))},
                         {"low_zero", strategy == "balanced_low_0"}};
    const std::string planError = messageOf([&] { plan(c.at("model"), strategy.toStdString(), args); });
    const std::string chainError = messageOf([&] { ask(c.at("model"), "get_balanced_memory", balancedArgs); });
    if (chainError != "<no exception>") {
      QVERIFY2(contains(planError, chainError), (planError + " vs " + chainError).c_str());
      return;
    }
    const json limits = ask(c.at("model"), "get_balanced_memory", balancedArgs).at("max_memory");
    json inferArgs = args;
    inferArgs["max_memory"] = limits;
    // Where Accelerate itself fails on the balanced limits (a tied parameter no longer queued), so does the strategy.
    const std::string inferError = messageOf([&] { ask(c.at("model"), "infer_auto_device_map", inferArgs); });
    if (inferError != "<no exception>") {
      QVERIFY2(planError == inferError, (planError + " vs " + inferError).c_str());
      return;
    }
    const json expected = ask(c.at("model"), "infer_auto_device_map", inferArgs);
    const json answer = plan(c.at("model"), strategy.toStdString(), args);
    QCOMPARE(dump(answer.at("max_memory")), dump(limits));
    for (const char* key : {"device_map", "buffer_warning", "buffer_warning_bytes", "insufficient_memory_minimums"}) {
      QCOMPARE(dump(answer.at(key)), dump(expected.at(key)));
    }
    if (c.at("call").at("function") == "get_balanced_memory" && strategy != "balanced_low_0") {
      QCOMPARE(dump(answer.at("max_memory")), dump(c.at("expected").at("max_memory")));  // the asserted limits
    }
  }

  void everyStrategyByHand() {
    // ModelForTest on two GPUs of 300 bytes. sequential: GPU 0 keeps 100 for linear2 while the others are placed
    // (64 + 72 <= 200), then linear2 (the last, nothing left to keep room for) fits too: all on GPU 0.
    const json model = modelForTest();
    const json limits = {{0, 300}, {1, 300}};
    json a = plan(model, "sequential", {{"max_memory", limits}});
    QCOMPARE(dump(a.at("device_map")), std::string(R"([["",0]])"));
    QCOMPARE(dump(a.at("max_gpu_load")), std::string("236"));
    // balanced: GPU 0 capped at 236 // 2 + int(1.25 * 78) = 215, less 100 kept: linear1 only.
    a = plan(model, "balanced", {{"max_memory", limits}});
    QCOMPARE(dump(a.at("max_memory")), std::string("[[0,215],[1,300]]"));
    QCOMPARE(dump(a.at("device_map")), std::string(R"([["linear1",0],["batchnorm",1],["linear2",1]])"));
    QCOMPARE(dump(a.at("max_gpu_load")), std::string("172"));
    json autoAnswer = plan(model, "auto", {{"max_memory", limits}});
    QCOMPARE(dump(autoAnswer.at("strategy")), std::string(R"("auto")"));
    autoAnswer["strategy"] = "balanced";
    QCOMPARE(dump(autoAnswer), dump(a));
    // balanced_low_0: per_gpu = 236 + 97; GPU 0 gets min(300, max(0, 236 - 300)) = 0; GPU 1, not a main device,
    // holds it all.
    a = plan(model, "balanced_low_0", {{"max_memory", limits}});
    QCOMPARE(dump(a.at("max_memory")), std::string("[[0,0],[1,300]]"));
    QCOMPARE(dump(a.at("device_map")), std::string(R"([["",1]])"));
    // optimal: the cuts 64 | 172, 136 | 100 and 236 | 0 give 172, 136, 236: linear1 and batchnorm on GPU 0.
    a = plan(model, "optimal", {{"max_memory", limits}});
    QCOMPARE(dump(a.at("max_memory")), dump(limits));
    QCOMPARE(dump(a.at("device_map")), std::string(R"([["linear1",0],["batchnorm",0],["linear2",1]])"));
    QCOMPARE(dump(a.at("max_gpu_load")), std::string("136"));
    QCOMPARE(dump(a.at("balanced_max_gpu_load")), std::string("172"));
    QCOMPARE(a.at("gain").get<double>(), 36.0 / 172.0);
    QCOMPARE(dump(a.at("offloaded_bytes")), std::string("0"));
  }

  void optimalSpillsOnlyWhatTheGpusCannotHold() {
    const json model = modelForTest();
    // GPU 0 of 200: all three (236) do not fit; linear1 and batchnorm (136) with room for linear2 (100) do not
    // either; linear1 (64) with room for the largest offloaded layer (100) does. cpu takes the rest.
    json a = plan(model, "optimal", {{"max_memory", {{0, 200}, {"cpu", 1000}}}});
    QCOMPARE(dump(a.at("device_map")), std::string(R"([["linear1",0],["batchnorm","cpu"],["linear2","cpu"]])"));
    QCOMPARE(dump(a.at("max_gpu_load")), std::string("164"));
    QCOMPARE(dump(a.at("offloaded_bytes")), std::string("172"));
    // Accelerate's plan is the same here, so no gain.
    QCOMPARE(dump(a.at("balanced_max_gpu_load")), std::string("164"));
    QCOMPARE(a.at("gain").get<double>(), 0.0);
    // A cpu of 150 holds neither both (172) nor batchnorm with room for linear2 (72 + 100): both go to disk.
    a = plan(model, "optimal", {{"max_memory", {{0, 200}, {"cpu", 150}}}});
    QCOMPARE(dump(a.at("device_map")), std::string(R"([["linear1",0],["batchnorm","disk"],["linear2","disk"]])"));
    // Everything fits one GPU: nothing is offloaded, cpu unused.
    a = plan(model, "optimal", {{"max_memory", {{0, 236}, {"cpu", 1000}}}});
    QCOMPARE(dump(a.at("device_map")), std::string(R"([["",0]])"));
    // No GPU: cpu, as far as it goes (room kept for the largest layer on disk: 136 + 100 > 170 >= 64 + 100).
    a = plan(model, "optimal", {{"max_memory", {{"cpu", 170}}}});
    QCOMPARE(dump(a.at("device_map")), std::string(R"([["linear1","cpu"],["batchnorm","disk"],["linear2","disk"]])"));
    QCOMPARE(dump(a.at("max_gpu_load")), std::string("0"));
  }

  void optimalKeepsTiedLayersTogether() {
    // linear1 and linear3 share a weight: one group of 480 bytes at linear1's place, then linear2 (440).
    const json a = plan(tiedThreeLinears(), "optimal", {{"max_memory", {{0, 500}, {1, 500}}}});
    QCOMPARE(dump(a.at("device_map")), std::string(R"([["linear1",0],["linear3",0],["linear2",1]])"));
    QCOMPARE(dump(a.at("max_gpu_load")), std::string("480"));
    // Without cleaning, every layer is listed, tied ones after the first of their group.
    const json raw = plan(tiedThreeLinears(), "optimal", {{"max_memory", {{0, 1000}}}, {"clean_result", false}});
    QCOMPARE(dump(raw.at("device_map")), std::string(R"([["linear1",0],["linear3",0],["linear2",0]])"));
  }

  void optimalAnswersWhereAccelerateFails() {
    // A root parameter tied to linear1's: Accelerate finds no queued module holding it once it places linear1
    // (an IndexError there); optimal groups the two and plans, and says why the comparison is missing.
    const json model = {{"modules",
                         {module("", "M", {"linear1"}, json::array({tensor("weight", {4}, "float32", 0)})),
                          module("linear1", "Linear", {}, json::array({tensor("weight", {4}, "float32", 0)}))}}};
    const std::string m = messageOf([&] { plan(model, "balanced", {{"max_memory", {{0, 1000}}}}); });
    QVERIFY2(contains(m, "tied parameter 'weight' is in no module still to be placed"), m.c_str());
    const json a = plan(model, "optimal", {{"max_memory", {{0, 1000}}}});
    QCOMPARE(dump(a.at("device_map")), std::string(R"([["",0]])"));
    QCOMPARE(dump(a.at("gain")), std::string("null"));
    QVERIFY2(contains(a.at("balanced_error").get<std::string>(), "tied parameter 'weight'"), dump(a).c_str());
  }

  void loadsOfAMap() {
    const ModuleTree tree = moduleTreeFromJson(modelForTest());
    const DeviceMap map = mapOf(json::parse(R"([["linear1",1],["batchnorm","cpu"],["linear2","disk"]])"));
    DeviceLoads loads = deviceLoads(tree, map, {});
    QCOMPARE(loads.devices.size(), std::size_t{3});
    QVERIFY(loads.devices[0].device == DeviceKey::gpu(1));
    QCOMPARE(loads.devices[0].bytes, 64.0);
    QCOMPARE(loads.devices[0].reserved, 100.0);  // the main GPU keeps room for linear2, the largest offloaded
    QCOMPARE(loads.maxGpuLoad, 164.0);
    QCOMPARE(loads.offloadedBytes, 172.0);
    // Nothing offloaded, nothing reserved; a dtype shrinks the floats (num_batches_tracked stays int64).
    loads = deviceLoads(tree, mapOf(json::parse(R"([["",0]])")), {.dtype = Dtype::Float16});
    QCOMPARE(loads.maxGpuLoad, 122.0);
    QCOMPARE(loads.offloadedBytes, 0.0);
    // A no-split whole on cpu is one layer: ModelForTest as a block of three.
    const ModuleTree seq3 = moduleTreeFromJson(caseById("idm_seq3_no_split_model_for_test").at("model"));
    const DeviceMap offloaded = mapOf(json::parse(R"([["0",0],["1","cpu"],["2","cpu"]])"));
    QCOMPARE(deviceLoads(seq3, offloaded, {.noSplitModuleClasses = {"ModelForTest"}}).maxGpuLoad, 236.0 + 236.0);
    // Split, its largest layer is linear2.
    QCOMPARE(deviceLoads(seq3, offloaded, {}).maxGpuLoad, 236.0 + 100.0);
  }

  void badRequests() {
    const json model = modelForTest();
    std::string m = messageOf([&] { plan(model, "fastest", {{"max_memory", {{0, 300}}}}); });
    QVERIFY2(contains(m, "plan_device_map: argument 'strategy': unknown device-map strategy 'fastest' (expected one "
                         "of auto, balanced, balanced_low_0, sequential, optimal)"),
             m.c_str());
    m = messageOf([&] { ask(model, "plan_device_map", {{"strategy", 3}, {"max_memory", {{0, 300}}}}); });
    QVERIFY2(contains(m, "argument 'strategy' must be a name, got 3"), m.c_str());
    m = messageOf([&] { plan(model, "optimal", {{"max_memory", {{0, 300}}}, {"fallback_allocation", true}}); });
    QVERIFY2(contains(m, "fallback_allocation does not apply"), m.c_str());
    m = messageOf([&] { plan(model, "optimal", {{"max_memory", {{0, 300}}}, {"verbose", true}}); });
    QVERIFY2(contains(m, "unknown argument 'verbose'"), m.c_str());
    m = messageOf([&] { plan(model, "balanced_low_0", {{"max_memory", {{1, 300}, {2, 300}}}}); });
    QVERIFY2(contains(m, "needs a limit for GPU 0"), m.c_str());
    // Without a strategy, sequential.
    QCOMPARE(dump(ask(model, "plan_device_map", {{"max_memory", {{0, 300}, {1, 300}}}}).at("strategy")),
             std::string(R"("sequential")"));
  }
};

QTEST_GUILESS_MAIN(TestDeviceMapStrategy)
#include "tst_device_map_strategy.moc"
