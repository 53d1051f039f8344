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
  m_group = new QButtonGroup(this);
  auto* layout = new QVBoxLayout(this);
  // The precisions Fathom runs, in core's order; the page only words them.
  for (const config::MixedPrecision precision : config::kMixedPrecisions.supportedValues()) {
    QString name, text, help;
    switch (precision) {
    case config::MixedPrecision::No:
      name = u"precisionNo"_s;
      text = tr("fp32 (no mixed precision)");
      help = tr("Parameters, gradients and activations in 32 bits: the most memory, the reference numerics.");
      break;
    case config::MixedPrecision::Bf16:
      name = u"precisionBf16"_s;
      text = tr("bf16");
      help = tr("Matrix products in bfloat16 under autocast; parameters stay fp32. The usual choice on A100, H100 and "
                "newer.");
      break;
    case config::MixedPrecision::Fp16:
      name = u"precisionFp16"_s;
      text = tr("fp16");
      help = tr("Matrix products in float16 with loss scaling (a GradScaler); for GPUs without bf16.");
      break;
    case config::MixedPrecision::Fp8: break;  // not supported: never offered
    }
    if (name.isEmpty()) {
      continue;
    }
    auto* button = new QRadioButton(text, this);
    button->setObjectName(name);
    m_group->addButton(button);
    m_buttons.emplace_back(precision, button);
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
  }
  layout->addStretch(1);
}

void WizardPrecisionPage::load(const WizardRun& run) {
  m_loading = true;
  // A precision the page does not offer (fp8, which Fathom does not run) leaves every button unchecked and the
  // spec's value as it is.
  m_group->setExclusive(false);
  for (auto [precision, button] : m_buttons) {
    button->setChecked(precision == run.spec.mixedPrecision);
  }
  m_group->setExclusive(true);
  m_loading = false;
}

void WizardPrecisionPage::store(WizardRun& run) const {
  for (auto [precision, button] : m_buttons) {
    if (button->isChecked()) {
      run.spec.mixedPrecision = precision;
    }
  }
}

}  // namespace fathom::views
