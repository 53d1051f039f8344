// SPDX-License-Identifier: Apache-2.0
// Module trees from files (core/bigmodel, issue 23): from a Hugging Face config.json (the modules transformers builds
// for gpt2, llama, mistral and mixtral, their parameter totals equal to the planner's for the same config) and from
// safetensors checkpoints written here byte by byte (one file, a sharded index, a folder; matched to a config beside
// them or derived from the names), with the refusals for broken checkpoints.
#include "error_helpers.h"

#include <fathom/bigmodel/checkpoint_module_tree.h>
#include <fathom/bigmodel/hf_module_tree.h>
#include <fathom/bigmodel/infer_device_map.h>
#include <fathom/bigmodel/module_sizes.h>
#include <fathom/common/error.h>
#include <fathom/io/safetensors_index.h>
#include <fathom/plan/hf_config.h>

#include <nlohmann/json.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

using namespace fathom;
using namespace fathom::bigmodel;
using fathom::test::contains;
using fathom::test::messageOf;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string& name) {
  return std::string(FATHOM_TEST_DATA_DIR) + "/hf_configs/" + name + "/config.json";
}

/// Every parameter's elements, each tensor object once (named_parameters()).
std::int64_t parameterCount(const ModuleTree& tree) {
  std::int64_t n = 0;
  for (const NamedTensor& t : tree.parameters(0, true)) {
    n += t.tensor->numel();
  }
  return n;
}

/// The tensor `name` ("a.b.weight"): a parameter or a buffer of its module; nullptr when there is none.
const TensorInfo* tensorNamed(const ModuleTree& tree, const std::string& name) {
  const auto dot = name.rfind('.');
  const auto index = tree.findModule(dot == std::string::npos ? "" : name.substr(0, dot));
  if (!index) {
    return nullptr;
  }
  const std::string local = dot == std::string::npos ? name : name.substr(dot + 1);
  const ModuleInfo& m = tree.module(*index);
  for (const auto* list : {&m.parameters, &m.buffers}) {
    for (const TensorInfo& t : *list) {
      if (t.name == local) {
        return &t;
      }
    }
  }
  return nullptr;
}

std::string classOf(const ModuleTree& tree, const std::string& module) {
  const auto index = tree.findModule(module);
  return index ? tree.module(*index).className : "<none>";
}

struct Stored {
  std::string name;
  std::string dtype;  ///< as safetensors spells it: F32, BF16, BOOL, ...
  std::vector<std::int64_t> shape;
};

std::size_t elementBytes(const std::string& dtype) {
  static const std::map<std::string, std::size_t> kBytes{{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2},
                                                         {"I64", 8}, {"I32", 4}, {"I8", 1},  {"BOOL", 1}};
  return kBytes.at(dtype);
}

/// A safetensors file written by hand: the 8-byte little-endian header length, the JSON header, zeros for the data.
void writeSafetensors(const fs::path& path, const std::vector<Stored>& tensors) {
  json header = json::object();
  std::uint64_t offset = 0;
  for (const Stored& t : tensors) {
    std::uint64_t bytes = elementBytes(t.dtype);
    for (const std::int64_t d : t.shape) {
      bytes *= static_cast<std::uint64_t>(d);
    }
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  header["__metadata__"] = {{"format", "pt"}};
  const std::string text = header.dump();
  std::ofstream out(path, std::ios::binary);
  for (int i = 0; i < 8; ++i) {
    out.put(static_cast<char>((text.size() >> (8 * i)) & 0xff));
  }
  out << text << std::string(offset, '\0');
}

void writeText(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

/// A small Llama: 2 layers, width 8, 2 heads of 4, 1 key/value head, MLP 16, vocabulary 10, bfloat16.
json tinyLlama() {
  return {{"model_type", "llama"},     {"architectures", {"LlamaForCausalLM"}},
          {"hidden_size", 8},          {"num_attention_heads", 2},
          {"num_key_value_heads", 1},  {"num_hidden_layers", 2},
          {"intermediate_size", 16},   {"vocab_size", 10},
          {"torch_dtype", "bfloat16"}, {"max_position_embeddings", 32}};
}

/// A small GPT-2: 2 layers, width 8, 2 heads, 16 positions, vocabulary 10, no torch_dtype (float32), tied.
json tinyGpt2() {
  return {{"model_type", "gpt2"}, {"architectures", {"GPT2LMHeadModel"}},
          {"n_embd", 8},          {"n_head", 2},
          {"n_layer", 2},         {"n_positions", 16},
          {"vocab_size", 10}};
}

plan::HfConfig configOf(const json& j) {
  return plan::readHfConfigText(j.dump(), "tiny", "tiny/config.json");
}

/// What save_pretrained stores of a model: its parameters and persistent buffers, a tied tensor once (the first name).
std::vector<Stored> storedTensorsOf(const ModuleTree& tree, const std::string& dtype) {
  std::vector<Stored> out;
  for (const NamedTensor& t : tree.parameters(0, true)) {
    out.push_back({t.name, dtype, t.tensor->shape});
  }
  for (const NamedTensor& t : tree.buffers(0, true)) {
    if (t.tensor->persistent) {
      out.push_back({t.name, dtype, t.tensor->shape});
    }
  }
  return out;
}

}  // namespace

class TestModuleTreeSources : public QObject {
  Q_OBJECT

private:
  QTemporaryDir m_tmp;

  fs::path folder(const std::string& name) {
    const fs::path p = fs::path(m_tmp.path().toStdString()) / name;
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
  }

private slots:
  void initTestCase() { QVERIFY(m_tmp.isValid()); }

  // ---- from config.json -------------------------------------------------------------------------------------------

  void hfConfigTotalsMatchThePlanner_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("rootClass");
    QTest::addColumn<QString>("block");
    QTest::addColumn<QString>("blockClass");
    QTest::addColumn<QString>("dtype");
    QTest::newRow("gpt2") << "gpt2"
                          << "GPT2LMHeadModel"
                          << "transformer.h.11"
                          << "GPT2Block"
                          << "float32";
    QTest::newRow("llama-2-7b") << "llama-2-7b"
                                << "LlamaForCausalLM"
                                << "model.layers.31"
                                << "LlamaDecoderLayer"
                                << "float16";
    QTest::newRow("mistral-7b") << "mistral-7b"
                                << "MistralForCausalLM"
                                << "model.layers.31"
                                << "MistralDecoderLayer"
                                << "bfloat16";
    QTest::newRow("mixtral-8x7b") << "mixtral-8x7b"
                                  << "MixtralForCausalLM"
                                  << "model.layers.31"
                                  << "MixtralDecoderLayer"
                                  << "bfloat16";
  }

  /// The tree's parameters, each tensor once, are the planner's count for the same config.json; the decoder block is
  /// the family's no-split class; every parameter has torch_dtype.
  void hfConfigTotalsMatchThePlanner() {
    QFETCH(QString, name);
    QFETCH(QString, rootClass);
    QFETCH(QString, block);
    QFETCH(QString, blockClass);
    QFETCH(QString, dtype);
    const std::string path = fixture(name.toStdString());
    const ModuleTree tree = moduleTreeFromHfConfig(fs::path(path));
    const plan::ModelSpec spec = plan::modelFromHfConfig(path);
    QCOMPARE(parameterCount(tree), spec.totalParams);
    QCOMPARE(QString::fromStdString(tree.root().className), rootClass);
    QCOMPARE(QString::fromStdString(classOf(tree, block.toStdString())), blockClass);
    QCOMPARE(QString::fromStdString(std::string(hfFamily(plan::readHfConfig(path).modelType)->noSplit)), blockClass);
    for (const NamedTensor& t : tree.parameters(0, true)) {
      QCOMPARE(QString::fromStdString(std::string(dtypeName(t.tensor->dtype))), dtype);
    }
  }

  void gpt2Layout() {
    const ModuleTree tree = moduleTreeFromHfConfig(fs::path(fixture("gpt2")));
    QCOMPARE(tree.root().children, (std::vector<std::string>{"transformer", "lm_head"}));
    QCOMPARE(tree.module(*tree.findModule("transformer")).children,
             (std::vector<std::string>{"wte", "wpe", "drop", "h", "ln_f"}));
    QCOMPARE(tree.module(*tree.findModule("transformer.h.0")).children,
             (std::vector<std::string>{"ln_1", "attn", "ln_2", "mlp"}));
    QCOMPARE(classOf(tree, "transformer.h.0.attn"), std::string("GPT2Attention"));
    QCOMPARE(classOf(tree, "transformer.h.0.attn.c_attn"), std::string("Conv1D"));
    QCOMPARE(classOf(tree, "transformer.h.0.mlp.act"), std::string("NewGELUActivation"));
    // Conv1D(3n, n): weight [n, 3n]; GPT2MLP's c_fc Conv1D(4n, n) and c_proj Conv1D(n, 4n).
    QCOMPARE(tensorNamed(tree, "transformer.h.0.attn.c_attn.weight")->shape, (std::vector<std::int64_t>{768, 2304}));
    QCOMPARE(tensorNamed(tree, "transformer.h.0.attn.c_attn.bias")->shape, (std::vector<std::int64_t>{2304}));
    QCOMPARE(tensorNamed(tree, "transformer.h.0.mlp.c_proj.weight")->shape, (std::vector<std::int64_t>{3072, 768}));
    // The causal mask: bool, non-persistent; lm_head is wte (tie_word_embeddings defaults to true for GPT-2).
    const TensorInfo* mask = tensorNamed(tree, "transformer.h.0.attn.bias");
    QCOMPARE(mask->shape, (std::vector<std::int64_t>{1, 1, 1024, 1024}));
    QVERIFY(mask->dtype == Dtype::Bool && !mask->persistent);
    QCOMPARE(tree.tiedParameters(),
             (std::vector<std::vector<std::string>>{{"lm_head.weight", "transformer.wte.weight"}}));
    // compute_module_sizes: the parameters (tied once) in float32, and 12 blocks' buffers (1024^2 bools at 1/8 byte
    // plus the float32 masked_bias).
    const ModuleSizes sizes = computeModuleSizes(tree);
    QCOMPARE(sizes[""], 4.0 * 124439808 + 12 * (1024.0 * 1024 / 8 + 4));
    // The largest layer as infer_auto_device_map reserves it: wte (lm_head counts nothing, being wte).
    const MaxLayer largest = getModelMaxLayerSize(tree, sizes, {"GPT2Block"});
    QCOMPARE(largest.names, std::vector<std::string>{"transformer.wte"});
    QCOMPARE(largest.size, 4.0 * 50257 * 768);
  }

  void llamaFamilyLayout() {
    const ModuleTree mistral = moduleTreeFromHfConfig(fs::path(fixture("mistral-7b")));
    QCOMPARE(mistral.module(*mistral.findModule("model")).children,
             (std::vector<std::string>{"embed_tokens", "layers", "norm", "rotary_emb"}));
    QCOMPARE(mistral.module(*mistral.findModule("model.layers.0")).children,
             (std::vector<std::string>{"self_attn", "mlp", "input_layernorm", "post_attention_layernorm"}));
    // GQA: 8 key/value heads of 128 beside 32 query heads.
    QCOMPARE(tensorNamed(mistral, "model.layers.0.self_attn.q_proj.weight")->shape,
             (std::vector<std::int64_t>{4096, 4096}));
    QCOMPARE(tensorNamed(mistral, "model.layers.0.self_attn.k_proj.weight")->shape,
             (std::vector<std::int64_t>{1024, 4096}));
    QCOMPARE(tensorNamed(mistral, "model.layers.0.mlp.down_proj.weight")->shape,
             (std::vector<std::int64_t>{4096, 14336}));
    QCOMPARE(classOf(mistral, "model.norm"), std::string("MistralRMSNorm"));
    QCOMPARE(classOf(mistral, "model.layers.0.mlp.act_fn"), std::string("SiLU"));
    const TensorInfo* invFreq = tensorNamed(mistral, "model.rotary_emb.inv_freq");
    QVERIFY(invFreq && invFreq->dtype == Dtype::Float32 && !invFreq->persistent);
    QCOMPARE(invFreq->shape, std::vector<std::int64_t>{64});
    QVERIFY(mistral.tiedParameters().empty());

    const ModuleTree mixtral = moduleTreeFromHfConfig(fs::path(fixture("mixtral-8x7b")));
    QCOMPARE(classOf(mixtral, "model.layers.0.block_sparse_moe"), std::string("MixtralSparseMoeBlock"));
    QCOMPARE(classOf(mixtral, "model.layers.0.block_sparse_moe.experts.7"), std::string("MixtralBlockSparseTop2MLP"));
    QCOMPARE(tensorNamed(mixtral, "model.layers.0.block_sparse_moe.gate.weight")->shape,
             (std::vector<std::int64_t>{8, 4096}));
    QCOMPARE(tensorNamed(mixtral, "model.layers.0.block_sparse_moe.experts.7.w2.weight")->shape,
             (std::vector<std::int64_t>{4096, 14336}));
    QVERIFY(!mixtral.findModule("model.layers.0.block_sparse_moe.experts.8"));
  }

  /// Options the fixtures leave at their defaults: biases, head_dim, a tied Llama, the base model as architecture.
  void llamaOptions() {
    json j = tinyLlama();
    j["head_dim"] = 6;
    j["tie_word_embeddings"] = true;
    ModuleTree tree = moduleTreeFromHfConfig(configOf(j));
    QCOMPARE(tensorNamed(tree, "model.layers.1.self_attn.q_proj.weight")->shape, (std::vector<std::int64_t>{12, 8}));
    QCOMPARE(tensorNamed(tree, "model.layers.1.self_attn.o_proj.weight")->shape, (std::vector<std::int64_t>{8, 12}));
    QCOMPARE(tensorNamed(tree, "model.rotary_emb.inv_freq")->shape, std::vector<std::int64_t>{3});
    QVERIFY(!tensorNamed(tree, "model.layers.1.self_attn.q_proj.bias"));
    QCOMPARE(tree.tiedParameters(),
             (std::vector<std::vector<std::string>>{{"lm_head.weight", "model.embed_tokens.weight"}}));
    QCOMPARE(parameterCount(tree), configOf(j).model->totalParams);

    j["attention_bias"] = true;
    j["mlp_bias"] = true;
    tree = moduleTreeFromHfConfig(configOf(j));
    QCOMPARE(tensorNamed(tree, "model.layers.0.self_attn.k_proj.bias")->shape, std::vector<std::int64_t>{6});
    QCOMPARE(tensorNamed(tree, "model.layers.0.self_attn.o_proj.bias")->shape, std::vector<std::int64_t>{8});
    QCOMPARE(tensorNamed(tree, "model.layers.0.mlp.up_proj.bias")->shape, std::vector<std::int64_t>{16});

    j = tinyLlama();
    j["architectures"] = {"LlamaModel"};
    tree = moduleTreeFromHfConfig(configOf(j));
    QCOMPARE(tree.root().className, std::string("LlamaModel"));
    QCOMPARE(tree.root().children, (std::vector<std::string>{"embed_tokens", "layers", "norm", "rotary_emb"}));
    QVERIFY(!tree.findModule("lm_head"));
  }

  void hfConfigRefusals_data() {
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<QString>("message");
    json bert = {{"model_type", "bert"},     {"num_hidden_layers", 2},  {"hidden_size", 8},
                 {"num_attention_heads", 2}, {"intermediate_size", 16}, {"vocab_size", 10}};
    QTest::newRow("family") << QByteArray::fromStdString(bert.dump())
                            << "tiny/config.json: Fathom builds the modules of gpt2, llama, mistral, mixtral models, "
                               "not of model_type 'bert'";
    json j = tinyLlama();
    j["architectures"] = {"LlamaForSequenceClassification"};
    QTest::newRow("architecture") << QByteArray::fromStdString(j.dump())
                                  << "architecture 'LlamaForSequenceClassification' is not one Fathom builds for "
                                     "model_type 'llama' (LlamaForCausalLM or LlamaModel)";
    j = tinyLlama();
    j["torch_dtype"] = "int8";
    QTest::newRow("dtype") << QByteArray::fromStdString(j.dump()) << "torch_dtype 'int8' is not a floating-point dtype";
    j = tinyGpt2();
    j["activation_function"] = "gelu_newest";
    QTest::newRow("activation") << QByteArray::fromStdString(j.dump())
                                << "activation_function 'gelu_newest' is not an activation Fathom knows";
    j = tinyLlama();
    j["num_hidden_layers"] = 1 << 20;
    QTest::newRow("too many modules") << QByteArray::fromStdString(j.dump()) << "modules Fathom builds a tree of";
  }

  void hfConfigRefusals() {
    QFETCH(QByteArray, config);
    QFETCH(QString, message);
    const std::string got = messageOf(
        [&] { moduleTreeFromHfConfig(plan::readHfConfigText(config.toStdString(), "t", "tiny/config.json")); });
    QVERIFY2(contains(got, message.toStdString()), got.c_str());
  }

  // ---- from safetensors -------------------------------------------------------------------------------------------

  /// Without a config: every prefix a module, numbered children in numeric order, generic classes, stored dtypes.
  void checkpointWithoutConfig() {
    const fs::path dir = folder("plain");
    writeSafetensors(dir / "model.safetensors", {{"head.weight", "F16", {3, 2}},
                                                 {"blocks.10.w", "F32", {2}},
                                                 {"blocks.2.w", "F32", {2}},
                                                 {"blocks.0.w", "F32", {2}},
                                                 {"scale", "I64", {}}});
    for (const fs::path& source : {dir, dir / "model.safetensors"}) {
      const CheckpointModel m = readCheckpointModel(source);
      const ModuleTree& tree = m.tree;
      QCOMPARE(tree.root().className, std::string("Model"));
      QCOMPARE(tree.root().children, (std::vector<std::string>{"head", "blocks"}));
      QCOMPARE(tree.root().parameters.size(), std::size_t(1));  // "scale"
      QCOMPARE(tree.module(*tree.findModule("blocks")).children, (std::vector<std::string>{"0", "2", "10"}));
      QCOMPARE(classOf(tree, "blocks"), std::string("ModuleList"));
      QCOMPARE(classOf(tree, "blocks.2"), std::string("Module"));
      QVERIFY(tensorNamed(tree, "head.weight")->dtype == Dtype::Float16);
      QVERIFY(tensorNamed(tree, "scale")->dtype == Dtype::Int64);
      QVERIFY(m.unusedTensors.empty() && m.missingTensors.empty());
    }
  }

  /// With a config.json beside it: the config's model, each stored tensor in its stored dtype.
  void checkpointMatchedToConfig() {
    const fs::path dir = folder("llama");
    writeText(dir / "config.json", tinyLlama().dump());
    const ModuleTree model = moduleTreeFromHfConfig(dir / "config.json");
    writeSafetensors(dir / "model.safetensors", storedTensorsOf(model, "F32"));
    const CheckpointModel m = readCheckpointModel(dir);
    QVERIFY(m.unusedTensors.empty() && m.missingTensors.empty());
    QCOMPARE(m.tree.modules().size(), model.modules().size());
    QCOMPARE(classOf(m.tree, "model.layers.1"), std::string("LlamaDecoderLayer"));
    QVERIFY(tensorNamed(m.tree, "model.layers.1.mlp.up_proj.weight")->dtype == Dtype::Float32);  // stored, not bf16
    // The non-persistent inv_freq is the model's own, though no checkpoint holds it.
    QVERIFY(tensorNamed(m.tree, "model.rotary_emb.inv_freq") != nullptr);
    QCOMPARE(parameterCount(m.tree), parameterCount(model));

    // Saved without "model." (as a base model saves itself), lm_head beside: the prefix comes off the model's names,
    // lm_head keeps its own. Loaded into the base model instead, lm_head has no place.
    std::vector<Stored> unprefixed = storedTensorsOf(model, "BF16");
    for (Stored& t : unprefixed) {
      if (t.name.starts_with("model.")) {
        t.name.erase(0, 6);
      }
    }
    writeSafetensors(dir / "model.safetensors", unprefixed);
    const CheckpointModel loaded = readCheckpointModel(dir);
    QVERIFY(loaded.unusedTensors.empty() && loaded.missingTensors.empty());
    QVERIFY(tensorNamed(loaded.tree, "lm_head.weight")->dtype == Dtype::BFloat16);
    json base = tinyLlama();
    base["architectures"] = {"LlamaModel"};
    writeText(dir / "config.json", base.dump());
    writeSafetensors(dir / "model.safetensors", storedTensorsOf(model, "BF16"));
    const CheckpointModel asBase = readCheckpointModel(dir);
    QCOMPARE(asBase.tree.root().className, std::string("LlamaModel"));
    QCOMPARE(asBase.unusedTensors, std::vector<std::string>{"lm_head.weight"});
    QVERIFY(asBase.missingTensors.empty());
    QVERIFY(tensorNamed(asBase.tree, "layers.1.mlp.up_proj.weight") != nullptr);
  }

  /// GPT-2's own checkpoints: no "transformer." prefix, lm_head stored once as wte, old copies of the causal mask.
  void checkpointGpt2AsTransformersLoadsIt() {
    const fs::path dir = folder("gpt2");
    writeText(dir / "config.json", tinyGpt2().dump());
    const ModuleTree model = moduleTreeFromHfConfig(dir / "config.json");
    std::vector<Stored> stored;
    for (const Stored& t : storedTensorsOf(model, "F32")) {
      if (t.name != "lm_head.weight") {
        stored.push_back({t.name.substr(std::string("transformer.").size()), t.dtype, t.shape});
      }
    }
    QCOMPARE(stored.size(), storedTensorsOf(model, "F32").size());  // lm_head.weight was never stored: tied
    stored.push_back({"h.0.attn.bias", "F32", {1, 1, 16, 16}});
    stored.push_back({"h.0.attn.masked_bias", "F32", {}});
    stored.push_back({"score.weight", "F32", {2, 8}});
    writeSafetensors(dir / "model.safetensors", stored);
    const CheckpointModel m = readCheckpointModel(dir / "model.safetensors");
    QCOMPARE(m.tree.root().className, std::string("GPT2LMHeadModel"));
    QCOMPARE(m.tree.tiedParameters(),
             (std::vector<std::vector<std::string>>{{"lm_head.weight", "transformer.wte.weight"}}));
    QVERIFY(tensorNamed(m.tree, "transformer.h.0.attn.bias")->dtype == Dtype::Bool);  // the model's own mask
    QCOMPARE(m.unusedTensors, std::vector<std::string>{"score.weight"});
    QVERIFY(m.missingTensors.empty());
    QCOMPARE(parameterCount(m.tree), configOf(tinyGpt2()).model->totalParams);
  }

  void checkpointMissingAndMismatched() {
    const fs::path dir = folder("partial");
    writeText(dir / "config.json", tinyLlama().dump());
    std::vector<Stored> stored = storedTensorsOf(moduleTreeFromHfConfig(dir / "config.json"), "BF16");
    std::erase_if(stored, [](const Stored& t) { return t.name == "model.norm.weight"; });
    writeSafetensors(dir / "model.safetensors", stored);
    QCOMPARE(readCheckpointModel(dir).missingTensors, std::vector<std::string>{"model.norm.weight"});

    stored.front().shape = {11, 8};  // model.embed_tokens.weight, one row too many
    writeSafetensors(dir / "model.safetensors", stored);
    const std::string got = messageOf([&] { readCheckpointModel(dir); });
    QVERIFY2(contains(got, "checkpoint: tensor 'model.embed_tokens.weight' (in model.safetensors) has shape [11, 8], "
                           "but LlamaForCausalLM as ") &&
                 contains(got, "config.json describes it has [10, 8]"),
             got.c_str());

    writeSafetensors(dir / "model.safetensors", {{"encoder.weight", "F32", {2}}});
    const std::string none = messageOf([&] { readCheckpointModel(dir); });
    QVERIFY2(contains(none, "none of its 1 tensors is one of LlamaForCausalLM"), none.c_str());
  }

  /// A config whose architecture Fathom does not build still names what it can: the family's base model.
  void checkpointNamedByFamily() {
    const fs::path dir = folder("classifier");
    json j = tinyLlama();
    j["architectures"] = {"LlamaForSequenceClassification"};
    writeText(dir / "config.json", j.dump());
    writeSafetensors(dir / "model.safetensors", {{"model.layers.0.input_layernorm.weight", "BF16", {8}},
                                                 {"model.layers.1.input_layernorm.weight", "BF16", {8}},
                                                 {"score.weight", "BF16", {2, 8}}});
    const ModuleTree tree = moduleTreeFromSafetensors(dir);
    QCOMPARE(tree.root().className, std::string("LlamaForSequenceClassification"));
    QCOMPARE(classOf(tree, "model"), std::string("LlamaModel"));
    QCOMPARE(classOf(tree, "model.layers"), std::string("ModuleList"));
    QCOMPARE(classOf(tree, "model.layers.1"), std::string("LlamaDecoderLayer"));
    QCOMPARE(classOf(tree, "model.layers.1.input_layernorm"), std::string("LlamaRMSNorm"));
    QCOMPARE(classOf(tree, "score"), std::string("Module"));
  }

  /// A sharded checkpoint gives the tree the single file gives.
  void shardedCheckpoint() {
    const fs::path dir = folder("sharded");
    writeText(dir / "config.json", tinyLlama().dump());
    const std::vector<Stored> stored = storedTensorsOf(moduleTreeFromHfConfig(dir / "config.json"), "BF16");
    const std::size_t half = stored.size() / 2;
    writeSafetensors(dir / "model-00001-of-00002.safetensors", {stored.begin(), stored.begin() + half});
    writeSafetensors(dir / "model-00002-of-00002.safetensors", {stored.begin() + half, stored.end()});
    json map = json::object();
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < stored.size(); ++i) {
      map[stored[i].name] = i < half ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
      std::uint64_t n = 2;
      for (const std::int64_t d : stored[i].shape) {
        n *= static_cast<std::uint64_t>(d);
      }
      bytes += n;
    }
    writeText(dir / "model.safetensors.index.json",
              json{{"metadata", {{"total_size", bytes}}}, {"weight_map", map}}.dump());
    const CheckpointTensors read = readCheckpointTensors(dir);
    QVERIFY(read.sharded);
    QCOMPARE(read.bytes, bytes);
    const ModuleTree fromIndex = moduleTreeFromSafetensors(dir / "model.safetensors.index.json");
    writeSafetensors(dir / "model.safetensors", stored);
    const ModuleTree fromFile = moduleTreeFromSafetensors(dir / "model.safetensors");
    QCOMPARE(fromIndex.modules().size(), fromFile.modules().size());
    QCOMPARE(parameterCount(fromIndex), parameterCount(fromFile));
    QVERIFY(tensorNamed(fromIndex, "lm_head.weight")->dtype == Dtype::BFloat16);
  }

  void brokenShardedCheckpoint_data() {
    QTest::addColumn<QByteArray>("index");
    QTest::addColumn<QString>("message");
    const auto index = [](const json& map, const json& metadata = json::object()) {
      return QByteArray::fromStdString(json{{"metadata", metadata}, {"weight_map", map}}.dump());
    };
    // The shards on disk: a.safetensors holds x (4 bytes) and y (8), b.safetensors holds z (4) (and x too for "tensor
    // in two shards").
    QTest::newRow("missing shard") << index({{"x", "a.safetensors"}, {"y", "a.safetensors"}, {"z", "c.safetensors"}})
                                   << "shard 'c.safetensors' is missing from";
    QTest::newRow("tensor not in its shard")
        << index({{"x", "a.safetensors"}, {"y", "a.safetensors"}, {"z", "b.safetensors"}, {"w", "b.safetensors"}})
        << "the index puts tensor 'w' in shard 'b.safetensors', which does not hold it";
    QTest::newRow("tensor the index leaves out") << index({{"x", "a.safetensors"}, {"z", "b.safetensors"}})
                                                 << "shard 'a.safetensors' holds tensor 'y', which the index does not "
                                                    "list";
    QTest::newRow("tensor in another shard")
        << index({{"x", "a.safetensors"}, {"y", "a.safetensors"}, {"z", "a.safetensors"}})
        << "the index puts tensor 'z' in shard 'a.safetensors', which does not hold it";
    QTest::newRow("tensor in two shards")
        << index({{"x", "a.safetensors"}, {"y", "a.safetensors"}, {"z", "b.safetensors"}})
        << "shard 'b.safetensors' holds tensor 'x', which the index puts in shard "
           "'a.safetensors'";
    QTest::newRow("total size") << index({{"x", "a.safetensors"}, {"y", "a.safetensors"}, {"z", "b.safetensors"}},
                                         {{"total_size", 15}})
                                << "metadata.total_size is 15 bytes, but the shards' tensors hold 16";
    QTest::newRow("listed twice") << QByteArray(R"({"weight_map": {"x": "a.safetensors", "x": "b.safetensors"}})")
                                  << "weight_map lists tensor 'x' more than once";
    QTest::newRow("outside the folder") << index({{"x", "../a.safetensors"}})
                                        << "shard '../a.safetensors' is not a plain file name";
    QTest::newRow("no weight_map") << QByteArray(R"({"metadata": {}})") << "it has no 'weight_map'";
    QTest::newRow("bad total") << index({{"x", "a.safetensors"}}, {{"total_size", -1}})
                               << "metadata.total_size must be a whole number of bytes >= 0, got -1";
    QTest::newRow("not json") << QByteArray("{\"weight_map\": ") << "not valid JSON";
  }

  void brokenShardedCheckpoint() {
    QFETCH(QByteArray, index);
    QFETCH(QString, message);
    const fs::path dir = folder("broken");
    writeSafetensors(dir / "a.safetensors", {{"x", "F32", {1}}, {"y", "F32", {2}}});
    const bool twice = QByteArray(QTest::currentDataTag()) == "tensor in two shards";
    std::vector<Stored> b{{"z", "I32", {1}}};
    if (twice) {
      b.push_back({"x", "F32", {1}});
    }
    writeSafetensors(dir / "b.safetensors", b);
    writeText(dir / "model.safetensors.index.json", index.toStdString());
    QVERIFY(test::throwsType<StorageError>([&] { readCheckpointTensors(dir); }));
    const std::string got = messageOf([&] { moduleTreeFromSafetensors(dir); });
    QVERIFY2(contains(got, message.toStdString()) && contains(got, "model.safetensors.index.json"), got.c_str());
  }

  void badNamesAndPaths() {
    const fs::path dir = folder("names");
    const auto treeOf = [](const std::vector<CheckpointTensor>& tensors) { checkpointModel(tensors, nullptr); };
    std::string got = messageOf([&] { treeOf({{"a..b", {1}, Dtype::Float32, "m.safetensors"}}); });
    QVERIFY2(contains(got, "tensor 'a..b' (in m.safetensors) has an empty part in its dotted name"), got.c_str());
    got = messageOf([&] {
      treeOf(
          {{"a.weight", {1}, Dtype::Float32, "m.safetensors"}, {"a.weight.x", {1}, Dtype::Float32, "m.safetensors"}});
    });
    QVERIFY2(contains(got, "'a.weight' (in m.safetensors) is a tensor and also a module holding others"), got.c_str());
    std::string deep = "w";
    for (std::size_t i = 0; i < kMaxNameParts; ++i) {
      deep = "m." + deep;
    }
    got = messageOf([&] { treeOf({{deep, {1}, Dtype::Float32, "m.safetensors"}}); });
    QVERIFY2(contains(got, "has more than 64 dotted parts"), got.c_str());

    got = messageOf([&] { moduleTreeFromSafetensors(dir / "absent"); });
    QVERIFY2(contains(got, "no such checkpoint file or folder"), got.c_str());
    got = messageOf([&] { moduleTreeFromSafetensors(dir); });
    QVERIFY2(contains(got, "holds neither model.safetensors nor model.safetensors.index.json"), got.c_str());
  }

  /// A config's tree plans like any other: GPT-2 on one GPU too small for all of it, blocks kept whole.
  void configTreePlans() {
    const ModuleTree tree = moduleTreeFromHfConfig(fs::path(fixture("gpt2")));
    InferOptions options;
    options.maxMemory = {{DeviceKey::gpu(0), 300e6}, {DeviceKey::cpu(), 1e9}};
    options.noSplitModuleClasses = {"GPT2Block"};
    const InferResult r = inferAutoDeviceMap(tree, options);
    QVERIFY(!r.deviceMap.empty());
    for (const DeviceMapEntry& e : r.deviceMap) {
      QVERIFY2(e.module.find(".attn") == std::string::npos, e.module.c_str());  // no block was split
    }
    QCOMPARE(r.deviceMap.front().device.toString(), std::string("0"));
  }
};

QTEST_GUILESS_MAIN(TestModuleTreeSources)
#include "tst_module_tree_sources.moc"
