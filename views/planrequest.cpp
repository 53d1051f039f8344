// SPDX-License-Identifier: Apache-2.0
#include "planrequest.h"

#include <fathom/common/error.h>
#include <fathom/plan/hf_config.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>

#include <cmath>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

struct PlanText {
  Q_DECLARE_TR_FUNCTIONS(PlanRequest)
};

QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

std::string text(const QJsonObject& j, const QString& key, const char* fallback) {
  const QJsonValue v = j.value(key);
  return v.isString() ? v.toString().toStdString() : std::string(fallback);
}

std::int64_t integer(const QJsonObject& j, const QString& key, std::int64_t fallback) {
  const QJsonValue v = j.value(key);
  return v.isDouble() ? static_cast<std::int64_t>(std::llround(v.toDouble())) : fallback;
}

QJsonObject dimsToJson(const plan::TransformerDims& d) {
  return {{u"arch"_s, qs(plan::archName(d.arch))},
          {u"layers"_s, qint64(d.layers)},
          {u"decoder_layers"_s, qint64(d.decoderLayers)},
          {u"hidden"_s, qint64(d.hidden)},
          {u"heads"_s, qint64(d.heads)},
          {u"kv_heads"_s, qint64(d.kvHeads)},
          {u"head_dim"_s, qint64(d.headDim)},
          {u"ffn_hidden"_s, qint64(d.ffnHidden)},
          {u"vocab"_s, qint64(d.vocab)},
          {u"max_positions"_s, qint64(d.maxPositions)},
          {u"tied_embeddings"_s, d.tiedEmbeddings},
          {u"gated_mlp"_s, d.gatedMlp},
          {u"num_experts"_s, qint64(d.numExperts)},
          {u"experts_per_token"_s, qint64(d.expertsPerToken)},
          {u"dropout"_s, d.dropout}};
}

plan::TransformerDims dimsFromJson(const QJsonObject& j) {
  plan::TransformerDims d;
  d.arch = plan::parseArch(text(j, u"arch"_s, "gpt"));
  d.layers = integer(j, u"layers"_s, 0);
  d.decoderLayers = integer(j, u"decoder_layers"_s, 0);
  d.hidden = integer(j, u"hidden"_s, 0);
  d.heads = integer(j, u"heads"_s, 0);
  d.kvHeads = integer(j, u"kv_heads"_s, 0);
  d.headDim = integer(j, u"head_dim"_s, 0);
  d.ffnHidden = integer(j, u"ffn_hidden"_s, 0);
  d.vocab = integer(j, u"vocab"_s, 0);
  d.maxPositions = integer(j, u"max_positions"_s, 0);
  d.tiedEmbeddings = j.value(u"tied_embeddings"_s).toBool(d.arch != plan::Arch::Llama);
  d.gatedMlp = j.value(u"gated_mlp"_s).toBool(false);
  d.numExperts = integer(j, u"num_experts"_s, 0);
  d.expertsPerToken = integer(j, u"experts_per_token"_s, 0);
  d.dropout = j.value(u"dropout"_s).toBool(true);
  return d;
}

QJsonObject builtinToJson(const BuiltinModel& m) {
  QJsonObject j{{u"name"_s, qs(m.name)}};
  auto put = [&j](const QString& key, std::int64_t v) {
    if (v > 0) {
      j.insert(key, qint64(v));
    }
  };
  put(u"hidden"_s, m.hidden);
  put(u"layers"_s, m.layers);
  put(u"n_layer"_s, m.nLayer);
  put(u"n_head"_s, m.nHead);
  put(u"n_embd"_s, m.nEmbd);
  put(u"block_size"_s, m.blockSize);
  put(u"vocab_size"_s, m.vocabSize);
  return j;
}

BuiltinModel builtinFromJson(const QJsonObject& j) {
  BuiltinModel m;
  m.name = text(j, u"name"_s, "gpt-tiny");
  m.hidden = integer(j, u"hidden"_s, 0);
  m.layers = integer(j, u"layers"_s, 0);
  m.nLayer = integer(j, u"n_layer"_s, 0);
  m.nHead = integer(j, u"n_head"_s, 0);
  m.nEmbd = integer(j, u"n_embd"_s, 0);
  m.blockSize = integer(j, u"block_size"_s, 0);
  m.vocabSize = integer(j, u"vocab_size"_s, 0);
  return m;
}

QJsonObject linkToJson(const plan::LinkSpec& l) {
  return {{u"bandwidth"_s, l.bandwidth}, {u"latency"_s, l.latency}};
}

plan::LinkSpec linkFromJson(const QJsonObject& j) {
  return {j.value(u"bandwidth"_s).toDouble(), j.value(u"latency"_s).toDouble()};
}

}  // namespace

plan::ModelSpec ModelSource::resolve() const {
  switch (kind) {
  case Kind::Builtin: return introspect(builtin);
  case Kind::Dimensions: return plan::modelFromDims(dims, dimsName.isEmpty() ? std::string() : dimsName.toStdString());
  case Kind::HfConfig: {
    QString path = hfConfigPath;
    if (QFileInfo(path).isDir()) {
      path = QDir(path).filePath(u"config.json"_s);
    }
    FATHOM_CHECK(!path.isEmpty(), ConfigError, "no Hugging Face config.json chosen");
    return plan::modelFromHfConfig(path.toStdString());
  }
  case Kind::Parameters:
    FATHOM_CHECK(parameters >= 1 && parameters < 9e18, ConfigError, "params must be a positive count, got ",
                 parameters);
    return plan::modelFromParams(static_cast<std::int64_t>(std::llround(parameters)));
  }
  throw ConfigError("unknown model source");
}

QString ModelSource::cacheKey() const {
  return QString::fromUtf8(QJsonDocument(toJson()).toJson(QJsonDocument::Compact));
}

QJsonObject ModelSource::toJson() const {
  switch (kind) {
  case Kind::Builtin: return {{u"kind"_s, u"builtin"_s}, {u"builtin"_s, builtinToJson(builtin)}};
  case Kind::Dimensions: return {{u"kind"_s, u"dims"_s}, {u"name"_s, dimsName}, {u"dims"_s, dimsToJson(dims)}};
  case Kind::HfConfig: return {{u"kind"_s, u"hf_config"_s}, {u"path"_s, hfConfigPath}};
  case Kind::Parameters: return {{u"kind"_s, u"params"_s}, {u"params"_s, parameters}};
  }
  return {};
}

ModelSource ModelSource::fromJson(const QJsonObject& json) {
  ModelSource s;
  const QString kind = json.value(u"kind"_s).toString();
  if (kind == u"builtin"_s) {
    s.kind = Kind::Builtin;
    s.builtin = builtinFromJson(json.value(u"builtin"_s).toObject());
  } else if (kind == u"dims"_s) {
    s.kind = Kind::Dimensions;
    s.dimsName = json.value(u"name"_s).toString();
    s.dims = dimsFromJson(json.value(u"dims"_s).toObject());
  } else if (kind == u"hf_config"_s) {
    s.kind = Kind::HfConfig;
    s.hfConfigPath = json.value(u"path"_s).toString();
  } else if (kind == u"params"_s) {
    s.kind = Kind::Parameters;
    s.parameters = json.value(u"params"_s).toDouble();
  } else {
    throw ConfigError(detail::concat("unknown model source '", kind.toStdString(),
                                     "' (expected builtin, dims, hf_config or params)"));
  }
  return s;
}

plan::HardwareSpec HardwareChoice::resolve() const {
  if (custom) {
    plan::validateHardware(*custom);
    return *custom;
  }
  return plan::loadHardware(preset.toStdString());
}

QJsonObject HardwareChoice::toJson() const {
  if (!custom) {
    return {{u"preset"_s, preset}};
  }
  const plan::HardwareSpec& h = *custom;
  return {{u"preset"_s, preset},
          {u"custom"_s, QJsonObject{{u"name"_s, qs(h.name)},
                                    {u"description"_s, qs(h.description)},
                                    {u"memory_bytes"_s, double(h.memoryBytes)},
                                    {u"peak_flops"_s, QJsonObject{{u"fp32"_s, h.peak.fp32},
                                                                  {u"tf32"_s, h.peak.tf32},
                                                                  {u"fp16"_s, h.peak.fp16},
                                                                  {u"bf16"_s, h.peak.bf16},
                                                                  {u"fp8"_s, h.peak.fp8},
                                                                  {u"int8"_s, h.peak.int8}}},
                                    {u"memory_bandwidth"_s, h.memoryBandwidth},
                                    {u"gpus_per_node"_s, h.gpusPerNode},
                                    {u"intra_node"_s, linkToJson(h.intraNode)},
                                    {u"inter_node"_s, linkToJson(h.interNode)},
                                    {u"host_memory_bytes"_s, double(h.hostMemoryBytes)},
                                    {u"host_to_device_bandwidth"_s, h.hostToDeviceBandwidth},
                                    {u"framework_overhead_bytes"_s, double(h.frameworkOverheadBytes)}}}};
}

HardwareChoice HardwareChoice::fromJson(const QJsonObject& json) {
  HardwareChoice c;
  c.preset = json.value(u"preset"_s).toString(c.preset);
  if (json.contains(u"custom"_s)) {
    const QJsonObject j = json.value(u"custom"_s).toObject();
    plan::HardwareSpec h;
    h.name = text(j, u"name"_s, "custom");
    h.description = text(j, u"description"_s, "");
    h.memoryBytes = integer(j, u"memory_bytes"_s, 0);
    const QJsonObject peak = j.value(u"peak_flops"_s).toObject();
    h.peak = {peak.value(u"fp32"_s).toDouble(), peak.value(u"tf32"_s).toDouble(), peak.value(u"fp16"_s).toDouble(),
              peak.value(u"bf16"_s).toDouble(), peak.value(u"fp8"_s).toDouble(),  peak.value(u"int8"_s).toDouble()};
    h.memoryBandwidth = j.value(u"memory_bandwidth"_s).toDouble();
    h.gpusPerNode = j.value(u"gpus_per_node"_s).toInt(1);
    h.intraNode = linkFromJson(j.value(u"intra_node"_s).toObject());
    h.interNode = linkFromJson(j.value(u"inter_node"_s).toObject());
    h.hostMemoryBytes = integer(j, u"host_memory_bytes"_s, 0);
    h.hostToDeviceBandwidth = j.value(u"host_to_device_bandwidth"_s).toDouble();
    h.frameworkOverheadBytes = integer(j, u"framework_overhead_bytes"_s, 0);
    h.source = "custom";
    c.custom = h;
  }
  return c;
}

QJsonObject planToJson(const plan::Plan& p) {
  return {{u"strategy"_s, qs(plan::toString(p.strategy))},
          {u"fsdp_sharding_strategy"_s, qs(plan::toString(p.fsdpSharding))},
          {u"num_gpus"_s, p.numGpus},
          {u"gpus_per_node"_s, p.gpusPerNode},
          {u"offload_optimizer"_s, p.offloadOptimizer},
          {u"offload_params"_s, p.offloadParams},
          {u"tp"_s, p.tp},
          {u"pp"_s, p.pp},
          {u"sequence_parallel"_s, p.sequenceParallel},
          {u"micro_batch"_s, p.microBatch},
          {u"gradient_accumulation_steps"_s, p.gradAccum},
          {u"seq"_s, qint64(p.seqLen)},
          {u"precision"_s, qs(plan::toString(p.precision))},
          {u"master_weights"_s, qs(plan::toString(p.masterWeights))},
          {u"optimizer"_s, qs(plan::toString(p.optimizer))},
          {u"recompute"_s, qs(plan::toString(p.recompute))},
          {u"flash_attention"_s, p.flashAttention},
          {u"bytes_convention"_s, qs(plan::toString(p.bytes))},
          {u"grad_sync"_s, qs(plan::toString(p.gradSync))},
          {u"fsdp_auto_wrap_policy"_s, qs(plan::toString(p.fsdpWrap))},
          {u"fsdp_min_num_params"_s, qint64(p.fsdpMinNumParams)},
          {u"zero_bucket_size"_s, qint64(p.zeroBucketElements)}};
}

plan::Plan planFromJson(const QJsonObject& j) {
  plan::Plan p;
  auto str = [&j](const char16_t* key) { return j.value(QString::fromUtf16(key)).toString().toStdString(); };
  auto has = [&j](const char16_t* key) { return j.contains(QString::fromUtf16(key)); };
  if (has(u"strategy"))
    p.strategy = plan::parseStrategy(str(u"strategy"));
  if (has(u"fsdp_sharding_strategy"))
    p.fsdpSharding = plan::parseFsdpSharding(str(u"fsdp_sharding_strategy"));
  p.numGpus = j.value(u"num_gpus"_s).toInt(p.numGpus);
  p.gpusPerNode = j.value(u"gpus_per_node"_s).toInt(p.gpusPerNode);
  p.offloadOptimizer = j.value(u"offload_optimizer"_s).toBool(p.offloadOptimizer);
  p.offloadParams = j.value(u"offload_params"_s).toBool(p.offloadParams);
  p.tp = j.value(u"tp"_s).toInt(p.tp);
  p.pp = j.value(u"pp"_s).toInt(p.pp);
  p.sequenceParallel = j.value(u"sequence_parallel"_s).toBool(p.sequenceParallel);
  p.microBatch = j.value(u"micro_batch"_s).toInt(p.microBatch);
  p.gradAccum = j.value(u"gradient_accumulation_steps"_s).toInt(p.gradAccum);
  p.seqLen = integer(j, u"seq"_s, p.seqLen);
  if (has(u"precision"))
    p.precision = plan::parsePrecision(str(u"precision"));
  if (has(u"master_weights"))
    p.masterWeights = plan::parseMasterWeights(str(u"master_weights"));
  if (has(u"optimizer"))
    p.optimizer = plan::parseOptimizer(str(u"optimizer"));
  if (has(u"recompute"))
    p.recompute = plan::parseRecompute(str(u"recompute"));
  p.flashAttention = j.value(u"flash_attention"_s).toBool(p.flashAttention);
  if (has(u"bytes_convention"))
    p.bytes = plan::parseBytesConvention(str(u"bytes_convention"));
  if (has(u"grad_sync"))
    p.gradSync = plan::parseGradSync(str(u"grad_sync"));
  if (has(u"fsdp_auto_wrap_policy"))
    p.fsdpWrap = plan::parseFsdpWrap(str(u"fsdp_auto_wrap_policy"));
  p.fsdpMinNumParams = integer(j, u"fsdp_min_num_params"_s, p.fsdpMinNumParams);
  p.zeroBucketElements = integer(j, u"zero_bucket_size"_s, p.zeroBucketElements);
  return p;
}

QJsonObject PlanRequest::toJson() const {
  return {{u"model"_s, model.toJson()}, {u"hardware"_s, hardware.toJson()}, {u"plan"_s, planToJson(plan)}};
}

PlanRequest PlanRequest::fromJson(const QJsonObject& json) {
  PlanRequest r;
  r.model = ModelSource::fromJson(json.value(u"model"_s).toObject());
  r.hardware = HardwareChoice::fromJson(json.value(u"hardware"_s).toObject());
  r.plan = planFromJson(json.value(u"plan"_s).toObject());
  return r;
}

QString strategyName(const plan::Plan& p) {
  QString name;
  switch (p.strategy) {
  case plan::Strategy::Ddp: name = PlanText::tr("DDP"); break;
  case plan::Strategy::Zero1: name = PlanText::tr("ZeRO-1"); break;
  case plan::Strategy::Zero2: name = PlanText::tr("ZeRO-2"); break;
  case plan::Strategy::Zero3: name = PlanText::tr("ZeRO-3"); break;
  case plan::Strategy::Fsdp:
    switch (p.fsdpSharding) {
    case plan::FsdpSharding::FullShard: name = PlanText::tr("FSDP full shard"); break;
    case plan::FsdpSharding::ShardGradOp: name = PlanText::tr("FSDP shard grad op"); break;
    case plan::FsdpSharding::HybridShard: name = PlanText::tr("FSDP hybrid shard"); break;
    case plan::FsdpSharding::HybridShardZero2: name = PlanText::tr("FSDP hybrid shard ZeRO-2"); break;
    case plan::FsdpSharding::NoShard: name = PlanText::tr("FSDP no shard"); break;
    }
    break;
  }
  if (p.offloadParams || p.offloadOptimizer) {
    name = PlanText::tr("%1 + offload").arg(name);
  }
  return name;
}

}  // namespace fathom::views

namespace fathom::views {

QString shortStrategyName(const plan::Plan& p) {
  if (p.strategy != plan::Strategy::Fsdp) {
    return strategyName(p);
  }
  switch (p.fsdpSharding) {
  case plan::FsdpSharding::FullShard: return PlanText::tr("FSDP full");
  case plan::FsdpSharding::ShardGradOp: return PlanText::tr("FSDP grad-op");
  case plan::FsdpSharding::HybridShard: return PlanText::tr("FSDP hybrid");
  case plan::FsdpSharding::HybridShardZero2: return PlanText::tr("FSDP hybrid ZeRO-2");
  case plan::FsdpSharding::NoShard: return PlanText::tr("FSDP none");
  }
  return strategyName(p);
}

}  // namespace fathom::views
