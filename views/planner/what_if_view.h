// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "planner/plan_comparison.h"

#include <QTimer>
#include <QWidget>

#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QTabWidget;
class QTableView;

namespace fathom::views {

class CollectivesModel;
class DeviceMapView;
class CommChart;
class HardwareEditor;
class MemoryChart;
class ModelSourceEditor;
class PlanSearchModel;
class ScalingChart;
class StrategyComparisonModel;

/// The what-if planner: pick a model, hardware and GPU count; see every strategy side by side (memory per GPU by
/// category against the device, communication per step), memory and step time from 1 to 1,024 GPUs, and the best
/// plans of `plan search`; and, in a tab of its own with its own inputs, the device map of a model for inference
/// (DeviceMapView). The view only edits a PlanRequest and shows a PlanComparison: whoever owns it computes
/// (the Studio's PlannerController, off the GUI thread) and calls setComparison().
class WhatIfView : public QWidget {
  Q_OBJECT

public:
  explicit WhatIfView(QWidget* parent = nullptr);

  PlanRequest request() const;
  /// Shows `request` in the inputs and asks for it at once.
  void setRequest(const PlanRequest& request);
  /// Shows a result. Results for an older request than the inputs show are ignored.
  void setComparison(const PlanComparison& comparison);
  /// Shows why the request could not be computed (the model or hardware did not resolve).
  void setError(const QString& message);
  const std::optional<PlanComparison>& comparison() const { return m_comparison; }

  /// Renders the four charts as one 2 × 2 picture (whatever tab is shown): SVG when `path` ends in .svg, else PNG.
  /// False (and `error`) on failure.
  bool exportImage(const QString& path, QString* error) const;
  /// Writes comparisonCsv(). False (and `error`) on failure.
  bool exportCsv(const QString& path, QString* error) const;

  /// The "Device map" tab (inference of a big model: bigmodel/device_map_view.h), independent of the training inputs.
  DeviceMapView* deviceMapView() const { return m_deviceMap; }
  /// Brings the Device map tab forward (the training inputs are hidden while it is shown).
  void showDeviceMap();

signals:
  /// The inputs changed (debounced): compute this request.
  void requestChanged(const fathom::views::PlanRequest& request);
  /// The user asked to keep the current comparison in the workspace.
  void saveRequested(const fathom::views::PlanComparison& comparison);

private:
  QWidget* buildInputs();
  QWidget* buildResults();
  void scheduleRequest();
  void showCurrentStrategy();
  void exportImageInteractive();
  void exportCsvInteractive();

  QTimer m_debounce;
  QScrollArea* m_inputs = nullptr;
  QTabWidget* m_tabs = nullptr;
  DeviceMapView* m_deviceMap = nullptr;
  bool m_updating = false;
  std::optional<PlanComparison> m_comparison;
  ModelSourceEditor* m_model = nullptr;
  HardwareEditor* m_hardware = nullptr;
  QSpinBox* m_gpus = nullptr;
  QComboBox* m_precision = nullptr;
  QSpinBox* m_microBatch = nullptr;
  QSpinBox* m_accumulation = nullptr;
  QSpinBox* m_seq = nullptr;
  QComboBox* m_optimizer = nullptr;
  QComboBox* m_recompute = nullptr;
  QCheckBox* m_offload = nullptr;
  QCheckBox* m_flash = nullptr;
  QComboBox* m_current = nullptr;
  QLabel* m_status = nullptr;
  QPushButton* m_save = nullptr;
  QPushButton* m_export = nullptr;
  MemoryChart* m_memoryChart = nullptr;
  ScalingChart* m_memoryScaling = nullptr;
  CommChart* m_commChart = nullptr;
  ScalingChart* m_timeScaling = nullptr;
  StrategyComparisonModel* m_strategiesModel = nullptr;
  CollectivesModel* m_collectivesModel = nullptr;
  PlanSearchModel* m_searchModel = nullptr;
  QLabel* m_collectivesTitle = nullptr;
};

}  // namespace fathom::views
