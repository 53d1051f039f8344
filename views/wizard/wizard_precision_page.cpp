// SPDX-License-Identifier: Apache-2.0
#include "wizard/wizard_precision_page.h"

#include <QButtonGroup>
#include <QLabel>
#include <QRadioButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::views {

WizardPrecisionPage::WizardPrecisionPage(QWidget* parent) : WizardPage(parent) {
  setObjectName(u"precisionPage"_s);
  setTitle(tr("Precision"));
  setSubTitle(tr("The number format of the forward and backward passes (Accelerate's mixed_precision)."));
  auto* group = new QButtonGroup(this);
  auto* layout = new QVBoxLayout(this);
  auto add = [&](QRadioButton*& button, const QString& name, const QString& text, const QString& help) {
    button = new QRadioButton(text, this);
    button->setObjectName(name);
    group->addButton(button);
    auto* label = new QLabel(help, this);
    label->setWordWrap(true);
    label->setContentsMargins(24, 0, 0, 8);
    label->setEnabled(false);
    layout->addWidget(button);
    layout->addWidget(label);
    connect(button, &QRadioButton::toggled, this, [this](bool on) {
      if (on) {
        notify();
      }
    });
  };
  add(m_no, u"precisionNo"_s, tr("fp32 (no mixed precision)"),
      tr("Parameters, gradients and activations in 32 bits: the most memory, the reference numerics."));
  add(m_bf16, u"precisionBf16"_s, tr("bf16"),
      tr("Matrix products in bfloat16 under autocast; parameters stay fp32. The usual choice on A100, H100 and "
         "newer."));
  add(m_fp16, u"precisionFp16"_s, tr("fp16"),
      tr("Matrix products in float16 with loss scaling (a GradScaler); for GPUs without bf16."));
  add(m_fp8, u"precisionFp8"_s, tr("fp8"),
      tr("8-bit matrix products through an FP8 backend (Transformer Engine, torchao, MS-AMP) on Hopper and newer; "
         "configure the recipe in fp8_config."));
  layout->addStretch(1);
}

void WizardPrecisionPage::load(const RunSpec& s) {
  m_loading = true;
  QRadioButton* b = s.mixedPrecision == u"bf16"_s   ? m_bf16
                    : s.mixedPrecision == u"fp16"_s ? m_fp16
                    : s.mixedPrecision == u"fp8"_s  ? m_fp8
                                                    : m_no;
  b->setChecked(true);
  m_loading = false;
}

void WizardPrecisionPage::store(RunSpec& s) const {
  s.mixedPrecision = m_bf16->isChecked()   ? u"bf16"_s
                     : m_fp16->isChecked() ? u"fp16"_s
                     : m_fp8->isChecked()  ? u"fp8"_s
                                           : u"no"_s;
}

}  // namespace fathom::views
