// SPDX-License-Identifier: Apache-2.0
#include "fathom/models/model_factory.h"

#include "fathom/common/error.h"
#include "fathom/models/gpt.h"

#include <algorithm>

namespace fathom::models {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    out += out.empty() ? name : ", " + name;
  }
  return out;
}

void checkKnownModel(const std::string& name) {
  const auto names = builtinModelNames();
  FATHOM_CHECK(std::find(names.begin(), names.end(), name) != names.end(), ConfigError, "unknown model '", name,
               "' (known: ", joined(names), ")");
}

}  // namespace

std::vector<std::string> builtinModelNames() {
  return {"gpt", "gpt-small", "gpt-tiny", "mlp"};
}

bool isGpt(const ModelRequest& request) {
  return request.name == "gpt" || request.name == "gpt-tiny" || request.name == "gpt-small";
}

GptOptions resolveGptOptions(const ModelRequest& request) {
  checkKnownModel(request.name);
  FATHOM_CHECK(isGpt(request), ConfigError, "model '", request.name, "' is not a gpt model");
  GptOptions o = gptPreset(request.name == "gpt" ? "gpt-tiny" : request.name);
  const GptOverrides& g = request.gpt;
  o.nLayer = g.nLayer.value_or(o.nLayer);
  o.nHead = g.nHead.value_or(o.nHead);
  o.nEmbd = g.nEmbd.value_or(o.nEmbd);
  o.blockSize = g.blockSize.value_or(o.blockSize);
  o.vocabSize = g.vocabSize.value_or(o.vocabSize);
  o.dropout = g.dropout.value_or(o.dropout);
  o.bias = g.bias.value_or(o.bias);
  validate(o);
  return o;
}

std::shared_ptr<Model> makeModel(const ModelRequest& request) {
  checkKnownModel(request.name);
  if (isGpt(request)) {
    return std::make_shared<Gpt>(resolveGptOptions(request));
  }
  return std::make_shared<Mlp>(request.mlp);
}

plan::ModelSpec builtinModelSpec(const ModelRequest& request) {
  checkKnownModel(request.name);
  if (!isGpt(request)) {
    return plan::modelFromParams(mlpParameterCount(request.mlp), "mlp");
  }
  const GptOptions o = resolveGptOptions(request);
  plan::ModelSpec spec = plan::modelFromDims(toPlanDims(o), request.name);
  if (!o.bias) {
    // The planner counts GPT-2's biases; nanoGPT's bias=False drops them from every Linear and LayerNorm:
    // per block ln_1 n + c_attn 3n + c_proj n + ln_2 n + c_fc 4n + mlp.c_proj n = 11n, plus ln_f n.
    const std::int64_t n = o.nEmbd;
    spec.blockParams -= 11 * n;
    spec.otherParams -= n;
    spec.totalParams -= o.nLayer * 11 * n + n;
    spec.largestUnitParams = std::max(spec.blockParams, o.vocabSize * n);
    spec.largestModuleParams = std::max({o.vocabSize * n, o.blockSize * n, 4 * n * n});
  }
  FATHOM_ASSERT(spec.totalParams == gptParameterCount(o), "planner count ", spec.totalParams,
                " differs from the model's ", gptParameterCount(o));
  return spec;
}

std::vector<std::string> builtinDatasetNames() {
  return {"regression", "text"};
}

std::shared_ptr<data::Dataset> makeDataset(const DatasetRequest& dataset, const ModelRequest& model) {
  checkKnownModel(model.name);
  if (dataset.name == "regression") {
    FATHOM_CHECK(!isGpt(model), ConfigError, "dataset 'regression' needs model 'mlp', got '", model.name,
                 "' (use --dataset text with a gpt model)");
    validate(model.mlp);
    return std::make_shared<RegressionDataset>(RegressionDatasetOptions{
        .numSamples = dataset.numSamples, .dim = model.mlp.hidden, .seed = dataset.seed, .noise = dataset.noise});
  }
  if (dataset.name == "text") {
    FATHOM_CHECK(isGpt(model), ConfigError, "dataset 'text' needs a gpt model (",
                 joined({"gpt", "gpt-small", "gpt-tiny"}), "), got '", model.name, "'");
    const GptOptions o = resolveGptOptions(model);
    auto text =
        std::make_shared<CharTextDataset>(CharTextDatasetOptions{.path = dataset.textPath, .blockSize = o.blockSize});
    FATHOM_CHECK(text->vocabSize() <= o.vocabSize, ConfigError, "text file ", text->path(), " has ", text->vocabSize(),
                 " distinct characters but the model's vocab_size is ", o.vocabSize);
    return text;
  }
  throw ConfigError(
      detail::concat("unknown dataset '", dataset.name, "' (known: ", joined(builtinDatasetNames()), ")"));
}

}  // namespace fathom::models
