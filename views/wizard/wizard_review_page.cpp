// SPDX-License-Identifier: Apache-2.0
#include "wizard/wizard_review_page.h"

#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::views {

WizardReviewPage::WizardReviewPage(QWidget* parent) : WizardPage(parent) {
  setObjectName(u"reviewPage"_s);
  setTitle(tr("Review"));
  setSubTitle(tr("The configuration exactly as it will be saved: an Accelerate config file with Fathom's section."));
  m_path = new QLineEdit(this);
  m_path->setObjectName(u"configPath"_s);
  auto* browse = new QPushButton(tr("Browse…"), this);
  connect(browse, &QPushButton::clicked, this, [this] {
    // The wizard asks about an existing file when it saves (Save or Launch), once, whichever way the path came.
    const QString file = QFileDialog::getSaveFileName(this, tr("Save Configuration"), m_path->text(),
                                                      tr("YAML configuration (*.yaml *.yml)"), nullptr,
                                                      QFileDialog::DontConfirmOverwrite);
    if (!file.isEmpty()) {
      m_path->setText(file);
    }
  });
  connect(m_path, &QLineEdit::textChanged, this, &QWizardPage::completeChanged);
  auto* pathRow = new QHBoxLayout();
  pathRow->addWidget(new QLabel(tr("Save as:"), this));
  pathRow->addWidget(m_path, 1);
  pathRow->addWidget(browse);
  m_yaml = new QPlainTextEdit(this);
  m_yaml->setObjectName(u"yamlPreview"_s);
  m_yaml->setReadOnly(true);
  m_yaml->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_yaml->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_command = new QLabel(this);
  m_command->setObjectName(u"launchCommand"_s);
  m_command->setWordWrap(true);
  m_command->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_notes = new QLabel(this);
  m_notes->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(pathRow);
  layout->addWidget(m_yaml, 1);
  layout->addWidget(m_command);
  layout->addWidget(m_notes);
}

void WizardReviewPage::load(const WizardRun&) {}

void WizardReviewPage::store(WizardRun&) const {}

void WizardReviewPage::show(const QString& yaml, const QString& error, const QStringList& command,
                            const QStringList& notes) {
  m_valid = error.isEmpty();
  m_yaml->setPlainText(m_valid ? yaml : tr("This configuration cannot be saved:\n%1").arg(error));
  m_command->setText(tr("Launch runs: %1")
                         .arg(u"<code>fathom launch --config_file %1 %2</code>"_s.arg(
                             (m_path->text().isEmpty() ? u"FILE"_s : m_path->text()).toHtmlEscaped(),
                             command.join(u' ').toHtmlEscaped())));
  m_notes->setText(notes.join(u'\n'));
  m_notes->setVisible(!notes.isEmpty());
  emit completeChanged();
}

QString WizardReviewPage::yaml() const {
  return m_valid ? m_yaml->toPlainText() : QString();
}

QString WizardReviewPage::path() const {
  return m_path->text().trimmed();
}

void WizardReviewPage::setPath(const QString& path) {
  m_path->setText(path);
}

bool WizardReviewPage::isComplete() const {
  return m_valid && !path().isEmpty();
}

}  // namespace fathom::views
