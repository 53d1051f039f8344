// SPDX-License-Identifier: Apache-2.0
#include "wizard/wizard_paradigm_page.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::views {

QComboBox* WizardParadigmPage::combo(const QString& name, const QStringList& values, QWidget* parent) {
  auto* c = new QComboBox(parent);
  c->setObjectName(name);
  for (const QString& v : values) {
    c->addItem(v, v);
  }
  connect(c, &QComboBox::currentIndexChanged, this, [this] {
    updateEnabled();
    notify();
  });
  return c;
}

WizardParadigmPage::WizardParadigmPage(QWidget* parent) : WizardPage(parent) {
  setObjectName(u"paradigmPage"_s);
  setTitle(tr("Training paradigm"));
  setSubTitle(tr("How the model and its training state are spread over the processes."));

  m_single = new QRadioButton(tr("No distribution: one process"), this);
  m_single->setObjectName(u"paradigmSingle"_s);
  m_ddp = new QRadioButton(tr("DDP: every process holds the whole model; gradients are all-reduced"), this);
  m_ddp->setObjectName(u"paradigmDdp"_s);
  m_fsdp = new QRadioButton(tr("FSDP: parameters, gradients and optimizer states sharded"), this);
  m_fsdp->setObjectName(u"paradigmFsdp"_s);
  m_deepspeed =
      new QRadioButton(tr("DeepSpeed ZeRO: optimizer states, gradients or parameters sharded by stage"), this);
  m_deepspeed->setObjectName(u"paradigmDeepSpeed"_s);
  auto* group = new QButtonGroup(this);
  for (QRadioButton* b : {m_single, m_ddp, m_fsdp, m_deepspeed}) {
    group->addButton(b);
  }
  m_processes = new QSpinBox(this);
  m_processes->setObjectName(u"numProcesses"_s);
  m_processes->setRange(1, 65536);
  auto* processes = new QHBoxLayout();
  processes->addWidget(new QLabel(tr("Processes (GPUs) in total:"), this));
  processes->addWidget(m_processes);
  processes->addStretch(1);

  m_fsdpBox = new QGroupBox(tr("FSDP"), this);
  m_sharding = combo(u"fsdpShardingStrategy"_s,
                     {u"FULL_SHARD"_s, u"SHARD_GRAD_OP"_s, u"HYBRID_SHARD"_s, u"HYBRID_SHARD_ZERO2"_s, u"NO_SHARD"_s},
                     m_fsdpBox);
  m_wrap = combo(u"fsdpAutoWrapPolicy"_s, {u"TRANSFORMER_BASED_WRAP"_s, u"SIZE_BASED_WRAP"_s, u"NO_WRAP"_s}, m_fsdpBox);
  m_wrapClasses = new QLineEdit(m_fsdpBox);
  m_wrapClasses->setObjectName(u"fsdpWrapClasses"_s);
  m_wrapClasses->setPlaceholderText(tr("the model's repeated blocks"));
  m_minParams = new QSpinBox(m_fsdpBox);
  m_minParams->setObjectName(u"fsdpMinNumParams"_s);
  m_minParams->setRange(0, 2'000'000'000);
  m_minParams->setSingleStep(1'000'000);
  m_minParams->setGroupSeparatorShown(true);
  m_backwardPrefetch =
      combo(u"fsdpBackwardPrefetch"_s, {u"BACKWARD_PRE"_s, u"BACKWARD_POST"_s, u"NO_PREFETCH"_s}, m_fsdpBox);
  m_stateDict =
      combo(u"fsdpStateDictType"_s, {u"SHARDED_STATE_DICT"_s, u"FULL_STATE_DICT"_s, u"LOCAL_STATE_DICT"_s}, m_fsdpBox);
  m_version = new QComboBox(m_fsdpBox);
  m_version->setObjectName(u"fsdpVersion"_s);
  m_version->addItem(tr("not set"), 0);
  m_version->addItem(tr("FSDP 1"), 1);
  m_version->addItem(tr("FSDP 2"), 2);
  connect(m_version, &QComboBox::currentIndexChanged, this, [this] { notify(); });
  auto check = [this](const QString& text, const QString& name) {
    auto* c = new QCheckBox(text, m_fsdpBox);
    c->setObjectName(name);
    connect(c, &QCheckBox::toggled, this, [this] { notify(); });
    return c;
  };
  m_offloadParams = check(tr("Offload parameters, gradients and optimizer to the CPU"), u"fsdpOffloadParams"_s);
  m_forwardPrefetch = check(tr("Prefetch the next unit in forward"), u"fsdpForwardPrefetch"_s);
  m_activationCheckpointing = check(tr("Activation checkpointing"), u"fsdpActivationCheckpointing"_s);
  m_ramEfficient = check(tr("Load weights on rank 0 only"), u"fsdpCpuRamEfficientLoading"_s);
  m_syncStates = check(tr("Broadcast rank 0's parameters"), u"fsdpSyncModuleStates"_s);
  m_origParams = check(tr("Use the original parameters"), u"fsdpUseOrigParams"_s);
  auto* fsdpForm = new QFormLayout();
  fsdpForm->addRow(tr("Sharding strategy:"), m_sharding);
  fsdpForm->addRow(tr("Auto-wrap policy:"), m_wrap);
  fsdpForm->addRow(tr("Block classes to wrap:"), m_wrapClasses);
  fsdpForm->addRow(tr("Minimum parameters per unit:"), m_minParams);
  fsdpForm->addRow(tr("Backward prefetch:"), m_backwardPrefetch);
  fsdpForm->addRow(tr("Checkpoint layout:"), m_stateDict);
  fsdpForm->addRow(tr("Version:"), m_version);
  auto* fsdpChecks = new QGridLayout();
  fsdpChecks->addWidget(m_offloadParams, 0, 0, 1, 2);
  fsdpChecks->addWidget(m_forwardPrefetch, 1, 0);
  fsdpChecks->addWidget(m_activationCheckpointing, 1, 1);
  fsdpChecks->addWidget(m_ramEfficient, 2, 0);
  fsdpChecks->addWidget(m_syncStates, 2, 1);
  fsdpChecks->addWidget(m_origParams, 3, 0);
  auto* fsdpLayout = new QVBoxLayout(m_fsdpBox);
  fsdpLayout->addLayout(fsdpForm);
  fsdpLayout->addLayout(fsdpChecks);

  m_zeroBox = new QGroupBox(tr("DeepSpeed ZeRO"), this);
  m_stage = new QComboBox(m_zeroBox);
  m_stage->setObjectName(u"zeroStage"_s);
  m_stage->addItem(tr("Stage 1: optimizer states"), 1);
  m_stage->addItem(tr("Stage 2: + gradients"), 2);
  m_stage->addItem(tr("Stage 3: + parameters"), 3);
  connect(m_stage, &QComboBox::currentIndexChanged, this, [this] {
    updateEnabled();
    notify();
  });
  m_offloadOptimizer = combo(u"offloadOptimizerDevice"_s, {u"none"_s, u"cpu"_s, u"nvme"_s}, m_zeroBox);
  m_offloadParam = combo(u"offloadParamDevice"_s, {u"none"_s, u"cpu"_s, u"nvme"_s}, m_zeroBox);
  m_zero3Init = new QCheckBox(tr("Build the model sharded (zero3_init_flag)"), m_zeroBox);
  m_zero3Init->setObjectName(u"zero3InitFlag"_s);
  connect(m_zero3Init, &QCheckBox::toggled, this, [this] { notify(); });
  m_clipping = new QDoubleSpinBox(m_zeroBox);
  m_clipping->setObjectName(u"gradientClipping"_s);
  m_clipping->setRange(0, 1e6);
  m_clipping->setSpecialValueText(tr("off"));
  connect(m_clipping, &QDoubleSpinBox::valueChanged, this, [this] { notify(); });
  m_dsConfigFile = new QLineEdit(m_zeroBox);
  m_dsConfigFile->setObjectName(u"deepspeedConfigFile"_s);
  m_dsConfigFile->setPlaceholderText(tr("none: the settings above"));
  connect(m_dsConfigFile, &QLineEdit::textChanged, this, [this] {
    updateEnabled();
    notify();
  });
  auto* zeroForm = new QFormLayout(m_zeroBox);
  zeroForm->addRow(tr("DeepSpeed config file:"), m_dsConfigFile);
  zeroForm->addRow(tr("Stage:"), m_stage);
  zeroForm->addRow(tr("Offload optimizer states to:"), m_offloadOptimizer);
  zeroForm->addRow(tr("Offload parameters to:"), m_offloadParam);
  zeroForm->addRow(m_zero3Init);
  zeroForm->addRow(tr("Gradient clipping:"), m_clipping);

  auto* layout = new QVBoxLayout(this);
  for (QRadioButton* b : {m_single, m_ddp, m_fsdp, m_deepspeed}) {
    layout->addWidget(b);
    connect(b, &QRadioButton::toggled, this, [this](bool on) {
      if (on) {
        updateEnabled();
        notify();
      }
    });
  }
  layout->addLayout(processes);
  layout->addWidget(m_fsdpBox);
  layout->addWidget(m_zeroBox);
  layout->addStretch(1);
  connect(m_processes, &QSpinBox::valueChanged, this, [this] { notify(); });
  connect(m_wrapClasses, &QLineEdit::textChanged, this, [this] { notify(); });
  connect(m_minParams, &QSpinBox::valueChanged, this, [this] { notify(); });
}

void WizardParadigmPage::updateEnabled() {
  m_processes->setEnabled(!m_single->isChecked());
  m_fsdpBox->setVisible(m_fsdp->isChecked());
  m_zeroBox->setVisible(m_deepspeed->isChecked());
  const bool transformer = m_wrap->currentData().toString() == u"TRANSFORMER_BASED_WRAP"_s;
  m_wrapClasses->setEnabled(transformer);
  m_minParams->setEnabled(m_wrap->currentData().toString() == u"SIZE_BASED_WRAP"_s);
  const bool fromFile = !m_dsConfigFile->text().trimmed().isEmpty();
  const bool stage3 = m_stage->currentData().toInt() == 3;
  m_stage->setEnabled(!fromFile);
  m_offloadOptimizer->setEnabled(!fromFile);
  m_offloadParam->setEnabled(!fromFile && stage3);
  m_zero3Init->setEnabled(fromFile || stage3);
  m_clipping->setEnabled(!fromFile);
}

void WizardParadigmPage::load(const RunSpec& s) {
  m_loading = true;
  switch (s.paradigm) {
  case RunSpec::Paradigm::Single: m_single->setChecked(true); break;
  case RunSpec::Paradigm::Ddp: m_ddp->setChecked(true); break;
  case RunSpec::Paradigm::Fsdp: m_fsdp->setChecked(true); break;
  case RunSpec::Paradigm::DeepSpeed: m_deepspeed->setChecked(true); break;
  }
  m_processes->setValue(s.numProcesses);
  auto select = [](QComboBox* c, const QVariant& value) { c->setCurrentIndex(std::max(0, c->findData(value))); };
  select(m_sharding, s.fsdpShardingStrategy);
  select(m_wrap, s.fsdpAutoWrapPolicy);
  m_wrapClasses->setText(s.fsdpTransformerLayerClsToWrap);
  m_minParams->setValue(static_cast<int>(std::min<qint64>(s.fsdpMinNumParams, m_minParams->maximum())));
  select(m_backwardPrefetch, s.fsdpBackwardPrefetch);
  select(m_stateDict, s.fsdpStateDictType);
  select(m_version, s.fsdpVersion);
  m_offloadParams->setChecked(s.fsdpOffloadParams);
  m_forwardPrefetch->setChecked(s.fsdpForwardPrefetch);
  m_activationCheckpointing->setChecked(s.fsdpActivationCheckpointing);
  m_ramEfficient->setChecked(s.fsdpCpuRamEfficientLoading);
  m_syncStates->setChecked(s.fsdpSyncModuleStates);
  m_origParams->setChecked(s.fsdpUseOrigParams);
  m_dsConfigFile->setText(s.deepspeedConfigFile);
  select(m_stage, std::clamp(s.zeroStage, 1, 3));
  select(m_offloadOptimizer, s.offloadOptimizerDevice);
  select(m_offloadParam, s.offloadParamDevice);
  m_zero3Init->setChecked(s.zero3InitFlag);
  m_clipping->setValue(s.gradientClipping);
  updateEnabled();
  m_loading = false;
}

void WizardParadigmPage::store(RunSpec& s) const {
  s.paradigm = m_single->isChecked() ? RunSpec::Paradigm::Single
               : m_ddp->isChecked()  ? RunSpec::Paradigm::Ddp
               : m_fsdp->isChecked() ? RunSpec::Paradigm::Fsdp
                                     : RunSpec::Paradigm::DeepSpeed;
  s.numProcesses = m_processes->value();
  s.fsdpShardingStrategy = m_sharding->currentData().toString();
  s.fsdpAutoWrapPolicy = m_wrap->currentData().toString();
  s.fsdpTransformerLayerClsToWrap = m_wrapClasses->text().trimmed();
  s.fsdpMinNumParams = m_minParams->value();
  s.fsdpBackwardPrefetch = m_backwardPrefetch->currentData().toString();
  s.fsdpStateDictType = m_stateDict->currentData().toString();
  s.fsdpVersion = m_version->currentData().toInt();
  s.fsdpOffloadParams = m_offloadParams->isChecked();
  s.fsdpForwardPrefetch = m_forwardPrefetch->isChecked();
  s.fsdpActivationCheckpointing = m_activationCheckpointing->isChecked();
  s.fsdpCpuRamEfficientLoading = m_ramEfficient->isChecked();
  s.fsdpSyncModuleStates = m_syncStates->isChecked();
  s.fsdpUseOrigParams = m_origParams->isChecked();
  s.deepspeedConfigFile = m_dsConfigFile->text().trimmed();
  s.zeroStage = m_stage->currentData().toInt();
  s.offloadOptimizerDevice = m_offloadOptimizer->currentData().toString();
  s.offloadParamDevice = m_offloadParam->currentData().toString();
  s.zero3InitFlag = m_zero3Init->isChecked();
  s.gradientClipping = m_clipping->value();
}

}  // namespace fathom::views
