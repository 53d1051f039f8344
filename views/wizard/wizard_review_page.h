// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "wizard/wizard_page.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace fathom::views {

/// Review: the file as it will be saved (exactly the bytes Finish writes), where it goes, and the launch command.
class WizardReviewPage : public WizardPage {
  Q_OBJECT

public:
  explicit WizardReviewPage(QWidget* parent = nullptr);

  void load(const WizardRun& run) override;
  void store(WizardRun& run) const override;

  /// Shows `yaml` (or the error that kept it from being rendered), the launch command and notes from reading.
  void show(const QString& yaml, const QString& error, const QStringList& command, const QStringList& notes);
  QString yaml() const;
  QString path() const;
  void setPath(const QString& path);
  bool isComplete() const override;

private:
  QLineEdit* m_path = nullptr;
  QPlainTextEdit* m_yaml = nullptr;
  QLabel* m_command = nullptr;
  QLabel* m_notes = nullptr;
  bool m_valid = false;
};

}  // namespace fathom::views
