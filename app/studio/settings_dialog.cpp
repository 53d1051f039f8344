// SPDX-License-Identifier: Apache-2.0
#include "settings_dialog.h"

#include "studio_settings.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QMessageBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::studio {

SettingsDialog::SettingsDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(u"settingsDialog"_s);
  setWindowTitle(tr("Settings"));
  m_initial = settings::language();
  m_language = new QComboBox(this);
  m_language->setObjectName(u"languageCombo"_s);
  m_language->addItem(tr("System default"), QString());
  for (const auto& [name, native] : settings::availableLanguages()) {
    m_language->addItem(native, name);
  }
  m_language->setCurrentIndex(std::max(0, m_language->findData(m_initial)));
  auto* note = new QLabel(tr("The language applies when Fathom Studio starts again."), this);
  note->setWordWrap(true);
  note->setEnabled(false);
  auto* form = new QFormLayout();
  form->addRow(tr("Language:"), m_language);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(note);
  layout->addStretch(1);
  layout->addWidget(buttons);
  resize(420, 160);
}

QString SettingsDialog::language() const {
  return m_language->currentData().toString();
}

void SettingsDialog::accept() {
  const QString chosen = language();
  settings::setLanguage(chosen);
  QDialog::accept();
  if (chosen != m_initial) {
    const auto answer =
        QMessageBox::question(parentWidget(), tr("Language"), tr("Restart Fathom Studio now to switch the language?"),
                              QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
    if (answer == QMessageBox::Yes) {
      emit restartRequested();
    }
  }
}

}  // namespace fathom::studio
