// SPDX-License-Identifier: Apache-2.0
#include "planner/hardware_editor.h"

#include <fathom/common/error.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSpinBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

QDoubleSpinBox* number(double minimum, double maximum, int decimals, const QString& suffix, QWidget* parent,
                       const QString& name) {
  auto* s = new QDoubleSpinBox(parent);
  s->setRange(minimum, maximum);
  s->setDecimals(decimals);
  s->setSuffix(suffix);
  s->setObjectName(name);
  return s;
}

}  // namespace

HardwareEditor::HardwareEditor(QWidget* parent) : QWidget(parent) {
  setObjectName(u"hardwareEditor"_s);
  m_preset = new QComboBox(this);
  m_preset->setObjectName(u"hardwarePreset"_s);
  for (const std::string& name : plan::hardwarePresetNames()) {
    QString label = QString::fromStdString(name);
    try {
      label = QString::fromStdString(plan::loadHardware(name).description);
    } catch (const ConfigError&) {
      // A broken preset file still shows its name; choosing it reports the error.
    }
    m_preset->addItem(label, QString::fromStdString(name));
  }
  m_custom = new QCheckBox(tr("Custom device, starting from this preset"), this);
  m_custom->setObjectName(u"customHardware"_s);

  m_fields = new QWidget(this);
  m_memoryGiB = number(0.5, 100000, 1, tr(" GiB"), m_fields, u"memoryGiB"_s);
  m_peakTflops = number(0.1, 100000, 1, tr(" TFLOP/s"), m_fields, u"peakTflops"_s);
  m_fp32Tflops = number(0.1, 100000, 1, tr(" TFLOP/s"), m_fields, u"fp32Tflops"_s);
  m_gpusPerNode = new QSpinBox(m_fields);
  m_gpusPerNode->setRange(1, 1024);
  m_gpusPerNode->setObjectName(u"gpusPerNode"_s);
  m_intraGBps = number(0.1, 100000, 1, tr(" GB/s"), m_fields, u"intraNodeGBps"_s);
  m_interGBps = number(0.01, 100000, 2, tr(" GB/s"), m_fields, u"interNodeGBps"_s);
  auto* form = new QFormLayout(m_fields);
  form->setContentsMargins(0, 0, 0, 0);
  form->addRow(tr("Memory:"), m_memoryGiB);
  form->addRow(tr("Peak (bf16/fp16):"), m_peakTflops);
  form->addRow(tr("Peak (fp32):"), m_fp32Tflops);
  form->addRow(tr("GPUs per node:"), m_gpusPerNode);
  form->addRow(tr("Within a node:"), m_intraGBps);
  form->addRow(tr("Between nodes:"), m_interGBps);
  m_fields->setEnabled(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_preset);
  layout->addWidget(m_custom);
  layout->addWidget(m_fields);

  connect(m_preset, &QComboBox::currentIndexChanged, this, [this] {
    loadPresetIntoFields();
    if (!m_updating) {
      emit changed();
    }
  });
  connect(m_custom, &QCheckBox::toggled, this, [this](bool on) {
    m_fields->setEnabled(on);
    if (!m_updating) {
      emit changed();
    }
  });
  for (QDoubleSpinBox* s : {m_memoryGiB, m_peakTflops, m_fp32Tflops, m_intraGBps, m_interGBps}) {
    connect(s, &QDoubleSpinBox::valueChanged, this, [this] {
      if (!m_updating && m_custom->isChecked()) {
        emit changed();
      }
    });
  }
  connect(m_gpusPerNode, &QSpinBox::valueChanged, this, [this] {
    if (!m_updating && m_custom->isChecked()) {
      emit changed();
    }
  });
  const int h100 = m_preset->findData(u"h100-sxm-80gb"_s);
  m_preset->setCurrentIndex(h100 >= 0 ? h100 : 0);
  loadPresetIntoFields();
}

void HardwareEditor::loadPresetIntoFields() {
  plan::HardwareSpec hw;
  try {
    hw = plan::loadHardware(m_preset->currentData().toString().toStdString());
  } catch (const ConfigError&) {
    return;
  }
  showSpec(hw);
}

void HardwareEditor::showSpec(const plan::HardwareSpec& hw) {
  const bool old = m_updating;
  m_updating = true;
  m_memoryGiB->setValue(static_cast<double>(hw.memoryBytes) / kGiB);
  m_peakTflops->setValue(std::max(hw.peak.bf16, hw.peak.fp16) / 1e12);
  m_fp32Tflops->setValue(hw.peak.fp32 / 1e12);
  m_gpusPerNode->setValue(hw.gpusPerNode);
  m_intraGBps->setValue(hw.intraNode.bandwidth / 1e9);
  m_interGBps->setValue(hw.interNode.bandwidth / 1e9);
  m_updating = old;
}

HardwareChoice HardwareEditor::choice() const {
  HardwareChoice c;
  c.preset = m_preset->currentData().toString();
  if (!m_custom->isChecked()) {
    return c;
  }
  plan::HardwareSpec hw;
  try {
    hw = plan::loadHardware(c.preset.toStdString());
  } catch (const ConfigError&) {
    hw.name = c.preset.toStdString();
  }
  hw.name = c.preset.toStdString() + "-custom";
  hw.description = tr("Custom device based on %1").arg(m_preset->currentText()).toStdString();
  hw.memoryBytes = static_cast<std::int64_t>(m_memoryGiB->value() * kGiB);
  hw.peak.bf16 = hw.peak.fp16 = m_peakTflops->value() * 1e12;
  hw.peak.fp32 = m_fp32Tflops->value() * 1e12;
  hw.gpusPerNode = m_gpusPerNode->value();
  hw.intraNode.bandwidth = m_intraGBps->value() * 1e9;
  hw.interNode.bandwidth = m_interGBps->value() * 1e9;
  hw.source = "custom";
  c.custom = hw;
  return c;
}

void HardwareEditor::setChoice(const HardwareChoice& c) {
  const bool old = m_updating;
  m_updating = true;
  const int index = m_preset->findData(c.preset);
  if (index >= 0) {
    m_preset->setCurrentIndex(index);
  }
  loadPresetIntoFields();
  m_custom->setChecked(c.custom.has_value());
  m_fields->setEnabled(c.custom.has_value());
  if (c.custom) {
    showSpec(*c.custom);
  }
  m_updating = old;
}

}  // namespace fathom::views
