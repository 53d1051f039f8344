// SPDX-License-Identifier: Apache-2.0
#include "planner/plan_comparison.h"

#include <fathom/common/error.h>
#include <fathom/plan/predict.h>
#include <fathom/plan/report.h>

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QStringList>

#include <nlohmann/json.hpp>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

QString csvField(const QString& text) {
  if (text.contains(u',') || text.contains(u'"') || text.contains(u'\n')) {
    return u"\""_s + QString(text).replace(u"\""_s, u"\"\""_s) + u"\""_s;
  }
  return text;
}

QString number(std::optional<double> v) {
  return v ? QString::number(*v, 'g', 17) : QString();  // round-trips every double
}

bool supportsOffload(const plan::Plan& p) {
  return p.strategy == plan::Strategy::Fsdp || p.strategy == plan::Strategy::Zero1 ||
         p.strategy == plan::Strategy::Zero2 || p.strategy == plan::Strategy::Zero3;
}

}  // namespace

const PlanEvaluation* PlanComparison::current() const {
  for (const PlanEvaluation& e : strategies) {
    if (e.plan.strategy == request.plan.strategy &&
        (e.plan.strategy != plan::Strategy::Fsdp || e.plan.fsdpSharding == request.plan.fsdpSharding)) {
      return &e;
    }
  }
  return nullptr;
}

std::vector<plan::Plan> comparedPlans(const plan::Plan& base) {
  struct Variant {
    plan::Strategy strategy;
    plan::FsdpSharding sharding;
  };
  static constexpr Variant kVariants[] = {
      {plan::Strategy::Ddp, plan::FsdpSharding::FullShard},    {plan::Strategy::Fsdp, plan::FsdpSharding::FullShard},
      {plan::Strategy::Fsdp, plan::FsdpSharding::ShardGradOp}, {plan::Strategy::Fsdp, plan::FsdpSharding::HybridShard},
      {plan::Strategy::Fsdp, plan::FsdpSharding::NoShard},     {plan::Strategy::Zero1, plan::FsdpSharding::FullShard},
      {plan::Strategy::Zero2, plan::FsdpSharding::FullShard},  {plan::Strategy::Zero3, plan::FsdpSharding::FullShard},
  };
  std::vector<plan::Plan> out;
  for (const Variant& v : kVariants) {
    plan::Plan p = base;
    p.strategy = v.strategy;
    p.fsdpSharding = v.sharding;
    if (!supportsOffload(p)) {
      p.offloadOptimizer = p.offloadParams = false;
    }
    if (p.strategy != plan::Strategy::Fsdp && p.strategy != plan::Strategy::Zero3) {
      p.offloadParams = false;
    }
    out.push_back(p);
  }
  return out;
}

std::vector<int> scalingGpuCounts() {
  std::vector<int> out;
  for (int n = 1; n <= 1024; n *= 2) {
    out.push_back(n);
  }
  return out;
}

PlanEvaluation evaluate(const plan::ModelSpec& model, const plan::HardwareSpec& hardware, const plan::Plan& p) {
  PlanEvaluation e;
  e.plan = p;
  try {
    e.prediction = plan::predict(model, hardware, p, {.explain = true});
  } catch (const ConfigError& error) {
    e.error = QString::fromUtf8(error.what());
  }
  return e;
}

PlanComparison compare(const PlanRequest& request, const plan::ModelSpec& model, const plan::HardwareSpec& hardware) {
  QElapsedTimer timer;
  timer.start();
  PlanComparison c;
  c.request = request;
  c.model = model;
  c.hardware = hardware;
  c.gpuCounts = scalingGpuCounts();
  for (const plan::Plan& p : comparedPlans(request.plan)) {
    c.strategies.push_back(evaluate(model, hardware, p));
    ScalingSeries series;
    series.plan = p;
    for (int gpus : c.gpuCounts) {
      plan::Plan scaled = p;
      scaled.numGpus = gpus;
      try {
        const plan::Prediction r = plan::predict(model, hardware, scaled);
        series.memoryBytes.push_back(r.memory.total);
        series.stepSeconds.push_back(r.time.stepS);
        series.commBytes.push_back(r.communication.bytesPerRankPerStep);
      } catch (const ConfigError&) {
        series.memoryBytes.emplace_back();
        series.stepSeconds.emplace_back();
        series.commBytes.emplace_back();
      }
    }
    c.scaling.push_back(std::move(series));
  }
  try {
    plan::SearchOptions options;
    options.limit = kSearchLimit;
    c.search = plan::search(model, hardware, request.plan, options);
  } catch (const ConfigError& error) {
    c.searchError = QString::fromUtf8(error.what());
  }
  c.elapsedMs = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  return c;
}

QString explanation(const PlanEvaluation& e, std::string_view key) {
  if (!e.prediction) {
    return e.error;
  }
  return QString::fromStdString(plan::formatExplanations(*e.prediction, key)).trimmed();
}

QString communicationExplanation(const PlanEvaluation& e) {
  if (!e.prediction) {
    return e.error;
  }
  QStringList lines;
  for (const plan::Collective& c : e.prediction->communication.collectives) {
    lines << QString::fromStdString(plan::formatCollective(c));
  }
  if (lines.isEmpty()) {
    lines << u"none (a single rank)"_s;
  }
  lines << u"bytes sent per rank per step: "_s +
               QString::fromStdString(plan::formatBytes(e.prediction->communication.bytesPerRankPerStep));
  const QString exposed = explanation(e, "time.exposed_comm_s");
  if (!exposed.isEmpty()) {
    lines << QString() << exposed;
  }
  return lines.join(u'\n');
}

QString comparisonCsv(const PlanComparison& c) {
  QStringList lines;
  lines << u"# model,%1,parameters,%2"_s.arg(csvField(QString::fromStdString(c.model.name))).arg(c.model.totalParams);
  lines << u"# hardware,%1,memory_bytes,%2"_s.arg(csvField(QString::fromStdString(c.hardware.name)))
               .arg(c.hardware.memoryBytes);
  lines << u"# num_gpus,%1,micro_batch,%2,gradient_accumulation_steps,%3,precision,%4"_s.arg(c.request.plan.numGpus)
               .arg(c.request.plan.microBatch)
               .arg(c.request.plan.gradAccum)
               .arg(QString::fromUtf8(plan::toString(c.request.plan.precision).data()));
  lines << QString();
  QStringList header{u"strategy"_s};
  for (const auto& field : plan::kMemoryBreakdownFields) {
    header << QString::fromUtf8(toString(field.category).data());
  }
  header << u"total_bytes,fits,comm_bytes_per_rank_per_step,comm_time_s,step_s,tokens_per_s,mfu,error"_s;
  lines << header.join(u',');
  for (const PlanEvaluation& e : c.strategies) {
    const QString label = QString::fromStdString(plan::strategyLabel(e.plan));
    if (!e.prediction) {
      // Empty fields for the categories, the total and the seven numbers after them.
      lines << label + QString(u',').repeated(static_cast<qsizetype>(plan::kMemoryBreakdownFields.size()) + 8) +
                   csvField(e.error);
      continue;
    }
    const plan::Prediction& r = *e.prediction;
    const plan::MemoryBreakdown& m = r.memory;
    QStringList f{label};
    for (const auto& field : plan::kMemoryBreakdownFields) {
      f << number(m.*field.member);
    }
    f << number(m.total);
    f << (r.fits ? u"yes"_s : u"no"_s) << number(r.communication.bytesPerRankPerStep) << number(r.communication.timeS)
      << number(r.time.stepS) << number(r.time.tokensPerS) << number(r.time.mfu) << QString();
    lines << f.join(u',');
  }
  lines << QString();
  QStringList scalingHeader{u"num_gpus"_s};
  for (const ScalingSeries& s : c.scaling) {
    const QString label = QString::fromStdString(plan::strategyLabel(s.plan));
    scalingHeader << label + u" total_bytes"_s << label + u" step_s"_s;
  }
  lines << scalingHeader.join(u',');
  for (std::size_t i = 0; i < c.gpuCounts.size(); ++i) {
    QStringList f{QString::number(c.gpuCounts[i])};
    for (const ScalingSeries& s : c.scaling) {
      f << number(s.memoryBytes[i]) << number(s.stepSeconds[i]);
    }
    lines << f.join(u',');
  }
  return lines.join(u'\n') + u'\n';
}

std::string comparisonPredictionJson(const PlanComparison& c) {
  nlohmann::json strategies = nlohmann::json::array();
  for (const PlanEvaluation& e : c.strategies) {
    if (e.prediction) {
      strategies.push_back(
          nlohmann::json::parse(plan::formatPredictionJson(c.model, c.hardware, e.plan, *e.prediction)));
    } else {
      strategies.push_back({{"plan", plan::strategyLabel(e.plan)}, {"error", e.error.toStdString()}});
    }
  }
  return nlohmann::json{{"strategies", strategies},
                        {"search", nlohmann::json::parse(plan::formatSearchJson(c.model, c.hardware, c.search))}}
      .dump(2);
}

std::string comparisonInputJson(const PlanRequest& request) {
  const QJsonObject object{{u"kind"_s, u"comparison"_s}, {u"request"_s, request.toJson()}};
  return QJsonDocument(object).toJson(QJsonDocument::Indented).toStdString();
}

}  // namespace fathom::views
