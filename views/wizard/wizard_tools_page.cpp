// SPDX-License-Identifier: Apache-2.0
#include "wizard/wizard_tools_page.h"

#include "wizard/vocabulary_combo.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

/// What a monitor field stores: the spec's own value (possibly unset) while the box still shows it, so neither a
/// default the file left out nor a value with more decimals than the box shows is written unless the user changed it.
std::optional<double> spinValue(const QDoubleSpinBox* box, std::optional<double> current, double defaultValue) {
  // QDoubleSpinBox keeps its value rounded to its decimals this way (QDoubleSpinBoxPrivate::round).
  const double shown = QString::number(current.value_or(defaultValue), 'f', box->decimals()).toDouble();
  return shown == box->value() ? current : std::optional<double>(box->value());
}

}  // namespace

QString WizardToolsPage::trackerLabel(config::Tracker tracker) {
  switch (tracker) {
  case config::Tracker::All: return tr("All of Fathom's trackers");
  case config::Tracker::Tensorboard: return tr("TensorBoard");
  case config::Tracker::Mlflow: return tr("MLflow");
  case config::Tracker::Dvclive: return tr("DVCLive");
  case config::Tracker::Sqlite: return tr("Fathom workspace (sqlite)");
  case config::Tracker::Csv: return tr("CSV file");
  case config::Tracker::Jsonl: return tr("JSON lines file");
  default: return QString::fromUtf8(config::kTrackers.toString(tracker));  // not offered: Fathom does not run it
  }
}

WizardToolsPage::WizardToolsPage(QWidget* parent) : WizardPage(parent) {
  setObjectName(u"toolsPage"_s);
  setTitle(tr("Trackers, monitoring and profiler"));
  setSubTitle(tr("Where the run's metrics go, when the launcher reports a hung or slow rank, and what the profiler "
                 "records."));

  auto* trackers = new QGroupBox(tr("Experiment trackers"), this);
  auto* grid = new QGridLayout();
  // The trackers Fathom runs, in core's order (config::kTrackers); others are never offered.
  int i = 0;
  for (const config::Tracker tracker : config::kTrackers.supportedValues()) {
    const auto& entry = config::kTrackers.entry(tracker);
    auto* box = new QCheckBox(trackerLabel(tracker), trackers);
    box->setObjectName(u"tracker_"_s + QString::fromUtf8(entry.name));
    box->setToolTip(QString::fromUtf8(entry.help));
    m_trackers.emplace_back(tracker, box);
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

  // The launcher's run monitor (config::MonitorSpec): 0 turns a detector off, shown as "Off".
  auto* monitoring = new QGroupBox(tr("Monitoring"), this);
  monitoring->setObjectName(u"monitoring"_s);
  auto monitorSpin = [monitoring](const QString& name, double maximum, const QString& suffix, const QString& toolTip) {
    auto* box = new QDoubleSpinBox(monitoring);
    box->setObjectName(name);
    box->setDecimals(1);
    box->setRange(0, maximum);
    box->setSuffix(suffix);
    box->setSpecialValueText(tr("Off"));
    box->setToolTip(toolTip);
    return box;
  };
  m_hangTimeout = monitorSpin(u"hangTimeout"_s, 7 * 24 * 3600.0, tr(" s"),
                              tr("Seconds without progress of any rank, while the ranks disagree on the collective "
                                 "they are in, before the launcher reports a hang. 0 turns hang detection off."));
  m_stragglerThreshold =
      monitorSpin(u"stragglerThreshold"_s, 10000, tr(" %"),
                  tr("A rank whose own time per step exceeds the other ranks' median by more than this is flagged "
                     "as a straggler. 0 turns straggler detection off."));
  m_hangAction = new QComboBox(monitoring);
  m_hangAction->setObjectName(u"hangAction"_s);
  fillCombo(m_hangAction, config::kHangActions,
            std::function<QString(config::HangAction)>([](config::HangAction action) {
              return action == config::HangAction::Abort ? tr("Stop the run") : tr("Report it, the run goes on");
            }));
  auto* monitoringForm = new QFormLayout(monitoring);
  monitoringForm->addRow(tr("Hang timeout:"), m_hangTimeout);
  monitoringForm->addRow(tr("Straggler threshold:"), m_stragglerThreshold);
  monitoringForm->addRow(tr("On a hang:"), m_hangAction);
  for (QDoubleSpinBox* box : {m_hangTimeout, m_stragglerThreshold}) {
    connect(box, &QDoubleSpinBox::valueChanged, this, [this] { notify(); });
  }
  connect(m_hangAction, &QComboBox::currentIndexChanged, this, [this] { notify(); });

  m_profiler = new QGroupBox(tr("Profile the run"), this);
  m_profiler->setObjectName(u"profilerEnabled"_s);
  m_profiler->setCheckable(true);
  auto* activities = new QHBoxLayout();
  for (const config::ProfilerActivity activity : config::kProfilerActivities.supportedValues()) {
    const auto& entry = config::kProfilerActivities.entry(activity);
    auto* box = new QCheckBox(activity == config::ProfilerActivity::Cpu ? tr("CPU") : tr("CUDA"), m_profiler);
    box->setObjectName(u"activity_"_s + QString::fromUtf8(entry.name));
    box->setToolTip(QString::fromUtf8(entry.help));
    m_activities.emplace_back(activity, box);
    activities->addWidget(box);
    connect(box, &QCheckBox::toggled, this, [this] { notify(); });
  }
  activities->addStretch(1);
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
  layout->addWidget(monitoring);
  layout->addWidget(m_profiler);
  layout->addStretch(1);
  connect(m_profiler, &QGroupBox::toggled, this, [this] { notify(); });
  for (QCheckBox* c : {m_shapes, m_memory, m_stack}) {
    connect(c, &QCheckBox::toggled, this, [this] { notify(); });
  }
  for (QLineEdit* e : {m_projectDir, m_workspace, m_traceDir}) {
    connect(e, &QLineEdit::textChanged, this, [this] { notify(); });
  }
}

void WizardToolsPage::load(const WizardRun& run) {
  m_loading = true;
  const config::FathomSpec& f = run.spec.fathom;
  for (auto [tracker, box] : m_trackers) {
    box->setChecked(std::find(f.trackers.begin(), f.trackers.end(), tracker) != f.trackers.end());
  }
  m_projectDir->setText(QString::fromStdString(f.projectDir.value_or("")));
  m_workspace->setText(QString::fromStdString(f.workspace.value_or("")));
  m_hangTimeout->setValue(f.monitor.hangTimeoutSeconds());
  m_stragglerThreshold->setValue(f.monitor.stragglerThresholdPercent());
  selectValue(m_hangAction, std::optional(f.monitor.effectiveHangAction()));
  // The profiler: CPU activity and one active window of three steps after a step of waiting and one of warm-up
  // where the file is silent.
  const config::ProfilerSpec& p = f.profiler;
  m_profiler->setChecked(p.enabled.value_or(false));
  for (auto [activity, box] : m_activities) {
    box->setChecked(p.activities.empty()
                        ? activity == config::ProfilerActivity::Cpu
                        : std::find(p.activities.begin(), p.activities.end(), activity) != p.activities.end());
  }
  m_wait->setValue(p.scheduleWait.value_or(1));
  m_warmup->setValue(p.scheduleWarmup.value_or(1));
  m_active->setValue(p.scheduleActive.value_or(3));
  m_repeat->setValue(p.scheduleRepeat.value_or(1));
  m_shapes->setChecked(p.recordShapes.value_or(false));
  m_memory->setChecked(p.profileMemory.value_or(false));
  m_stack->setChecked(p.withStack.value_or(false));
  m_traceDir->setText(QString::fromStdString(p.outputTraceDir.value_or("")));
  m_loading = false;
}

void WizardToolsPage::store(WizardRun& run) const {
  config::FathomSpec& f = run.spec.fathom;
  // The file's order first (trackers the page does not offer stay: it says so in its notes), then those checked
  // here, in the page's order.
  std::vector<config::Tracker> trackers;
  for (const config::Tracker t : f.trackers) {
    const auto it = std::find_if(m_trackers.begin(), m_trackers.end(), [t](const auto& e) { return e.first == t; });
    if (it == m_trackers.end() || it->second->isChecked()) {
      trackers.push_back(t);
    }
  }
  for (auto [tracker, box] : m_trackers) {
    if (box->isChecked() && std::find(trackers.begin(), trackers.end(), tracker) == trackers.end()) {
      trackers.push_back(tracker);
    }
  }
  f.trackers = trackers;
  auto text = [](const QLineEdit* e) {
    const QString t = e->text().trimmed();
    return t.isEmpty() ? std::nullopt : std::optional(t.toStdString());
  };
  f.projectDir = text(m_projectDir);
  f.workspace = text(m_workspace);
  config::MonitorSpec& m = f.monitor;
  m.hangTimeout = spinValue(m_hangTimeout, m.hangTimeout, config::MonitorSpec::kDefaultHangTimeoutSeconds);
  m.stragglerThreshold =
      spinValue(m_stragglerThreshold, m.stragglerThreshold, config::MonitorSpec::kDefaultStragglerThresholdPercent);
  const auto action = comboValue(m_hangAction, m.hangAction);
  m.hangAction = action == m.effectiveHangAction() ? m.hangAction : action;
  config::ProfilerSpec& p = f.profiler;
  p.enabled = m_profiler->isChecked();
  p.activities.clear();
  for (auto [activity, box] : m_activities) {
    if (box->isChecked()) {
      p.activities.push_back(activity);
    }
  }
  p.scheduleWait = m_wait->value();
  p.scheduleWarmup = m_warmup->value();
  p.scheduleActive = m_active->value();
  p.scheduleRepeat = m_repeat->value();
  p.recordShapes = m_shapes->isChecked();
  p.profileMemory = m_memory->isChecked();
  p.withStack = m_stack->isChecked();
  p.outputTraceDir = text(m_traceDir);
}

}  // namespace fathom::views
