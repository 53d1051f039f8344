// SPDX-License-Identifier: Apache-2.0
// Dispatch (bigmodel::DispatchedModel): built-in models split across "cpu" and "disk" compute exactly what the
// undispatched model computes; the map is checked before anything moves; offloaded weights are loaded for their
// unit's forward only; the model is whole again afterwards. Also the pieces under it: trees of live modules and the
// memory-mapped safetensors reader. What needs a GPU ("0", streaming to cuda) runs in tests/gpu/check.sh.
#include <fathom/bigmodel/device_map_json.h>
#include <fathom/bigmodel/dispatch_record.h>
#include <fathom/bigmodel/dispatched_model.h>
#include <fathom/bigmodel/infer_device_map.h>
#include <fathom/bigmodel/module_sizes.h>
#include <fathom/bigmodel/torch_module_tree.h>
#include <fathom/common/error.h>
#include <fathom/io/mapped_safetensors.h>
#include <fathom/io/safetensors.h>
#include <fathom/models/gpt.h>
#include <fathom/models/model_factory.h>
#include <fathom/parallel/unit_scope.h>
#include <fathom/store/workspace.h>
#include <fathom/train/accelerator.h>

#include <torch/torch.h>

#include <QTemporaryDir>
#include <QTest>

#include "error_helpers.h"

#include <fstream>

using namespace fathom;
using namespace fathom::bigmodel;
using fathom::test::messageOf;

namespace {

std::shared_ptr<models::Model> gpt(const std::string& name, std::uint64_t seed = 7) {
  torch::manual_seed(seed);
  models::ModelRequest request;
  request.name = name;
  return models::makeModel(request);
}

at::Tensor tokens(const models::Model& model, std::int64_t batch = 2, std::int64_t time = 16) {
  const auto& options = dynamic_cast<const models::Gpt&>(model).options();
  torch::manual_seed(11);
  return torch::randint(options.vocabSize, {batch, std::min(time, options.blockSize)}, torch::kLong);
}

DeviceMap mapOf(std::initializer_list<std::pair<std::string, DeviceKey>> entries) {
  DeviceMap map;
  for (const auto& [name, device] : entries) {
    map.push_back({name, device});
  }
  return map;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The resident bytes of this process (statm), for the in-place disk reads.
std::int64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t size = 0;
  std::int64_t resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::int64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

class TestDispatch : public QObject {
  Q_OBJECT

private slots:
  void treeOfLiveModule() {
    const auto model = gpt("gpt-tiny");
    const ModuleTree tree = moduleTreeOf(*model);
    QCOMPARE(tree.root().className, std::string("Gpt"));
    QVERIFY(tree.findModule("transformer.h.1").has_value());
    QCOMPARE(tree.module(*tree.findModule("transformer.h.1")).className, std::string("GptBlock"));
    std::int64_t params = 0;
    for (const auto& p : model->parameters()) {
      params += p.numel();
    }
    // computeModuleSizes counts each tensor once: the whole model is its parameters at 4 bytes.
    QCOMPARE(computeModuleSizes(tree)[""], static_cast<ByteCount>(params * 4));
    QVERIFY(tree.tiedParameters().empty());  // the lm_head reuses wte's weight without registering it again
  }

  void cpuAndDiskGiveIdenticalOutputs_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("layout");
    QTest::newRow("gpt-tiny, blocks on disk") << "gpt-tiny"
                                              << "blocks";
    QTest::newRow("gpt-tiny, embeddings and block 1 on disk") << "gpt-tiny"
                                                              << "root";
    QTest::newRow("gpt-tiny, everything on disk") << "gpt-tiny"
                                                  << "all";
    QTest::newRow("gpt-small, blocks 1-5 on disk") << "gpt-small"
                                                   << "blocks";
  }
  void cpuAndDiskGiveIdenticalOutputs() {
    QFETCH(QString, model);
    QFETCH(QString, layout);
    QTemporaryDir dir;
    const auto m = gpt(model.toStdString());
    const at::Tensor input = tokens(*m);
    const torch::NoGradGuard noGrad;
    const at::Tensor expected = m->forward(input);

    DeviceMap map;
    if (layout == "blocks") {
      map = mapOf({{"transformer.wte", DeviceKey::cpu()},
                   {"transformer.wpe", DeviceKey::cpu()},
                   {"transformer.h.0", DeviceKey::cpu()},
                   {"transformer.h", DeviceKey::disk()},
                   {"transformer.ln_f", DeviceKey::cpu()}});
    } else if (layout == "root") {
      map = mapOf({{"transformer.wte", DeviceKey::disk()},
                   {"transformer.wpe.weight", DeviceKey::disk()},
                   {"transformer.h.0", DeviceKey::cpu()},
                   {"transformer.h.1", DeviceKey::disk()},
                   {"transformer.ln_f", DeviceKey::cpu()}});
    } else {
      map = mapOf({{"", DeviceKey::disk()}});
    }
    const std::filesystem::path folder = dir.filePath("offload").toStdString();
    {
      DispatchedModel dispatched(m, map, {.unitClasses = m->unitClasses(), .offloadFolder = folder});
      QCOMPARE(dispatched.mainDevice(), c10::Device(c10::kCPU));
      QVERIFY(std::filesystem::exists(dispatched.offloadFile()));
      QVERIFY(dispatched.placedBytes().at("disk") > 0);
      // Between forwards the offloaded weights hold no memory.
      // A handle, not a reference into the temporary dict named_parameters() returns (CI's segfault in the eighth
      // session): it shares the parameter's TensorImpl, so it sees the dispatcher release and reload the storage.
      const at::Tensor block1 = m->named_parameters()["transformer.h.1.mlp.c_fc.weight"];
      QCOMPARE(block1.storage().nbytes(), std::size_t{0});
      const at::Tensor got = m->forward(input);
      QCOMPARE(got.device(), input.device());
      QCOMPARE((got - expected).abs().max().item<float>(), 0.0f);
      QCOMPARE(block1.storage().nbytes(), std::size_t{0});
      // A second forward reads the file again.
      QCOMPARE((m->forward(input) - expected).abs().max().item<float>(), 0.0f);
    }
    // Undispatched: the weights are back in memory, the offload file gone.
    QVERIFY(!std::filesystem::exists(folder / "offload.safetensors"));
    QCOMPARE((m->forward(input) - expected).abs().max().item<float>(), 0.0f);
  }

  // What a run records of a dispatch (docs/bigmodel.md, "In the workspace"): the live model's tree, the map, the
  // limits and the classes kept whole, read back equal; a record that is not one, or whose map leaves a tensor out,
  // is refused naming where it came from.
  void dispatchRecordRoundTrips() {
    QTemporaryDir dir;
    const auto m = gpt("gpt-tiny");
    const DeviceMap map = mapOf({{"transformer.wte", DeviceKey::cpu()},
                                 {"transformer.wpe", DeviceKey::cpu()},
                                 {"transformer.h", DeviceKey::disk()},
                                 {"transformer.ln_f", DeviceKey::cpu()}});
    const MaxMemory limits{{DeviceKey::cpu(), 100'000}};
    DispatchedModel dispatched(m, map, {.unitClasses = m->unitClasses(), .offloadFolder = dir.path().toStdString()});
    const DispatchRecord record = dispatched.record(limits, "gpt-tiny");
    QCOMPARE(record.noSplitClasses, m->unitClasses());
    const std::string text = toJson(record).dump();
    const DispatchRecord back = dispatchRecordFromJson(text, "run 3");
    QCOMPARE(back.modelName, std::string("gpt-tiny"));
    QVERIFY(back.deviceMap == map);
    QVERIFY(back.maxMemory == limits);
    QCOMPARE(back.noSplitClasses, record.noSplitClasses);
    QCOMPARE(back.tree.modules().size(), moduleTreeOf(*m).modules().size());
    QCOMPARE(computeModuleSizes(back.tree)[""], computeModuleSizes(moduleTreeOf(*m))[""]);
    QCOMPARE(toJson(back).dump(), text);

    auto j = nlohmann::ordered_json::parse(text);
    const auto refused = [](const nlohmann::ordered_json& k) {
      return messageOf([&] { dispatchRecordFromJson(k.dump(), "run 3"); });
    };
    QVERIFY(contains(messageOf([] { dispatchRecordFromJson("{not json", "run 3"); }),
                     "run 3: a dispatch record must be JSON"));
    auto other = j;
    other["format"] = "something else";
    QVERIFY(contains(refused(other), "not a dispatch record"));
    auto newer = j;
    newer["version"] = 2;
    QVERIFY(contains(refused(newer), "written by a newer Fathom"));
    auto partial = j;
    partial["device_map"] = nlohmann::ordered_json::array({nlohmann::ordered_json::array({"transformer.wte", "cpu"})});
    const std::string unplaced = refused(partial);
    QVERIFY2(contains(unplaced, "run 3: ") && contains(unplaced, "places no device for 'transformer.wpe.weight'"),
             unplaced.c_str());
    auto noTree = j;
    noTree.erase("module_tree");
    QVERIFY(contains(refused(noTree), "has no \"module_tree\""));
  }

  // recordDeviceMap: a program's dispatch lands with its run (docs/bigmodel.md, "In the workspace"); before
  // initTrackers there is no run to record it with, and nothing is written.
  void recordDeviceMapStoresTheDispatchWithTheRun() {
    QVERIFY(std::getenv("FATHOM_TELEMETRY_ENDPOINT") == nullptr);  // this process writes its own run
    QTemporaryDir dir;
    const std::filesystem::path workspace = dir.filePath(QStringLiteral("ws.sqlite")).toStdString();
    fathom::train::AcceleratorOptions options;
    options.workspace = workspace;
    auto acc = std::make_unique<fathom::train::Accelerator>(
        options, fathom::runtime::ProcessState::fromVariables(
                     [](const std::string&) -> std::optional<std::string> { return std::nullopt; }));
    fathom::models::ModelRequest request;
    request.name = "gpt-tiny";
    const auto model = fathom::models::makeModel(request);
    const DeviceMap map{{"transformer.h", DeviceKey::cpu()}, {"", DeviceKey::cpu()}};
    DispatchedModel dispatched(model, map, {.unitClasses = model->unitClasses()});
    const DispatchRecord record = dispatched.record({{DeviceKey::cpu(), 1'000'000}}, "gpt-tiny");
    acc->recordDeviceMap(record);  // before initTrackers: nothing
    QVERIFY(!std::filesystem::exists(workspace));
    acc->initTrackers("dispatch", nlohmann::json::object());
    acc->recordDeviceMap(record);
    acc->endTraining();
    acc->recordDeviceMap(record);  // after endTraining: nothing

    fathom::store::Workspace ws(workspace);
    const auto runs = ws.listRuns();
    QCOMPARE(runs.size(), std::size_t{1});
    const auto maps = ws.deviceMaps(runs[0].id);
    QCOMPARE(maps.size(), std::size_t{1});
    QCOMPARE(maps[0].map.rank, 0);
    const DispatchRecord back = dispatchRecordFromJson(maps[0].map.recordJson, "the stored record");
    QVERIFY(back.deviceMap == map);
    QCOMPARE(back.modelName, std::string("gpt-tiny"));
    QCOMPARE(back.tree.modules().size(), record.tree.modules().size());
  }

  void inferredMapDispatches() {
    // The planning and the dispatch together: gpt-small with room on the CPU for about a third of it.
    QTemporaryDir dir;
    const auto m = gpt("gpt-small");
    const at::Tensor input = tokens(*m);
    const torch::NoGradGuard noGrad;
    const at::Tensor expected = m->forward(input);
    const ModuleTree tree = moduleTreeOf(*m);
    const ByteCount total = computeModuleSizes(tree)[""];
    const InferResult inferred =
        inferAutoDeviceMap(tree, {.maxMemory = {{DeviceKey::cpu(), total / 3}}, .noSplitModuleClasses = {"GptBlock"}});
    bool cpu = false;
    bool disk = false;
    for (const DeviceMapEntry& e : inferred.deviceMap) {
      cpu = cpu || e.device == DeviceKey::cpu();
      disk = disk || e.device == DeviceKey::disk();
    }
    QVERIFY2(cpu && disk, toJson(inferred.deviceMap).dump().c_str());
    DispatchedModel dispatched(m, inferred.deviceMap,
                               {.unitClasses = m->unitClasses(), .offloadFolder = dir.filePath("o").toStdString()});
    QCOMPARE((m->forward(input) - expected).abs().max().item<float>(), 0.0f);
    QVERIFY(dispatched.placedBytes().at("cpu") <= static_cast<std::int64_t>(total / 3));
  }

  void mlpDispatches() {
    QTemporaryDir dir;
    torch::manual_seed(3);
    models::ModelRequest request;
    request.name = "mlp";
    const auto m = models::makeModel(request);
    const ModuleTree tree = moduleTreeOf(*m);
    const std::string firstBlock = tree.module(tree.childIndexes(*tree.findModule(tree.module(1).name))[0]).name;
    const auto hidden = m->named_parameters()["head.weight"].size(1);
    const at::Tensor input = torch::randn({4, hidden});
    const torch::NoGradGuard noGrad;
    const at::Tensor expected = m->forward(input);
    DispatchedModel dispatched(m, mapOf({{"", DeviceKey::cpu()}, {firstBlock, DeviceKey::disk()}}),
                               {.unitClasses = {m->repeatedBlockType()}, .offloadFolder = dir.path().toStdString()});
    QCOMPARE((m->forward(input) - expected).abs().max().item<float>(), 0.0f);
  }

  void diskWeightsAreResidentOnlyDuringTheirUnit() {
    // gpt-small with every block on disk: between forwards none of the blocks' 42 MB is resident.
    QTemporaryDir dir;
    const auto m = gpt("gpt-small");
    const torch::NoGradGuard noGrad;
    const std::int64_t before = residentBytes();
    DispatchedModel dispatched(m,
                               mapOf({{"transformer.wte", DeviceKey::cpu()},
                                      {"transformer.wpe", DeviceKey::cpu()},
                                      {"transformer.h", DeviceKey::disk()},
                                      {"transformer.ln_f", DeviceKey::cpu()}}),
                               {.unitClasses = m->unitClasses(), .offloadFolder = dir.path().toStdString()});
    const std::int64_t disk = dispatched.placedBytes().at("disk");
    QVERIFY(disk > 40'000'000);
    m->forward(tokens(*m));
    const std::int64_t after = residentBytes();
    // The blocks' memory went back to the system (glibc returns large blocks at once); allow 25% for the allocator.
    QVERIFY2(before - after > disk * 3 / 4,
             qPrintable(QString("resident before %1, after %2, disk %3").arg(before).arg(after).arg(disk)));
  }

  void offloadedWeightsNeedNoGrad() {
    QTemporaryDir dir;
    const auto m = gpt("gpt-tiny");
    DispatchedModel dispatched(m, mapOf({{"", DeviceKey::disk()}}), {.offloadFolder = dir.path().toStdString()});
    const std::string message = messageOf([&] { m->forward(tokens(*m)); });
    QVERIFY2(contains(message, "torch::NoGradGuard") && contains(message, "offloaded"), message.c_str());
    // Refused before anything was loaded: the next forward (without autograd) works.
    const torch::NoGradGuard noGrad;
    QCOMPARE(m->forward(tokens(*m)).dim(), 3);
  }

  void badMapsAreRefusedBeforeAnythingMoves_data() {
    QTest::addColumn<QString>("entry");
    QTest::addColumn<QString>("device");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown module") << "transformer.h.9"
                                    << "cpu"
                                    << "'transformer.h.9' is not a module or tensor";
    QTest::newRow("unplaced tensor") << ""
                                     << ""
                                     << "places no device for 'transformer.ln_f.weight'";
    QTest::newRow("GPU without CUDA") << "transformer.h.0"
                                      << "0"
                                      << "LibTorch sees 0 CUDA devices";
    QTest::newRow("mps") << "transformer.h.0"
                         << "mps"
                         << "mps";
    QTest::newRow("disk without a folder") << "transformer.h.0"
                                           << "disk"
                                           << "no offload folder";
  }
  void badMapsAreRefusedBeforeAnythingMoves() {
    QFETCH(QString, entry);
    QFETCH(QString, device);
    QFETCH(QString, expected);
    const auto m = gpt("gpt-tiny");
    DeviceMap map = mapOf({{"transformer.wte", DeviceKey::cpu()},
                           {"transformer.wpe", DeviceKey::cpu()},
                           {"transformer.h", DeviceKey::cpu()}});
    if (!entry.isEmpty()) {
      map.push_back({entry.toStdString(), *DeviceKey::parse(device.toStdString())});
      map.push_back({"transformer.ln_f", DeviceKey::cpu()});
    }
    const at::Tensor before = m->named_parameters()["transformer.h.0.attn.c_attn.weight"].clone();
    const std::string message = messageOf([&] { DispatchedModel(m, map, {.unitClasses = {"GptBlock"}}); });
    QVERIFY2(contains(message, expected.toStdString()), message.c_str());
    QVERIFY(torch::equal(m->named_parameters()["transformer.h.0.attn.c_attn.weight"], before));
    // Nothing registered: the model runs undispatched.
    const torch::NoGradGuard noGrad;
    QCOMPARE(m->forward(tokens(*m)).dim(), 3);
  }

  void unknownUnitClass() {
    const auto m = gpt("gpt-tiny");
    const std::string message = messageOf([&] {
      DispatchedModel(m, mapOf({{"", DeviceKey::cpu()}}), {.unitClasses = {"LlamaDecoderLayer"}});
    });
    QVERIFY2(contains(message, "no module of the model has class 'LlamaDecoderLayer'"), message.c_str());
  }

  void tiedNamesMustAgree() {
    // One tensor registered under two names (a tied lm_head), mapped to two devices.
    struct Holder : torch::nn::Module {
      explicit Holder(const at::Tensor& w) : torch::nn::Module("Holder") { register_parameter("weight", w); }
    };
    struct Tied : torch::nn::Module {
      Tied() {
        const at::Tensor shared = torch::randn({8, 4});
        register_module("embed", std::make_shared<Holder>(shared));
        register_module("head", std::make_shared<Holder>(shared));
      }
    };
    QTemporaryDir dir;
    const auto m = std::make_shared<Tied>();
    QCOMPARE(moduleTreeOf(*m).tiedParameters().size(), std::size_t{1});
    const std::string message = messageOf([&] {
      DispatchedModel(m, mapOf({{"embed", DeviceKey::cpu()}, {"head", DeviceKey::disk()}}),
                      {.offloadFolder = dir.path().toStdString()});
    });
    QVERIFY2(contains(message, "'embed.weight' and 'head.weight' are one tensor (tied)"), message.c_str());
  }

  void mappedSafetensors() {
    QTemporaryDir dir;
    const std::filesystem::path path = dir.filePath("t.safetensors").toStdString();
    const at::Tensor a = torch::arange(12, torch::kFloat).reshape({3, 4});
    const at::Tensor b = torch::tensor({true, false, true});
    const at::Tensor c = torch::tensor({1.5, -2.0}, torch::kDouble);
    io::writeSafetensors(path, {{"a", a}, {"b", b}, {"c", c}});
    at::Tensor viewA;
    {
      const io::MappedSafetensors file(path);
      QCOMPARE(file.header().entries.size(), std::size_t{3});
      viewA = file.tensor("a");
      QVERIFY(torch::equal(viewA, a));
      QVERIFY(torch::equal(file.tensor("b"), b));
      QVERIFY(torch::equal(file.tensor("c"), c));
      file.releasePages("a");  // the pages come back from the file on the next read
      QVERIFY(torch::equal(viewA, a));
      const std::string missing = messageOf([&] { file.tensor("d"); });
      QVERIFY2(contains(missing, "has no tensor 'd'"), missing.c_str());
    }
    // The view keeps the mapping: the reader may go first.
    QVERIFY(torch::equal(viewA, a));
    // Writing through a view changes this process's pages, never the file.
    viewA.fill_(0);
    QVERIFY(torch::equal(io::readSafetensors(path).tensors[0].second, a));

    // A BOOL byte other than 0 and 1 is refused when the tensor is asked for.
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      const io::SafetensorsHeader header = io::readSafetensorsHeader(path);
      f.seekp(static_cast<std::streamoff>(header.dataStart + header.find("b")->begin));
      f.put(static_cast<char>(7));
    }
    const io::MappedSafetensors file(path);
    const std::string bad = messageOf([&] { file.tensor("b"); });
    QVERIFY2(contains(bad, "BOOL element 0 has byte value 7"), bad.c_str());
  }

  void unitScopeAlignsThroughHooks() {
    // align() and callUnit's arguments go through UnitHooks::alignInput, the output through alignOutput.
    struct Doubling : parallel::UnitHooks {
      void preForward() override {}
      void postForward(const std::vector<at::Tensor>&) override {}
      at::Tensor alignInput(const at::Tensor& x) override { return x * 2; }
      at::Tensor alignOutput(const at::Tensor& y) override { return y + 1; }
    };
    struct Identity : torch::nn::Module {
      at::Tensor forward(const at::Tensor& x) { return x; }
    };
    auto unit = std::make_shared<Identity>();
    parallel::registerUnitHooks(*unit, std::make_shared<Doubling>());
    const at::Tensor y = parallel::callUnit(unit, torch::ones({2}));
    parallel::unregisterUnitHooks(*unit);
    QVERIFY(torch::equal(y, torch::full({2}, 3.0)));
    QVERIFY(torch::equal(parallel::callUnit(unit, torch::ones({2})), torch::ones({2})));
  }
};

QTEST_GUILESS_MAIN(TestDispatch)
#include "tst_dispatch.moc"
