// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "wizard/wizard_page.h"

#include <fathom/config/vocabulary.h>

#include <utility>
#include <vector>

class QButtonGroup;
class QRadioButton;

namespace fathom::views {

/// Precision: Accelerate's mixed_precision, the values Fathom runs (config::kMixedPrecisions), each with what it means
/// for memory and speed.
class WizardPrecisionPage : public WizardPage {
  Q_OBJECT

public:
  explicit WizardPrecisionPage(QWidget* parent = nullptr);

  void load(const WizardRun& run) override;
  void store(WizardRun& run) const override;

private:
  QButtonGroup* m_group = nullptr;
  std::vector<std::pair<config::MixedPrecision, QRadioButton*>> m_buttons;  ///< in core's order
};

}  // namespace fathom::views
