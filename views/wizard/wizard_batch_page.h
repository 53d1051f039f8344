// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "wizard/wizard_page.h"

class QLabel;
class QSpinBox;

namespace fathom::views {

/// Batch size and accumulation: the micro-batch each process runs, the micro-batches per optimizer step, the
/// sequence length the planner assumes, and the global batch they make.
class WizardBatchPage : public WizardPage {
  Q_OBJECT

public:
  explicit WizardBatchPage(QWidget* parent = nullptr);

  void load(const WizardRun& run) override;
  void store(WizardRun& run) const override;

private:
  void updateGlobalBatch();

  QSpinBox* m_microBatch = nullptr;
  QSpinBox* m_accumulation = nullptr;
  QSpinBox* m_seq = nullptr;
  QLabel* m_global = nullptr;
  int m_processes = 1;
};

}  // namespace fathom::views
