// SPDX-License-Identifier: Apache-2.0
#include "wizard/wizard_tools_page.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::views {

QStringList WizardToolsPage::trackerNames() {
  return {u"sqlite"_s, u"tensorboard"_s, u"mlflow"_s, u"dvclive"_s, u"wandb"_s, u"comet_ml"_s, u"aim"_s, u"clearml"_s};
}

WizardToolsPage::WizardToolsPage(QWidget* parent) : WizardPage(parent) {
  setObjectName(u"toolsPage"_s);
  setTitle(tr("Profiler and trackers"));
  setSubTitle(tr("Where the run's metrics go, and what the profiler records."));

  auto* trackers = new QGroupBox(tr("Experiment trackers"), this);
  auto* grid = new QGridLayout();
  const QMap<QString, QString> labels{{u"sqlite"_s, tr("Fathom workspace (sqlite)")},
                                      {u"tensorboard"_s, tr("TensorBoard")},
                                      {u"mlflow"_s, tr("MLflow")},
                                      {u"dvclive"_s, tr("DVCLive")},
                                      {u"wandb"_s, tr("Weights && Biases")},
                                      {u"comet_ml"_s, tr("Comet")},
                                      {u"aim"_s, tr("Aim")},
                                      {u"clearml"_s, tr("ClearML")}};
  int i = 0;
  for (const QString& name : trackerNames()) {
    auto* box = new QCheckBox(labels.value(name), trackers);
    box->setObjectName(u"tracker_"_s + name);
    m_trackers.insert(name, box);
    grid->addWidget(box, i / 2, i % 2);
    ++i;
    connect(box, &QCheckBox::toggled, this, [this] { notify(); });
  }
  m_projectDir = new QLineEdit(trackers);
  m_projectDir->setObjectName(u"projectDir"_s);
  m_projectDir->setPlaceholderText(tr("the current directory"));
  m_workspace = new QLineEdit(trackers);
  m_workspace->setObjectName(u"workspacePath"_s);
  m_workspace->setPlaceholderText(tr("the workspace open in the Studio"));
  auto* form = new QFormLayout();
  form->addRow(tr("Project directory:"), m_projectDir);
  form->addRow(tr("Workspace file:"), m_workspace);
  auto* trackersLayout = new QVBoxLayout(trackers);
  trackersLayout->addLayout(grid);
  trackersLayout->addLayout(form);

  m_profiler = new QGroupBox(tr("Profile the run"), this);
  m_profiler->setObjectName(u"profilerEnabled"_s);
  m_profiler->setCheckable(true);
  m_cpu = new QCheckBox(tr("CPU"), m_profiler);
  m_cpu->setObjectName(u"activityCpu"_s);
  m_cuda = new QCheckBox(tr("CUDA"), m_profiler);
  m_cuda->setObjectName(u"activityCuda"_s);
  auto spin = [this](const QString& name) {
    auto* s = new QSpinBox(m_profiler);
    s->setObjectName(name);
    s->setRange(0, 100000);
    connect(s, &QSpinBox::valueChanged, this, [this] { notify(); });
    return s;
  };
  m_wait = spin(u"scheduleWait"_s);
  m_warmup = spin(u"scheduleWarmup"_s);
  m_active = spin(u"scheduleActive"_s);
  m_repeat = spin(u"scheduleRepeat"_s);
  m_shapes = new QCheckBox(tr("Record shapes"), m_profiler);
  m_memory = new QCheckBox(tr("Profile memory"), m_profiler);
  m_stack = new QCheckBox(tr("With stacks"), m_profiler);
  m_traceDir = new QLineEdit(m_profiler);
  m_traceDir->setObjectName(u"traceDir"_s);
  m_traceDir->setPlaceholderText(tr("the project directory"));
  auto* activities = new QHBoxLayout();
  activities->addWidget(m_cpu);
  activities->addWidget(m_cuda);
  activities->addStretch(1);
  auto* schedule = new QHBoxLayout();
  for (auto [label, box] : {std::pair{tr("wait"), m_wait}, std::pair{tr("warm-up"), m_warmup},
                            std::pair{tr("active"), m_active}, std::pair{tr("repeat"), m_repeat}}) {
    box->setPrefix(label + u" "_s);
    schedule->addWidget(box);
  }
  auto* options = new QHBoxLayout();
  options->addWidget(m_shapes);
  options->addWidget(m_memory);
  options->addWidget(m_stack);
  options->addStretch(1);
  auto* profilerForm = new QFormLayout(m_profiler);
  profilerForm->addRow(tr("Activities:"), activities);
  profilerForm->addRow(tr("Schedule (steps):"), schedule);
  profilerForm->addRow(tr("Record:"), options);
  profilerForm->addRow(tr("Trace folder:"), m_traceDir);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(trackers);
  layout->addWidget(m_profiler);
  layout->addStretch(1);
  connect(m_profiler, &QGroupBox::toggled, this, [this] { notify(); });
  for (QCheckBox* c : {m_cpu, m_cuda, m_shapes, m_memory, m_stack}) {
    connect(c, &QCheckBox::toggled, this, [this] { notify(); });
  }
  for (QLineEdit* e : {m_projectDir, m_workspace, m_traceDir}) {
    connect(e, &QLineEdit::textChanged, this, [this] { notify(); });
  }
}

void WizardToolsPage::load(const RunSpec& s) {
  m_loading = true;
  for (auto it = m_trackers.begin(); it != m_trackers.end(); ++it) {
    it.value()->setChecked(s.trackers.contains(it.key()));
  }
  m_projectDir->setText(s.projectDir);
  m_workspace->setText(s.workspace);
  m_profiler->setChecked(s.profilerEnabled);
  m_cpu->setChecked(s.profilerActivities.contains(u"cpu"_s));
  m_cuda->setChecked(s.profilerActivities.contains(u"cuda"_s));
  m_wait->setValue(s.scheduleWait);
  m_warmup->setValue(s.scheduleWarmup);
  m_active->setValue(s.scheduleActive);
  m_repeat->setValue(s.scheduleRepeat);
  m_shapes->setChecked(s.recordShapes);
  m_memory->setChecked(s.profileMemory);
  m_stack->setChecked(s.withStack);
  m_traceDir->setText(s.traceDir);
  m_loading = false;
}

void WizardToolsPage::store(RunSpec& s) const {
  s.trackers.clear();
  for (const QString& name : trackerNames()) {
    if (m_trackers.value(name)->isChecked()) {
      s.trackers << name;
    }
  }
  s.projectDir = m_projectDir->text().trimmed();
  s.workspace = m_workspace->text().trimmed();
  s.profilerEnabled = m_profiler->isChecked();
  s.profilerActivities.clear();
  if (m_cpu->isChecked()) {
    s.profilerActivities << u"cpu"_s;
  }
  if (m_cuda->isChecked()) {
    s.profilerActivities << u"cuda"_s;
  }
  s.scheduleWait = m_wait->value();
  s.scheduleWarmup = m_warmup->value();
  s.scheduleActive = m_active->value();
  s.scheduleRepeat = m_repeat->value();
  s.recordShapes = m_shapes->isChecked();
  s.profileMemory = m_memory->isChecked();
  s.withStack = m_stack->isChecked();
  s.traceDir = m_traceDir->text().trimmed();
}

}  // namespace fathom::views
