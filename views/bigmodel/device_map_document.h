// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "bigmodel/model_tree_source.h"

#include <fathom/bigmodel/device_map_strategy.h>
#include <fathom/bigmodel/module_sizes.h>

#include <QObject>
#include <QString>

#include <optional>
#include <string>
#include <vector>

namespace fathom::views {

/// What the device-map view shows and edits: a model's module tree, the planning inputs (devices and their limits,
/// strategy, dtype, no-split classes), the map core plans from them (bigmodel::planDeviceMap), the user's manual moves
/// on top (bigmodel::moveToDevice, in the order made), and what each device then holds (bigmodel::deviceLoads).
/// Everything is computed by core/bigmodel; this object only keeps the inputs and re-plans when one changes.
///
/// Planning runs on the calling (GUI) thread: a plan of the largest tree the view is meant for (a 70B model's ~1,000
/// modules) takes milliseconds, as do moves; building a built-in model's tree is done by whoever opens it.
///
/// Invariants: without a model, or when planning fails (planError()), there is no map and no loads. A move is kept
/// while it applies: a later change of the inputs re-plans and re-applies every move in order, and drops (with a note,
/// droppedMoves()) one whose device is gone or that core now refuses.
class DeviceMapDocument : public QObject {
  Q_OBJECT

public:
  explicit DeviceMapDocument(QObject* parent = nullptr);

  /// Replaces the model (a failed one clears it), takes its no-split classes, forgets the moves and re-plans.
  void setModel(const LoadedModelTree& model);
  const LoadedModelTree& model() const { return m_model; }
  bool hasModel() const { return m_model.ok(); }

  void setStrategy(bigmodel::DeviceMapStrategy strategy);
  bigmodel::DeviceMapStrategy strategy() const { return m_strategy; }
  /// The devices and their limits, as Accelerate's max_memory (disk is always added, without limit).
  void setMaxMemory(const bigmodel::MaxMemory& maxMemory);
  const bigmodel::MaxMemory& maxMemory() const { return m_options.maxMemory; }
  /// The dtype the weights are loaded in; std::nullopt: as stored.
  void setDtype(std::optional<bigmodel::Dtype> dtype);
  std::optional<bigmodel::Dtype> dtype() const { return m_options.dtype; }
  void setNoSplitClasses(const std::vector<std::string>& classes);
  const std::vector<std::string>& noSplitClasses() const { return m_options.noSplitModuleClasses; }

  /// Moves `name` (a module or tensor; "" for the model) to `device` on top of the planned map. False, with the
  /// reason in moveError() (core's ConfigError text: a tied tensor separated, a device not in the limits), when
  /// refused; the map is then unchanged.
  bool moveModule(const std::string& name, const bigmodel::DeviceKey& device);
  /// Forgets every move: the planned map again.
  void clearMoves();
  /// The moves in force, in the order made (a later move of a module replaces the earlier ones of it and below it).
  const bigmodel::DeviceMap& moves() const { return m_moves; }
  bool isMoved(const std::string& name) const;
  const QString& moveError() const { return m_moveError; }
  /// Moves dropped by the last re-plan, each with core's reason.
  const QStringList& droppedMoves() const { return m_dropped; }

  /// True when a map is shown: a model is open and planning succeeded.
  bool hasPlan() const { return m_planned.has_value(); }
  /// Why there is no map (core's message), empty otherwise.
  const QString& planError() const { return m_planError; }
  /// The strategy's result: its map before the moves, the limits planned with, the loads of that map.
  const std::optional<bigmodel::StrategyResult>& planned() const { return m_planned; }
  /// For optimal: its largest GPU load and offloaded bytes against balanced's (std::nullopt otherwise, or when
  /// balanced fails).
  const std::optional<bigmodel::StrategyGain>& gain() const { return m_gain; }
  /// The map shown: the planned one with the moves applied.
  const bigmodel::DeviceMap& deviceMap() const { return m_map; }
  /// What each device holds under deviceMap() (deviceLoads with the dtype and no-split classes).
  const bigmodel::DeviceLoads& loads() const { return m_loads; }
  /// The load of `device` (zero when it holds nothing).
  bigmodel::DeviceLoad loadOf(const bigmodel::DeviceKey& device) const;
  /// compute_module_sizes of the tree with the dtype (empty without a model).
  const bigmodel::ModuleSizes& sizes() const { return m_sizes; }
  /// The devices a module can go to: those of maxMemory() in Accelerate's order, then disk.
  std::vector<bigmodel::DeviceKey> devices() const;
  /// The limit of `device`; std::nullopt for disk and devices not listed.
  std::optional<bigmodel::ByteCount> limitOf(const bigmodel::DeviceKey& device) const;
  /// The devices `name` is on under deviceMap() (one, several for a module split across devices, none).
  std::vector<bigmodel::DeviceKey> devicesOf(const std::string& name) const;

  /// Writes deviceMap() as Hugging Face's device-map JSON (bigmodel::toHfJson, the form from_pretrained(device_map=)
  /// and accelerate.dispatch_model read), atomically: the old file or the whole new one. False, with `error`, on
  /// failure or without a map.
  bool exportJson(const QString& path, QString* error) const;

signals:
  /// A new model (or none): the tree changed; item models reset.
  void modelChanged();
  /// The map, loads, sizes or error changed (after any input change or move).
  void planChanged();
  /// A move was refused; `message` is moveError().
  void moveRefused(const QString& message);

private:
  void replan();
  std::vector<bigmodel::DeviceKey> usableDevices() const;

  LoadedModelTree m_model;
  bigmodel::DeviceMapStrategy m_strategy = bigmodel::DeviceMapStrategy::Balanced;
  bigmodel::InferOptions m_options;
  bigmodel::DeviceMap m_moves;
  QString m_moveError;
  QStringList m_dropped;
  QString m_planError;
  std::optional<bigmodel::StrategyResult> m_planned;
  std::optional<bigmodel::StrategyGain> m_gain;
  bigmodel::DeviceMap m_map;
  bigmodel::DeviceLoads m_loads;
  bigmodel::ModuleSizes m_sizes;
};

}  // namespace fathom::views
