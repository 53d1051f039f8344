// SPDX-License-Identifier: Apache-2.0
#include "wizard/wizard_model_page.h"

#include "planner/model_source_editor.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

/// The inverse of QProcess::splitCommand: words with blanks or quotes in double quotes (a quote as three).
QString joinArguments(const QStringList& words) {
  QStringList out;
  for (QString w : words) {
    if (w.isEmpty() || w.contains(u' ') || w.contains(u'\t') || w.contains(u'"')) {
      w = u"\""_s + w.replace(u"\""_s, u"\"\"\""_s) + u"\""_s;
    }
    out << w;
  }
  return out.join(u' ');
}

}  // namespace

WizardModelPage::WizardModelPage(QWidget* parent) : WizardPage(parent) {
  setObjectName(u"modelPage"_s);
  setTitle(tr("Model and data"));
  setSubTitle(tr("What trains: one of Fathom's built-in models on its built-in data, or your own program."));
  m_builtin = new QRadioButton(tr("Built-in model (fathom train)"), this);
  m_builtin->setObjectName(u"programBuiltin"_s);
  m_program = new QRadioButton(tr("My program"), this);
  m_program->setObjectName(u"programUser"_s);
  auto* group = new QButtonGroup(this);
  group->addButton(m_builtin);
  group->addButton(m_program);

  m_stack = new QStackedWidget(this);
  auto* builtinPage = new QWidget(m_stack);
  m_builtinModel = new ModelSourceEditor(ModelSourceEditor::Sources::BuiltinOnly, builtinPage);
  m_builtinModel->setObjectName(u"builtinModelEditor"_s);
  m_steps = new QSpinBox(builtinPage);
  m_steps->setObjectName(u"steps"_s);
  m_steps->setRange(1, 10'000'000);
  m_logEvery = new QSpinBox(builtinPage);
  m_logEvery->setObjectName(u"logEvery"_s);
  m_logEvery->setRange(0, 1'000'000);
  m_logEvery->setSpecialValueText(tr("summary only"));
  m_optimizer = new QComboBox(builtinPage);
  m_optimizer->setObjectName(u"trainOptimizer"_s);
  // The optimizers `fathom train --optimizer` builds (the planner knows more).
  m_optimizer->addItem(tr("AdamW"), static_cast<int>(plan::Optimizer::AdamW));
  m_optimizer->addItem(tr("SGD"), static_cast<int>(plan::Optimizer::Sgd));
  auto* data = new QLabel(tr("Data: the gpt models read the shipped character-level text corpus, the mlp a "
                             "synthetic regression set."),
                          builtinPage);
  data->setWordWrap(true);
  auto* builtinForm = new QFormLayout(builtinPage);
  builtinForm->setContentsMargins(24, 0, 0, 0);
  builtinForm->addRow(m_builtinModel);
  builtinForm->addRow(tr("Optimizer steps:"), m_steps);
  builtinForm->addRow(tr("Log every:"), m_logEvery);
  builtinForm->addRow(tr("Optimizer:"), m_optimizer);
  builtinForm->addRow(data);

  auto* programPage = new QWidget(m_stack);
  m_programPath = new QLineEdit(programPage);
  m_programPath->setObjectName(u"programPath"_s);
  m_programPath->setPlaceholderText(tr("an executable; a name without '/' is looked up in PATH"));
  auto* browse = new QPushButton(tr("Browse…"), programPage);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Training program"), m_programPath->text());
    if (!file.isEmpty()) {
      m_programPath->setText(file);
    }
  });
  auto* pathRow = new QHBoxLayout();
  pathRow->addWidget(m_programPath, 1);
  pathRow->addWidget(browse);
  m_programArguments = new QLineEdit(programPage);
  m_programArguments->setObjectName(u"programArguments"_s);
  m_programArguments->setPlaceholderText(tr("--epochs 3 --data /data/train"));
  auto* plannerBox = new QGroupBox(tr("Its model, for the planner"), programPage);
  m_programModel = new ModelSourceEditor(ModelSourceEditor::Sources::External, plannerBox);
  m_programModel->setObjectName(u"programModelEditor"_s);
  (new QVBoxLayout(plannerBox))->addWidget(m_programModel);
  auto* programForm = new QFormLayout(programPage);
  programForm->setContentsMargins(24, 0, 0, 0);
  programForm->addRow(tr("Program:"), pathRow);
  programForm->addRow(tr("Arguments:"), m_programArguments);
  programForm->addRow(plannerBox);

  m_stack->addWidget(builtinPage);
  m_stack->addWidget(programPage);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_builtin);
  layout->addWidget(m_program);
  layout->addWidget(m_stack);
  layout->addStretch(1);

  connect(m_builtin, &QRadioButton::toggled, this, [this](bool on) {
    m_stack->setCurrentIndex(on ? 0 : 1);
    notify();
  });
  connect(m_builtinModel, &ModelSourceEditor::changed, this, [this] { notify(); });
  connect(m_programModel, &ModelSourceEditor::changed, this, [this] { notify(); });
  connect(m_steps, &QSpinBox::valueChanged, this, [this] { notify(); });
  connect(m_logEvery, &QSpinBox::valueChanged, this, [this] { notify(); });
  connect(m_optimizer, &QComboBox::currentIndexChanged, this, [this] { notify(); });
  connect(m_programPath, &QLineEdit::textChanged, this, [this] { notify(); });
  connect(m_programArguments, &QLineEdit::textChanged, this, [this] { notify(); });
}

void WizardModelPage::load(const WizardRun& run) {
  m_loading = true;
  const bool builtinProgram = run.program == WizardRun::Program::Builtin;
  (builtinProgram ? m_builtin : m_program)->setChecked(true);
  m_stack->setCurrentIndex(builtinProgram ? 0 : 1);
  ModelSource builtin;
  builtin.builtin = run.builtin;
  m_builtinModel->setSource(builtin);
  m_steps->setValue(run.steps);
  m_logEvery->setValue(run.logEvery);
  const plan::Optimizer optimizer = run.spec.fathom.planner.optimizer.value_or(plan::Optimizer::AdamW);
  if (const int index = m_optimizer->findData(static_cast<int>(optimizer)); index >= 0) {
    m_optimizer->setCurrentIndex(index);
  }
  m_programPath->setText(run.programPath());
  m_programArguments->setText(joinArguments(run.programArguments()));
  if (run.plannerModel.kind != ModelSource::Kind::Builtin) {
    m_programModel->setSource(run.plannerModel);
  }
  m_loading = false;
}

void WizardModelPage::store(WizardRun& run) const {
  run.program = m_builtin->isChecked() ? WizardRun::Program::Builtin : WizardRun::Program::UserProgram;
  run.builtin = m_builtinModel->source().builtin;
  run.steps = m_steps->value();
  run.logEvery = m_logEvery->value();
  if (run.program == WizardRun::Program::Builtin) {
    run.spec.fathom.planner.optimizer = static_cast<plan::Optimizer>(m_optimizer->currentData().toInt());
  }
  run.setProgram(m_programPath->text().trimmed(), QProcess::splitCommand(m_programArguments->text()));
  run.plannerModel = m_programModel->source();
}

}  // namespace fathom::views
