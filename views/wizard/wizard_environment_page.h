// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "wizard/wizard_page.h"

#include <fathom/runtime/environment.h>

class QCheckBox;
class QFormLayout;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QRadioButton;
class QSpinBox;

namespace fathom::views {

/// Environment: this machine's devices (from the EnvironmentReport), or other hosts: named hosts reached over SSH
/// (or listed for a per-machine launch), or a SLURM job (nodes, partition, time limit, account); and the device the
/// planner predicts for (a hardware preset and its GPUs per node).
class WizardEnvironmentPage : public WizardPage {
  Q_OBJECT

public:
  explicit WizardEnvironmentPage(QWidget* parent = nullptr);

  void load(const WizardRun& run) override;
  void store(WizardRun& run) const override;
  /// Shows this machine's devices. Until the user chooses, it also picks the matching hardware preset and, on a
  /// machine without CUDA devices, training on the CPU (the report arrives after the page is shown).
  /// `applyDefaults` is false for a configuration read from a file (its settings stand).
  void setEnvironment(const runtime::EnvironmentReport& report, bool applyDefaults);

  /// The preset that describes a CUDA device by its name ("NVIDIA H100 80GB HBM3" → h100-sxm-80gb), or empty.
  static QString presetForDevice(const QString& deviceName, std::uint64_t memoryBytes);

private:
  void updateEnabled();

  QRadioButton* m_thisMachine = nullptr;
  QRadioButton* m_remote = nullptr;
  QLabel* m_devices = nullptr;
  QCheckBox* m_useCpu = nullptr;
  QWidget* m_remoteFields = nullptr;
  QPlainTextEdit* m_hosts = nullptr;
  QComboBox* m_launcher = nullptr;
  QLineEdit* m_sshUser = nullptr;
  QLineEdit* m_sshConfig = nullptr;
  QSpinBox* m_port = nullptr;
  QFormLayout* m_remoteForm = nullptr;
  QSpinBox* m_nodes = nullptr;  ///< SLURM: num_machines
  QLineEdit* m_partition = nullptr;
  QLineEdit* m_time = nullptr;
  QLineEdit* m_account = nullptr;
  QComboBox* m_hardware = nullptr;
  QSpinBox* m_gpusPerNode = nullptr;
  bool m_hardwareChosen = false;  ///< the user picked a device: the report no longer picks one
  bool m_cpuChosen = false;       ///< the user set "train on the CPU": the report no longer sets it
};

}  // namespace fathom::views
