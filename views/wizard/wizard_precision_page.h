// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "wizard/wizard_page.h"

class QRadioButton;

namespace fathom::views {

/// Precision: Accelerate's mixed_precision (no, fp16, bf16, fp8), each with what it means for memory and speed.
class WizardPrecisionPage : public WizardPage {
  Q_OBJECT

public:
  explicit WizardPrecisionPage(QWidget* parent = nullptr);

  void load(const RunSpec& spec) override;
  void store(RunSpec& spec) const override;

private:
  QRadioButton* m_no = nullptr;
  QRadioButton* m_fp16 = nullptr;
  QRadioButton* m_bf16 = nullptr;
  QRadioButton* m_fp8 = nullptr;
};

}  // namespace fathom::views
