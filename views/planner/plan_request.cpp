// SPDX-License-Identifier: Apache-2.0
#include "planner/plan_request.h"

#include "common/json_bridge.h"

#include <fathom/common/error.h>
#include <fathom/plan/hf_config.h>
#include <fathom/plan/plan_json.h>

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLocale>

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

QString ModelSource::displayName() const {
  switch (kind) {
  case Kind::Builtin: return QString::fromStdString(builtin.name);
  case Kind::Dimensions: return dimsName.isEmpty() ? qs(plan::archName(dims.arch)) : dimsName;
  case Kind::HfConfig: return hfConfigPath;
  case Kind::Parameters: return QLocale().toString(parameters, 'g', 3);
  }
  return {};
}

QJsonObject ModelSource::toJson() const {
  switch (kind) {
  case Kind::Builtin: return {{u"kind"_s, u"builtin"_s}, {u"builtin"_s, toQJson(models::toJson(builtin))}};
  case Kind::Dimensions:
    return {{u"kind"_s, u"dims"_s}, {u"name"_s, dimsName}, {u"dims"_s, toQJson(plan::toJson(dims))}};
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
    const QJsonObject builtin = json.value(u"builtin"_s).toObject();
    s.builtin = models::modelRequestFromJson(fromQJson(builtin), "model.builtin");
    if (!builtin.contains(u"name"_s)) {
      s.builtin.name = ModelSource().builtin.name;  // the Studio's default, not the CLI's
    }
  } else if (kind == u"dims"_s) {
    s.kind = Kind::Dimensions;
    s.dimsName = json.value(u"name"_s).toString();
    s.dims = plan::dimsFromJson(fromQJson(json.value(u"dims"_s).toObject()), "model.dims");
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
  return {{u"preset"_s, preset}, {u"custom"_s, toQJson(plan::toJson(*custom))}};
}

HardwareChoice HardwareChoice::fromJson(const QJsonObject& json) {
  HardwareChoice c;
  c.preset = json.value(u"preset"_s).toString(c.preset);
  if (json.contains(u"custom"_s)) {
    c.custom = plan::hardwareFromJson(fromQJson(json.value(u"custom"_s).toObject()), "custom");
  }
  return c;
}

QJsonObject PlanRequest::toJson() const {
  return {{u"model"_s, model.toJson()}, {u"hardware"_s, hardware.toJson()}, {u"plan"_s, toQJson(plan::toJson(plan))}};
}

PlanRequest PlanRequest::fromJson(const QJsonObject& json) {
  PlanRequest r;
  r.model = ModelSource::fromJson(json.value(u"model"_s).toObject());
  r.hardware = HardwareChoice::fromJson(json.value(u"hardware"_s).toObject());
  r.plan = plan::planFromJson(fromQJson(json.value(u"plan"_s).toObject()));
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
  case plan::FsdpSharding::HybridShardZero2: return PlanText::tr("FSDP hybrid-2");
  case plan::FsdpSharding::NoShard: return PlanText::tr("FSDP none");
  }
  return strategyName(p);
}

}  // namespace fathom::views
