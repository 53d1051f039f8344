// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "planner/plan_request.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace fathom::views {

/// Edits a HardwareChoice: one of the shipped presets (resources/hardware), or a custom device that starts from the
/// selected preset (memory, dense peak, GPUs per node, link bandwidths). Emits changed() on every edit.
class HardwareEditor : public QWidget {
  Q_OBJECT

public:
  explicit HardwareEditor(QWidget* parent = nullptr);

  HardwareChoice choice() const;
  void setChoice(const HardwareChoice& choice);

signals:
  void changed();

private:
  void loadPresetIntoFields();
  /// Shows `hardware` in the custom-device fields.
  void showSpec(const plan::HardwareSpec& hardware);

  bool m_updating = false;
  QComboBox* m_preset = nullptr;
  QCheckBox* m_custom = nullptr;
  QWidget* m_fields = nullptr;
  QDoubleSpinBox* m_memoryGiB = nullptr;
  QDoubleSpinBox* m_peakTflops = nullptr;
  QDoubleSpinBox* m_fp32Tflops = nullptr;
  QSpinBox* m_gpusPerNode = nullptr;
  QDoubleSpinBox* m_intraGBps = nullptr;
  QDoubleSpinBox* m_interGBps = nullptr;
};

}  // namespace fathom::views
