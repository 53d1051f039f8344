// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "wizard/wizard_page.h"

#include <QMap>

class QCheckBox;
class QGroupBox;
class QLineEdit;
class QSpinBox;

namespace fathom::views {

/// Profiler and trackers: where metrics go (the workspace's sqlite tracker, TensorBoard, MLflow, ...), the project
/// directory and workspace, and the profiler's activities and schedule.
class WizardToolsPage : public WizardPage {
  Q_OBJECT

public:
  explicit WizardToolsPage(QWidget* parent = nullptr);

  void load(const RunSpec& spec) override;
  void store(RunSpec& spec) const override;

  /// Trackers offered, in order (the config's spellings).
  static QStringList trackerNames();

private:
  QMap<QString, QCheckBox*> m_trackers;
  QLineEdit* m_projectDir = nullptr;
  QLineEdit* m_workspace = nullptr;
  QGroupBox* m_profiler = nullptr;
  QCheckBox* m_cpu = nullptr;
  QCheckBox* m_cuda = nullptr;
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
