// SPDX-License-Identifier: Apache-2.0
#include "fathom/models/model_factory.h"

#include "fathom/common/error.h"
#include "fathom/models/gpt.h"

#include <algorithm>

namespace fathom::models {
namespace {

/// "gpt, gpt-small, gpt-tiny": the models the text dataset suits.
std::string gptModelNames() {
  std::string out;
  for (const BuiltinModelInfo& m : builtinModels()) {
    if (m.family == ModelFamily::Gpt) {
      out += out.empty() ? std::string(m.name) : ", " + std::string(m.name);
    }
  }
  return out;
}

}  // namespace

GptOptions resolveGptOptions(const ModelRequest& request) {
  FATHOM_CHECK(request.isGpt(), ConfigError, "model '", request.name, "' is not a gpt model");
  const GptOptions o = request.shape().gpt;
  validate(o);
  return o;
}

MlpOptions resolveMlpOptions(const ModelRequest& request) {
  FATHOM_CHECK(!request.isGpt(), ConfigError, "model '", request.name, "' is not the mlp");
  const MlpOptions o = request.shape().mlp;
  validate(o);
  return o;
}

std::shared_ptr<Model> makeModel(const ModelRequest& request) {
  if (request.isGpt()) {
    return std::make_shared<Gpt>(resolveGptOptions(request));
  }
  return std::make_shared<Mlp>(resolveMlpOptions(request));
}

plan::ModelSpec builtinModelSpec(const ModelRequest& request) {
  if (!request.isGpt()) {
    return plan::modelFromParams(mlpParameterCount(resolveMlpOptions(request)), "mlp");
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
  if (dataset.name == "regression") {
    FATHOM_CHECK(!model.isGpt(), ConfigError, "dataset 'regression' needs model 'mlp', got '", model.name,
                 "' (use --dataset text with a gpt model)");
    const MlpOptions mlp = resolveMlpOptions(model);
    return std::make_shared<RegressionDataset>(RegressionDatasetOptions{
        .numSamples = dataset.numSamples, .dim = mlp.hidden, .seed = dataset.seed, .noise = dataset.noise});
  }
  if (dataset.name == "text") {
    FATHOM_CHECK(model.isGpt(), ConfigError, "dataset 'text' needs a gpt model (", gptModelNames(), "), got '",
                 model.name, "'");
    const GptOptions o = resolveGptOptions(model);
    auto text =
        std::make_shared<CharTextDataset>(CharTextDatasetOptions{.path = dataset.textPath, .blockSize = o.blockSize});
    FATHOM_CHECK(text->vocabSize() <= o.vocabSize, ConfigError, "text file ", text->path(), " has ", text->vocabSize(),
                 " distinct characters but the model's vocab_size is ", o.vocabSize);
    return text;
  }
  std::string known;
  for (const std::string& name : builtinDatasetNames()) {
    known += known.empty() ? name : ", " + name;
  }
  throw ConfigError(detail::concat("unknown dataset '", dataset.name, "' (known: ", known, ")"));
}

}  // namespace fathom::models
