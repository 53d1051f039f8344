// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>

class QComboBox;

namespace fathom::studio {

/// Settings: the UI language (the system's, English, German or Simplified Chinese). A change applies when the
/// Studio starts again; the dialog offers to restart it at once.
class SettingsDialog : public QDialog {
  Q_OBJECT

public:
  explicit SettingsDialog(QWidget* parent = nullptr);

  /// The language chosen ("" = the system's).
  QString language() const;

  void accept() override;

signals:
  /// The language changed and the user asked to restart now.
  void restartRequested();

private:
  QComboBox* m_language = nullptr;
  QString m_initial;
};

}  // namespace fathom::studio
