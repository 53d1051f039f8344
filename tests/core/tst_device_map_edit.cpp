// SPDX-License-Identifier: Apache-2.0
// Editing a device map by hand (core/bigmodel/device_map_edit.h), what the Studio's device-map view does when a module
// is dragged to another device: where a name is placed, the check of a whole map (every tensor placed, tied tensors
// together, no unknown entry), and moving a module: entries split as infer_auto_device_map splits a module, entries
// under it dropped, the result cleaned, a move that separates a tied tensor refused with the names. Then every module
// of a tree moved to every device from a planned map: each move places it there and keeps the model's bytes.
#include "error_helpers.h"

#include <fathom/bigmodel/device_load.h>
#include <fathom/bigmodel/device_map_edit.h>
#include <fathom/bigmodel/device_map_strategy.h>
#include <fathom/bigmodel/module_tree_json.h>
#include <fathom/common/error.h>

#include <nlohmann/json.hpp>

#include <QTest>

#include <string>
#include <vector>

using namespace fathom;
using namespace fathom::bigmodel;
using fathom::test::contains;
using fathom::test::messageOf;

namespace {

/// embed (Embedding, weight 10x4), blocks.0 and blocks.1 (each a Linear `lin` 4x4 + bias, and a buffer `mask`), head
/// (a Linear whose weight is embed's: tied). float32: embed 160 bytes, each block 96, head 0 (counted under embed).
ModuleTree tiedModel() {
  auto module = [](const std::string& name, const std::string& cls, nlohmann::json children,
                   nlohmann::json parameters = nlohmann::json::array(),
                   nlohmann::json buffers = nlohmann::json::array()) {
    return nlohmann::json{
        {"name", name}, {"class", cls}, {"children", children}, {"parameters", parameters}, {"buffers", buffers}};
  };
  auto tensor = [](const std::string& name, std::vector<int> shape, int id) {
    return nlohmann::json{{"name", name}, {"shape", shape}, {"dtype", "float32"}, {"tensor_id", id}};
  };
  nlohmann::json modules = nlohmann::json::array();
  modules.push_back(module("", "Model", {"embed", "blocks", "head"}));
  modules.push_back(module("embed", "Embedding", nlohmann::json::array(), {tensor("weight", {10, 4}, 0)}));
  modules.push_back(module("blocks", "ModuleList", {"0", "1"}));
  for (int b = 0; b < 2; ++b) {
    const std::string name = "blocks." + std::to_string(b);
    modules.push_back(module(name, "Block", {"lin"}, nlohmann::json::array(), {tensor("mask", {4}, 10 + b)}));
    modules.push_back(module(name + ".lin", "Linear", nlohmann::json::array(),
                             {tensor("weight", {4, 4}, 20 + 2 * b), tensor("bias", {4}, 21 + 2 * b)}));
  }
  modules.push_back(module("head", "Linear", nlohmann::json::array(), {tensor("weight", {10, 4}, 0)}));
  return moduleTreeFromJson({{"modules", modules}});
}

DeviceMap mapOf(std::initializer_list<std::pair<const char*, DeviceKey>> entries) {
  DeviceMap map;
  for (const auto& [name, device] : entries) {
    map.push_back({name, device});
  }
  return map;
}

std::string text(const DeviceMap& map) {
  std::string out;
  for (const DeviceMapEntry& e : map) {
    out += (out.empty() ? "" : " ") + (e.module.empty() ? std::string("''") : e.module) + "=" + e.device.toString();
  }
  return out;
}

const DeviceKey kGpu0 = DeviceKey::gpu(0);
const DeviceKey kGpu1 = DeviceKey::gpu(1);
const DeviceKey kCpu = DeviceKey::cpu();
const DeviceKey kDisk = DeviceKey::disk();

}  // namespace

class TestDeviceMapEdit : public QObject {
  Q_OBJECT

private slots:
  void devicesOfAName() {
    const DeviceMap map = mapOf({{"embed", kGpu0}, {"blocks.0", kGpu0}, {"blocks.1", kCpu}, {"head", kGpu0}});
    QCOMPARE(devicesOf(map, "blocks"), (std::vector<DeviceKey>{kGpu0, kCpu}));
    QCOMPARE(devicesOf(map, ""), (std::vector<DeviceKey>{kGpu0, kCpu}));
    QCOMPARE(devicesOf(map, "blocks.1.lin.weight"), std::vector<DeviceKey>{kCpu});
    QCOMPARE(devicesOf(map, "blocks.1"), std::vector<DeviceKey>{kCpu});
    QVERIFY(devicesOf(map, "blocks.10").empty());  // a prefix of the text, not of the name
    QCOMPARE(devicesOf(mapOf({{"", kDisk}, {"embed", kGpu1}}), "embed.weight"), std::vector<DeviceKey>{kGpu1});
    QVERIFY(hasEntry(map, "blocks.1") && !hasEntry(map, "blocks"));
  }

  void checkAWholeMap() {
    const ModuleTree tree = tiedModel();
    checkDeviceMap(tree, mapOf({{"", kGpu0}}));
    checkDeviceMap(tree, mapOf({{"embed", kCpu}, {"blocks", kGpu1}, {"head", kCpu}}));
    std::string m = messageOf([&] { checkDeviceMap(tree, mapOf({{"embed", kGpu0}, {"blocks", kGpu0}})); });
    QVERIFY2(contains(m, "device map: it places no device for 'head.weight'"), m.c_str());
    m = messageOf([&] { checkDeviceMap(tree, mapOf({{"embed", kGpu0}, {"blocks", kGpu0}, {"head", kGpu1}})); });
    QVERIFY2(contains(m, "device map: 'embed.weight' and 'head.weight' are one tensor (tied) but the map puts them on "
                         "0 and 1: map tied parameters to one device"),
             m.c_str());
    m = messageOf([&] { checkDeviceMap(tree, mapOf({{"", kGpu0}, {"blocks.2", kCpu}})); });
    QVERIFY2(contains(m, "device map: 'blocks.2' is not a module or tensor of the model"), m.c_str());
    checkDeviceMap(tree, mapOf({{"", kGpu0}, {"blocks.0.mask", kDisk}}));  // a buffer is a name too
  }

  void moveSplitsTheHoldingEntry() {
    const ModuleTree tree = tiedModel();
    // "" splits into its children; blocks into 0 and 1; blocks.1 into its child lin, then its own buffer mask.
    const DeviceMap moved = moveToDevice(tree, mapOf({{"", kGpu0}}), "blocks.1.lin", kGpu1, /*clean=*/false);
    QCOMPARE(text(moved), std::string("embed=0 blocks.0=0 blocks.1.lin=1 blocks.1.mask=0 head=0"));
    QCOMPARE(moveToDevice(tree, mapOf({{"", kGpu0}}), "blocks.1.lin", kGpu1), moved);  // nothing to merge
    // Moved back, the names share one device again and clean_device_map merges them into "".
    QCOMPARE(text(moveToDevice(tree, moved, "blocks.1.lin", kGpu0)), std::string("''=0"));
    // A tensor on its own.
    const DeviceMap bias = moveToDevice(tree, mapOf({{"", kCpu}}), "blocks.0.lin.bias", kDisk);
    QCOMPARE(devicesOf(bias, "blocks.0.lin.bias"), std::vector<DeviceKey>{kDisk});
    QCOMPARE(devicesOf(bias, "blocks.0.lin"), (std::vector<DeviceKey>{kCpu, kDisk}));
  }

  void moveDropsTheEntriesUnderIt() {
    const ModuleTree tree = tiedModel();
    const DeviceMap map = mapOf({{"embed", kGpu0}, {"blocks.0", kGpu0}, {"blocks.1", kGpu1}, {"head", kGpu0}});
    QCOMPARE(text(moveToDevice(tree, map, "blocks", kCpu)), std::string("embed=0 blocks=cpu head=0"));
    QCOMPARE(text(moveToDevice(tree, map, "blocks.0", kGpu1, false)),
             std::string("embed=0 blocks.0=1 blocks.1=1 head=0"));
    // Cleaned, blocks.0 and blocks.1 merge into blocks, appended as clean_device_map appends.
    QCOMPARE(text(moveToDevice(tree, map, "blocks.0", kGpu1)), std::string("embed=0 head=0 blocks=1"));
    QCOMPARE(text(moveToDevice(tree, map, "", kDisk)), std::string("''=disk"));
  }

  void moveRefusesToSeparateATiedTensor() {
    const ModuleTree tree = tiedModel();
    const DeviceMap map = mapOf({{"", kGpu0}});
    std::string m = messageOf([&] { moveToDevice(tree, map, "head", kGpu1); });
    QVERIFY2(contains(m, "cannot move 'head' to 1: device map: 'embed.weight' and 'head.weight' are one tensor (tied) "
                         "but the map puts them on 0 and 1"),
             m.c_str());
    m = messageOf([&] { moveToDevice(tree, map, "embed.weight", kCpu); });
    QVERIFY2(contains(m, "cannot move 'embed.weight' to cpu: device map: 'embed.weight' and 'head.weight' are one"),
             m.c_str());
    m = messageOf([&] { moveToDevice(tree, map, "blocks.7", kCpu); });
    QVERIFY2(contains(m, "cannot move 'blocks.7' to cpu: 'blocks.7' is not a module or tensor of the model"),
             m.c_str());
    // Both halves of the tie moved, one after the other through the model: allowed once they agree.
    const DeviceMap both = moveToDevice(tree, mapOf({{"embed", kGpu0}, {"blocks", kGpu0}, {"head", kGpu0}}), "", kGpu1);
    QCOMPARE(text(both), std::string("''=1"));
  }

  void everyMoveOfAPlannedMapPlacesTheModule() {
    const ModuleTree tree = tiedModel();
    const InferOptions options{.maxMemory = {{kGpu0, 200}, {kGpu1, 200}, {kCpu, 100}}};
    const StrategyResult planned = planDeviceMap(tree, DeviceMapStrategy::Sequential, options);
    checkDeviceMap(tree, planned.result.deviceMap);
    const auto total = [&](const DeviceMap& map) {
      double sum = 0;
      for (const DeviceLoad& d : deviceLoads(tree, map, options).devices) {
        sum += d.bytes;
      }
      return sum;
    };
    const double modelBytes = total(planned.result.deviceMap);
    QCOMPARE(modelBytes, 160.0 + 2 * 96);
    int refused = 0;
    for (const ModuleInfo& m : tree.modules()) {
      for (const DeviceKey& device : {kGpu0, kGpu1, kCpu, kDisk}) {
        try {
          const DeviceMap moved = moveToDevice(tree, planned.result.deviceMap, m.name, device);
          QCOMPARE(devicesOf(moved, m.name), std::vector<DeviceKey>{device});
          QCOMPARE(total(moved), modelBytes);
        } catch (const ConfigError& e) {
          QVERIFY2(m.name == "embed" || m.name == "head", e.what());  // the two halves of the tie
          QVERIFY2(contains(e.what(), "are one tensor (tied)"), e.what());
          ++refused;
        }
      }
    }
    QVERIFY(refused > 0);
  }
};

QTEST_GUILESS_MAIN(TestDeviceMapEdit)
#include "tst_device_map_edit.moc"
