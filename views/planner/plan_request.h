// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "common/builtin_model.h"

#include <fathom/plan/hardware.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/training_plan.h>

#include <QJsonObject>
#include <QString>

#include <optional>

namespace fathom::views {

/// Where a plan's model comes from: the four sources `fathom plan` accepts.
struct ModelSource {
  enum class Kind { Builtin, Dimensions, HfConfig, Parameters };
  Kind kind = Kind::Builtin;
  models::ModelRequest builtin{.name = "gpt-tiny"};  ///< Kind::Builtin (core's description of built-in models)
  plan::TransformerDims dims;                        ///< Kind::Dimensions
  QString dimsName;                                  ///< Kind::Dimensions: a label ("Llama 2 7B"); empty = "custom"
  QString hfConfigPath;                              ///< Kind::HfConfig: a config.json, or the folder holding one
  double parameters = 0;                             ///< Kind::Parameters

  /// Resolves the model (plan::ModelSpec). Built-in models are introspected (slow: see introspect()), so call it
  /// off the GUI thread. Throws fathom::ConfigError naming the bad value or file.
  plan::ModelSpec resolve() const;
  /// A key that is equal exactly when two sources resolve to the same model (for caches).
  QString cacheKey() const;
  /// What lists show: the built-in model's name, the dimensions' label (else their family), the config path, or
  /// the parameter count ("7E+09" in the locale's digits).
  QString displayName() const;

  /// {"kind": "builtin", "builtin": models::toJson(ModelRequest)}, {"kind": "dims", "name", "dims":
  /// plan::toJson(TransformerDims)}, {"kind": "hf_config", "path"} or {"kind": "params", "params"}.
  QJsonObject toJson() const;
  /// Throws fathom::ConfigError for an unknown kind or a bad value.
  static ModelSource fromJson(const QJsonObject& json);
};

/// The hardware of a plan: a shipped preset by name, or a custom device (usually a preset edited by the user).
struct HardwareChoice {
  QString preset = QStringLiteral("h100-sxm-80gb");  ///< used when `custom` is empty
  std::optional<plan::HardwareSpec> custom;          ///< validated with plan::validateHardware on resolve

  /// Loads the preset or validates the custom spec. Throws fathom::ConfigError.
  plan::HardwareSpec resolve() const;

  /// {"preset": name} and, for a custom device, "custom": plan::toJson(HardwareSpec) (the hardware file's keys).
  QJsonObject toJson() const;
  /// Throws fathom::ConfigError for a custom device that is not valid.
  static HardwareChoice fromJson(const QJsonObject& json);
};

/// Everything the planner needs for one evaluation or comparison: model, hardware and the training plan. The
/// wizard's planner panel and the what-if view both send one to the PlannerController.
struct PlanRequest {
  ModelSource model;
  HardwareChoice hardware;
  plan::Plan plan;

  /// {"model": ..., "hardware": ..., "plan": plan::toJson(Plan) (every field, as `fathom plan --json` spells them)}.
  QJsonObject toJson() const;
  /// Throws fathom::ConfigError for a bad value (the messages of the plan parsers).
  static PlanRequest fromJson(const QJsonObject& json);
};

/// "DDP", "FSDP full shard", "FSDP shard grad op", "FSDP hybrid shard", "FSDP no shard", "ZeRO-1", "ZeRO-2",
/// "ZeRO-3", with "+ offload" where the plan offloads (translated).
QString strategyName(const plan::Plan& plan);
/// The same in as few words as a chart axis needs: "DDP", "FSDP full", "FSDP grad-op", "FSDP hybrid", "FSDP none",
/// "ZeRO-1", ... (translated).
QString shortStrategyName(const plan::Plan& plan);

}  // namespace fathom::views
