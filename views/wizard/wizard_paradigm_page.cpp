// SPDX-License-Identifier: Apache-2.0
#include "wizard/wizard_paradigm_page.h"

#include "wizard/vocabulary_combo.h"

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

template <typename E, std::size_t N>
QComboBox* WizardParadigmPage::combo(const QString& name, const NameTable<E, N>& table, QWidget* parent,
                                     const std::function<QString(E)>& label) {
  auto* c = new QComboBox(parent);
  c->setObjectName(name);
  fillCombo(c, table, label);
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
  m_sharding = combo(u"fsdpShardingStrategy"_s, config::kFsdpShardingStrategies, m_fsdpBox);
  m_wrap = combo(u"fsdpAutoWrapPolicy"_s, config::kFsdpWrapPolicies, m_fsdpBox);
  m_wrapClasses = new QLineEdit(m_fsdpBox);
  m_wrapClasses->setObjectName(u"fsdpWrapClasses"_s);
  m_wrapClasses->setPlaceholderText(tr("the model's repeated blocks"));
  m_minParams = new QSpinBox(m_fsdpBox);
  m_minParams->setObjectName(u"fsdpMinNumParams"_s);
  m_minParams->setRange(0, 2'000'000'000);
  m_minParams->setSingleStep(1'000'000);
  m_minParams->setGroupSeparatorShown(true);
  m_backwardPrefetch = combo(u"fsdpBackwardPrefetch"_s, config::kFsdpBackwardPrefetches, m_fsdpBox);
  m_stateDict = combo(u"fsdpStateDictType"_s, config::kFsdpStateDictTypes, m_fsdpBox);
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
  m_stage = combo<config::ZeroStage>(u"zeroStage"_s, config::kZeroStages, m_zeroBox, [](config::ZeroStage stage) {
    switch (stage) {
    case config::ZeroStage::Disabled: return QString();
    case config::ZeroStage::OptimizerStates: return tr("Stage 1: optimizer states");
    case config::ZeroStage::Gradients: return tr("Stage 2: + gradients");
    case config::ZeroStage::Parameters: return tr("Stage 3: + parameters");
    }
    return QString();
  });
  m_offloadOptimizer = combo(u"offloadOptimizerDevice"_s, config::kOffloadDevices, m_zeroBox);
  m_offloadParam = combo(u"offloadParamDevice"_s, config::kOffloadDevices, m_zeroBox);
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
  const auto wrap = comboValue<config::FsdpWrapPolicy>(m_wrap, std::nullopt);
  m_wrapClasses->setEnabled(wrap == config::FsdpWrapPolicy::TransformerBased);
  m_minParams->setEnabled(wrap == config::FsdpWrapPolicy::SizeBased);
  const bool fromFile = !m_dsConfigFile->text().trimmed().isEmpty();
  const bool stage3 = comboValue<config::ZeroStage>(m_stage, std::nullopt) == config::ZeroStage::Parameters;
  m_stage->setEnabled(!fromFile);
  m_offloadOptimizer->setEnabled(!fromFile);
  m_offloadParam->setEnabled(!fromFile && stage3);
  m_zero3Init->setEnabled(fromFile || stage3);
  m_clipping->setEnabled(!fromFile);
}

void WizardParadigmPage::load(const WizardRun& run) {
  m_loading = true;
  switch (run.paradigm()) {
  case WizardRun::Paradigm::Single: m_single->setChecked(true); break;
  case WizardRun::Paradigm::Ddp: m_ddp->setChecked(true); break;
  case WizardRun::Paradigm::Fsdp: m_fsdp->setChecked(true); break;
  case WizardRun::Paradigm::DeepSpeed: m_deepspeed->setChecked(true); break;
  }
  const config::RunSpec& s = run.spec;
  m_processes->setValue(std::max(1, s.numProcesses.value_or(1)));
  // FSDP: the wizard's defaults where the file is silent (FSDP2's reshard_after_forward shows as its strategy).
  const config::FsdpSpec& f = s.fsdp;
  selectValue(m_sharding, std::optional(f.effectiveShardingStrategy()));
  selectValue(m_wrap, std::optional(f.autoWrapPolicy.value_or(config::FsdpWrapPolicy::TransformerBased)));
  m_wrapClasses->setText(QString::fromStdString(f.transformerLayerClsToWrap.value_or("")));
  m_minParams->setValue(
      static_cast<int>(std::min<qint64>(f.minNumParams.value_or(100'000'000), m_minParams->maximum())));
  selectValue(m_backwardPrefetch,
              std::optional(f.backwardPrefetch.value_or(config::FsdpBackwardPrefetch::BackwardPre)));
  selectValue(m_stateDict, std::optional(f.stateDictType.value_or(config::FsdpStateDictType::ShardedStateDict)));
  m_version->setCurrentIndex(std::max(0, m_version->findData(f.version.value_or(0))));
  m_offloadParams->setChecked(f.offloadParams.value_or(false));
  m_forwardPrefetch->setChecked(f.forwardPrefetch.value_or(false));
  m_activationCheckpointing->setChecked(f.activationCheckpointing.value_or(false));
  m_ramEfficient->setChecked(f.cpuRamEfficientLoading.value_or(true));
  m_syncStates->setChecked(f.syncModuleStates.value_or(true));
  m_origParams->setChecked(f.useOrigParams.value_or(true));
  // DeepSpeed ZeRO: stage 2 and no offload where the file is silent (the launcher's defaults).
  const config::DeepSpeedSpec& d = s.deepspeed;
  m_dsConfigFile->setText(QString::fromStdString(d.configFile.value_or("")));
  selectValue(m_stage, std::optional(d.zeroStage.value_or(config::ZeroStage::Gradients)));
  selectValue(m_offloadOptimizer, std::optional(d.offloadOptimizerDevice.value_or(config::OffloadDevice::None)));
  selectValue(m_offloadParam, std::optional(d.offloadParamDevice.value_or(config::OffloadDevice::None)));
  m_zero3Init->setChecked(d.zero3InitFlag.value_or(false));
  m_clipping->setValue(d.gradientClipping.value_or(0));
  updateEnabled();
  m_loading = false;
}

void WizardParadigmPage::store(WizardRun& run) const {
  run.setParadigm(m_single->isChecked() ? WizardRun::Paradigm::Single
                  : m_ddp->isChecked()  ? WizardRun::Paradigm::Ddp
                  : m_fsdp->isChecked() ? WizardRun::Paradigm::Fsdp
                                        : WizardRun::Paradigm::DeepSpeed);
  config::RunSpec& s = run.spec;
  s.numProcesses = m_processes->value();
  // FSDP: every setting the page shows is written, as `accelerate config` does (FSDP2's reshard_after_forward is
  // replaced by the strategy it stood for).
  config::FsdpSpec& f = s.fsdp;
  f.shardingStrategy = comboValue(m_sharding, f.shardingStrategy);
  f.reshardAfterForward.reset();
  f.autoWrapPolicy = comboValue(m_wrap, f.autoWrapPolicy);
  const QString classes = m_wrapClasses->text().trimmed();
  f.transformerLayerClsToWrap = f.autoWrapPolicy == config::FsdpWrapPolicy::TransformerBased && !classes.isEmpty()
                                    ? std::optional(classes.toStdString())
                                    : std::nullopt;
  f.minNumParams = f.autoWrapPolicy == config::FsdpWrapPolicy::SizeBased
                       ? std::optional<std::int64_t>(m_minParams->value())
                       : std::nullopt;
  f.backwardPrefetch = comboValue(m_backwardPrefetch, f.backwardPrefetch);
  f.stateDictType = comboValue(m_stateDict, f.stateDictType);
  const int version = m_version->currentData().toInt();
  f.version = version > 0 ? std::optional(version) : std::nullopt;
  f.offloadParams = m_offloadParams->isChecked();
  f.forwardPrefetch = m_forwardPrefetch->isChecked();
  f.activationCheckpointing = m_activationCheckpointing->isChecked();
  f.cpuRamEfficientLoading = m_ramEfficient->isChecked();
  f.syncModuleStates = m_syncStates->isChecked();
  f.useOrigParams = m_origParams->isChecked();
  // DeepSpeed: a DeepSpeed JSON decides stage, offload, accumulation and clipping; zero.Init is still Accelerate's
  // question.
  config::DeepSpeedSpec& d = s.deepspeed;
  const QString file = m_dsConfigFile->text().trimmed();
  d.configFile = file.isEmpty() ? std::nullopt : std::optional(file.toStdString());
  if (d.configFile) {
    d.zeroStage.reset();
    d.offloadOptimizerDevice.reset();
    d.offloadParamDevice.reset();
    d.gradientClipping.reset();
    d.gradientAccumulationSteps.reset();
    d.zero3InitFlag = m_zero3Init->isChecked();
  } else {
    d.zeroStage = comboValue(m_stage, d.zeroStage);
    const bool stage3 = d.zeroStage == config::ZeroStage::Parameters;
    d.offloadOptimizerDevice = comboValue(m_offloadOptimizer, d.offloadOptimizerDevice);
    d.offloadParamDevice = stage3 ? comboValue(m_offloadParam, d.offloadParamDevice) : config::OffloadDevice::None;
    d.zero3InitFlag = stage3 ? std::optional(m_zero3Init->isChecked()) : std::nullopt;
    d.gradientClipping = m_clipping->value() > 0 ? std::optional(m_clipping->value()) : std::nullopt;
  }
}

}  // namespace fathom::views
