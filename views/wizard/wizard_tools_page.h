// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "wizard/wizard_page.h"

#include <fathom/config/vocabulary.h>

#include <utility>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLineEdit;
class QSpinBox;

namespace fathom::views {

/// Trackers, monitoring and profiler: where metrics go (the trackers Fathom runs, config::kTrackers: the workspace's
/// sqlite, TensorBoard, MLflow, ...), the project directory and workspace, the launcher's run monitor (hang timeout,
/// straggler threshold, action on a hang: config::MonitorSpec, whose defaults the fields show where the file is
/// silent), and the profiler's activities and schedule.
class WizardToolsPage : public WizardPage {
  Q_OBJECT

public:
  explicit WizardToolsPage(QWidget* parent = nullptr);

  void load(const WizardRun& run) override;
  void store(WizardRun& run) const override;

  /// A tracker's label (translated; its canonical name for one the page does not offer).
  static QString trackerLabel(config::Tracker tracker);

private:
  std::vector<std::pair<config::Tracker, QCheckBox*>> m_trackers;  ///< the trackers offered, in core's order
  QLineEdit* m_projectDir = nullptr;
  QLineEdit* m_workspace = nullptr;
  QDoubleSpinBox* m_hangTimeout = nullptr;         ///< seconds; 0 shows "Off"
  QDoubleSpinBox* m_stragglerThreshold = nullptr;  ///< percent; 0 shows "Off"
  QComboBox* m_hangAction = nullptr;               ///< config::kHangActions
  QGroupBox* m_profiler = nullptr;
  std::vector<std::pair<config::ProfilerActivity, QCheckBox*>> m_activities;
  QSpinBox* m_wait = nullptr;
  QSpinBox* m_warmup = nullptr;
  QSpinBox* m_active = nullptr;
  QSpinBox* m_repeat = nullptr;
  QCheckBox* m_shapes = nullptr;
  QCheckBox* m_memory = nullptr;
  QCheckBox* m_stack = nullptr;
  QLineEdit* m_traceDir = nullptr;
};

}  // namespace fathom::views
