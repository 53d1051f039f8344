// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "wizard/wizard_page.h"

class QComboBox;
class QLineEdit;
class QRadioButton;
class QSpinBox;
class QStackedWidget;

namespace fathom::views {

class ModelSourceEditor;

/// Model and data: a built-in model with its dimensions (trained by `fathom train` on its built-in dataset), or a
/// user's program with its arguments plus a description of its model for the planner.
class WizardModelPage : public WizardPage {
  Q_OBJECT

public:
  explicit WizardModelPage(QWidget* parent = nullptr);

  void load(const WizardRun& run) override;
  void store(WizardRun& run) const override;

private:
  QRadioButton* m_builtin = nullptr;
  QRadioButton* m_program = nullptr;
  QStackedWidget* m_stack = nullptr;
  ModelSourceEditor* m_builtinModel = nullptr;
  QSpinBox* m_steps = nullptr;
  QSpinBox* m_logEvery = nullptr;
  QComboBox* m_optimizer = nullptr;
  QLineEdit* m_programPath = nullptr;
  QLineEdit* m_programArguments = nullptr;
  ModelSourceEditor* m_programModel = nullptr;
};

}  // namespace fathom::views
