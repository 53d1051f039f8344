// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "wizard/wizard_page.h"

#include <fathom/config/vocabulary.h>

#include <functional>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLineEdit;
class QRadioButton;
class QSpinBox;

namespace fathom::views {

/// Training paradigm: no distribution, DDP, FSDP (sharding strategy, wrapping, prefetch, offload, checkpoint
/// layout, ...) or DeepSpeed ZeRO (stage, offload devices), and the number of processes.
class WizardParadigmPage : public WizardPage {
  Q_OBJECT

public:
  explicit WizardParadigmPage(QWidget* parent = nullptr);

  void load(const WizardRun& run) override;
  void store(WizardRun& run) const override;

private:
  void updateEnabled();
  /// A combo box of the values of `table` Fathom runs (vocabulary_combo.h), labelled by `label` where it gives one.
  template <typename E, std::size_t N>
  QComboBox* combo(const QString& name, const NameTable<E, N>& table, QWidget* parent,
                   const std::function<QString(E)>& label = {});

  QRadioButton* m_single = nullptr;
  QRadioButton* m_ddp = nullptr;
  QRadioButton* m_fsdp = nullptr;
  QRadioButton* m_deepspeed = nullptr;
  QSpinBox* m_processes = nullptr;
  QGroupBox* m_fsdpBox = nullptr;
  QComboBox* m_sharding = nullptr;
  QComboBox* m_wrap = nullptr;
  QLineEdit* m_wrapClasses = nullptr;
  QSpinBox* m_minParams = nullptr;
  QComboBox* m_backwardPrefetch = nullptr;
  QComboBox* m_stateDict = nullptr;
  QComboBox* m_version = nullptr;
  QCheckBox* m_offloadParams = nullptr;
  QCheckBox* m_forwardPrefetch = nullptr;
  QCheckBox* m_activationCheckpointing = nullptr;
  QCheckBox* m_ramEfficient = nullptr;
  QCheckBox* m_syncStates = nullptr;
  QCheckBox* m_origParams = nullptr;
  QGroupBox* m_zeroBox = nullptr;
  QComboBox* m_stage = nullptr;
  QComboBox* m_offloadOptimizer = nullptr;
  QComboBox* m_offloadParam = nullptr;
  QCheckBox* m_zero3Init = nullptr;
  QDoubleSpinBox* m_clipping = nullptr;
  QLineEdit* m_dsConfigFile = nullptr;
};

}  // namespace fathom::views
