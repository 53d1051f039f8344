// SPDX-License-Identifier: Apache-2.0
#include "wizard/wizard_environment_page.h"

#include "common/formatting.h"
#include "wizard/vocabulary_combo.h"

#include <fathom/common/error.h>
#include <fathom/plan/hardware.h>

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRadioButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <initializer_list>

using namespace Qt::StringLiterals;

namespace fathom::views {

WizardEnvironmentPage::WizardEnvironmentPage(QWidget* parent) : WizardPage(parent) {
  setObjectName(u"environmentPage"_s);
  setTitle(tr("Environment"));
  setSubTitle(tr("Where the run will execute, and the device the planner predicts for."));

  auto* where = new QGroupBox(tr("Run on"), this);
  m_thisMachine = new QRadioButton(tr("This machine"), where);
  m_thisMachine->setObjectName(u"targetThisMachine"_s);
  m_remote = new QRadioButton(tr("Other hosts (over SSH or under SLURM, one agent per host)"), where);
  m_remote->setObjectName(u"targetRemote"_s);
  auto* group = new QButtonGroup(this);
  group->addButton(m_thisMachine);
  group->addButton(m_remote);
  m_devices = new QLabel(tr("Probing this machine…"), where);
  m_devices->setObjectName(u"machineDevices"_s);
  m_devices->setWordWrap(true);
  m_devices->setContentsMargins(24, 0, 0, 0);
  m_useCpu = new QCheckBox(tr("Train on the CPU (Gloo), even where GPUs exist"), where);
  m_useCpu->setObjectName(u"useCpu"_s);

  m_remoteFields = new QWidget(where);
  m_hosts = new QPlainTextEdit(m_remoteFields);
  m_hosts->setObjectName(u"hosts"_s);
  m_hosts->setPlaceholderText(tr("One host per line, rank 0's first"));
  m_hosts->setMaximumHeight(70);
  m_launcher = new QComboBox(m_remoteFields);
  m_launcher->setObjectName(u"launcher"_s);
  fillCombo(m_launcher, config::kLaunchers, std::function<QString(config::Launcher)>([](config::Launcher l) {
              return l == config::Launcher::Local ? tr("fathom launch on each machine") : QString();
            }));
  m_sshUser = new QLineEdit(m_remoteFields);
  m_sshUser->setObjectName(u"sshUser"_s);
  m_sshConfig = new QLineEdit(m_remoteFields);
  m_sshConfig->setObjectName(u"sshConfig"_s);
  m_sshConfig->setPlaceholderText(tr("~/.ssh/config"));
  m_port = new QSpinBox(m_remoteFields);
  m_port->setObjectName(u"mainProcessPort"_s);
  m_port->setRange(0, 65535);
  m_port->setSpecialValueText(tr("launcher's choice"));
  // SLURM (launcher: slurm): `fathom launch` submits a job of these nodes, or uses the allocation it runs in.
  m_nodes = new QSpinBox(m_remoteFields);
  m_nodes->setObjectName(u"slurmNodes"_s);
  m_nodes->setRange(1, 100000);
  m_partition = new QLineEdit(m_remoteFields);
  m_partition->setObjectName(u"slurmPartition"_s);
  m_partition->setPlaceholderText(tr("the cluster's default"));
  m_time = new QLineEdit(m_remoteFields);
  m_time->setObjectName(u"slurmTime"_s);
  m_time->setPlaceholderText(tr("the partition's default (HH:MM:SS, D-HH:MM, ...)"));
  m_account = new QLineEdit(m_remoteFields);
  m_account->setObjectName(u"slurmAccount"_s);
  m_account->setPlaceholderText(tr("your default account"));
  m_remoteForm = new QFormLayout(m_remoteFields);
  m_remoteForm->setContentsMargins(24, 0, 0, 0);
  m_remoteForm->addRow(tr("Start agents with:"), m_launcher);
  m_remoteForm->addRow(tr("Hosts:"), m_hosts);
  m_remoteForm->addRow(tr("SSH user:"), m_sshUser);
  m_remoteForm->addRow(tr("SSH configuration file:"), m_sshConfig);
  m_remoteForm->addRow(tr("Nodes:"), m_nodes);
  m_remoteForm->addRow(tr("Partition:"), m_partition);
  m_remoteForm->addRow(tr("Time limit:"), m_time);
  m_remoteForm->addRow(tr("Account:"), m_account);
  m_remoteForm->addRow(tr("Rendezvous port:"), m_port);

  auto* whereLayout = new QVBoxLayout(where);
  whereLayout->addWidget(m_thisMachine);
  whereLayout->addWidget(m_devices);
  whereLayout->addWidget(m_useCpu);
  whereLayout->addWidget(m_remote);
  whereLayout->addWidget(m_remoteFields);

  auto* plannerBox = new QGroupBox(tr("Plan for"), this);
  m_hardware = new QComboBox(plannerBox);
  m_hardware->setObjectName(u"hardware"_s);
  for (const std::string& name : plan::hardwarePresetNames()) {
    QString label = QString::fromStdString(name);
    try {
      const plan::HardwareSpec hw = plan::loadHardware(name);
      label = tr("%1 (%2)").arg(QString::fromStdString(hw.description), format::bytes(double(hw.memoryBytes)));
    } catch (const ConfigError&) {
    }
    m_hardware->addItem(label, QString::fromStdString(name));
  }
  m_gpusPerNode = new QSpinBox(plannerBox);
  m_gpusPerNode->setObjectName(u"gpusPerNode"_s);
  m_gpusPerNode->setRange(0, 1024);
  m_gpusPerNode->setSpecialValueText(tr("as the preset"));
  auto* plannerForm = new QFormLayout(plannerBox);
  plannerForm->addRow(tr("Device:"), m_hardware);
  plannerForm->addRow(tr("GPUs per node:"), m_gpusPerNode);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(where);
  layout->addWidget(plannerBox);
  layout->addStretch(1);

  connect(m_thisMachine, &QRadioButton::toggled, this, [this] {
    updateEnabled();
    notify();
  });
  connect(m_useCpu, &QCheckBox::toggled, this, [this] {
    m_cpuChosen = m_cpuChosen || !m_loading;
    notify();
  });
  connect(m_hosts, &QPlainTextEdit::textChanged, this, [this] { notify(); });
  connect(m_launcher, &QComboBox::currentIndexChanged, this, [this] {
    updateEnabled();
    notify();
  });
  for (QLineEdit* edit : {m_partition, m_time, m_account}) {
    connect(edit, &QLineEdit::textChanged, this, [this] { notify(); });
  }
  connect(m_nodes, &QSpinBox::valueChanged, this, [this] { notify(); });
  connect(m_sshUser, &QLineEdit::textChanged, this, [this] { notify(); });
  connect(m_sshConfig, &QLineEdit::textChanged, this, [this] { notify(); });
  connect(m_port, &QSpinBox::valueChanged, this, [this] { notify(); });
  connect(m_hardware, &QComboBox::currentIndexChanged, this, [this] {
    m_hardwareChosen = m_hardwareChosen || !m_loading;
    notify();
  });
  connect(m_gpusPerNode, &QSpinBox::valueChanged, this, [this] { notify(); });
}

void WizardEnvironmentPage::updateEnabled() {
  const bool local = m_thisMachine->isChecked();
  m_devices->setEnabled(local);
  m_useCpu->setEnabled(true);  // the hosts may have no GPU either
  m_remoteFields->setEnabled(!local);
  // SLURM names no hosts (the allocation does): its rows replace the host and SSH rows.
  const bool slurm = comboValue(m_launcher, std::optional<config::Launcher>()) == config::Launcher::Slurm;
  for (QWidget* field : std::initializer_list<QWidget*>{m_hosts, m_sshUser, m_sshConfig}) {
    m_remoteForm->setRowVisible(field, !slurm);
  }
  for (QWidget* field : std::initializer_list<QWidget*>{m_nodes, m_partition, m_time, m_account}) {
    m_remoteForm->setRowVisible(field, slurm);
  }
}

QString WizardEnvironmentPage::presetForDevice(const QString& name, std::uint64_t memoryBytes) {
  const QString n = name.toLower();
  const double gib = double(memoryBytes) / (1024.0 * 1024.0 * 1024.0);
  if (n.contains(u"h200"_s)) {
    return u"h200-141gb"_s;
  }
  if (n.contains(u"h100"_s)) {
    return u"h100-sxm-80gb"_s;
  }
  if (n.contains(u"a100"_s)) {
    return gib > 60 ? u"a100-80gb"_s : u"a100-40gb"_s;
  }
  if (n.contains(u"l4"_s)) {
    return u"l4"_s;
  }
  if (n.contains(u"4090"_s)) {
    return u"rtx-4090"_s;
  }
  return {};
}

void WizardEnvironmentPage::setEnvironment(const runtime::EnvironmentReport& report, bool applyDefaults) {
  if (applyDefaults && report.cuda.devices.empty() && !m_cpuChosen && !m_useCpu->isChecked()) {
    m_useCpu->setChecked(true);  // counts as an edit: the wizard stores it
    m_cpuChosen = false;
  }
  if (report.cuda.devices.empty()) {
    // No GPU here: plan for this machine's CPU until the user picks a device to plan for.
    if (const int cpu = m_hardware->findData(u"cpu-host"_s); applyDefaults && !m_hardwareChosen && cpu >= 0) {
      m_hardware->setCurrentIndex(cpu);
      m_hardwareChosen = false;
    }
    m_devices->setText(tr("No CUDA device: processes train on the CPU with Gloo (%n core(s), %1 of memory).", nullptr,
                          report.system.cpuCores)
                           .arg(format::bytes(double(report.system.ramBytes))));
  } else {
    QStringList lines;
    for (const auto& d : report.cuda.devices) {
      lines << tr("cuda:%1 %2 (%3)")
                   .arg(d.index)
                   .arg(QString::fromStdString(d.name), format::bytes(double(d.totalMemoryBytes)));
    }
    m_devices->setText(lines.join(u"<br>"_s));
    const QString preset = presetForDevice(QString::fromStdString(report.cuda.devices.front().name),
                                           report.cuda.devices.front().totalMemoryBytes);
    const int index = m_hardware->findData(preset);
    if (applyDefaults && !m_hardwareChosen && index >= 0) {
      m_hardware->setCurrentIndex(index);
    }
  }
}

void WizardEnvironmentPage::load(const WizardRun& run) {
  m_loading = true;
  const config::RunSpec& s = run.spec;
  (run.target == WizardRun::Target::ThisMachine ? m_thisMachine : m_remote)->setChecked(true);
  m_useCpu->setChecked(s.useCpu);
  QStringList hosts;
  for (const std::string& host : s.fathom.hosts) {
    hosts << QString::fromStdString(host);
  }
  m_hosts->setPlainText(hosts.join(u'\n'));
  selectValue(m_launcher, std::optional(s.fathom.launcher.value_or(config::Launcher::Local)));
  m_sshUser->setText(QString::fromStdString(s.fathom.sshUser.value_or("")));
  m_sshConfig->setText(QString::fromStdString(s.fathom.sshConfig.value_or("")));
  m_port->setValue(s.mainProcessPort.value_or(0));
  m_nodes->setValue(std::max(1, s.numMachines));
  m_partition->setText(QString::fromStdString(s.fathom.slurmPartition.value_or("")));
  m_time->setText(QString::fromStdString(s.fathom.slurmTime.value_or("")));
  m_account->setText(QString::fromStdString(s.fathom.slurmAccount.value_or("")));
  const int hw = m_hardware->findData(QString::fromStdString(s.fathom.planner.hardware.value_or("")));
  if (hw >= 0) {
    m_hardware->setCurrentIndex(hw);
  }
  m_gpusPerNode->setValue(s.fathom.planner.gpusPerNode.value_or(0));
  updateEnabled();
  m_loading = false;
}

void WizardEnvironmentPage::store(WizardRun& run) const {
  config::RunSpec& s = run.spec;
  run.target = m_thisMachine->isChecked() ? WizardRun::Target::ThisMachine : WizardRun::Target::RemoteHosts;
  s.useCpu = m_useCpu->isChecked();  // on this machine or on the hosts (CPU-only hosts train with Gloo)
  s.fathom.hosts.clear();
  for (const QString& line : m_hosts->toPlainText().split(u'\n')) {
    if (!line.trimmed().isEmpty()) {
      s.fathom.hosts.push_back(line.trimmed().toStdString());
    }
  }
  s.fathom.launcher = comboValue(m_launcher, s.fathom.launcher);
  const bool slurm = s.fathom.launcher == config::Launcher::Slurm;
  if (run.target == WizardRun::Target::RemoteHosts && slurm) {
    s.numMachines = m_nodes->value();  // the job's nodes; SLURM decides rank 0's address
  } else if (run.target == WizardRun::Target::RemoteHosts && !s.fathom.hosts.empty()) {
    // The hosts decide the machines and rank 0's address; a file without hosts keeps its own.
    s.numMachines = static_cast<int>(s.fathom.hosts.size());
    s.mainProcessIp = s.fathom.hosts.front();
  }
  auto text = [](const QLineEdit* edit) {
    const QString value = edit->text().trimmed();
    return value.isEmpty() ? std::nullopt : std::optional(value.toStdString());
  };
  s.fathom.slurmPartition = text(m_partition);
  s.fathom.slurmTime = text(m_time);
  s.fathom.slurmAccount = text(m_account);
  const QString user = m_sshUser->text().trimmed();
  s.fathom.sshUser = user.isEmpty() ? std::nullopt : std::optional(user.toStdString());
  const QString sshConfig = m_sshConfig->text().trimmed();
  s.fathom.sshConfig = sshConfig.isEmpty() ? std::nullopt : std::optional(sshConfig.toStdString());
  // 0 is the launcher's choice; a file's own 0 (a free port) stays.
  if (m_port->value() > 0 || s.mainProcessPort != 0) {
    s.mainProcessPort = m_port->value() > 0 ? std::optional(m_port->value()) : std::nullopt;
  }
  s.fathom.planner.hardware = m_hardware->currentData().toString().toStdString();
  s.fathom.planner.gpusPerNode = m_gpusPerNode->value() > 0 ? std::optional(m_gpusPerNode->value()) : std::nullopt;
}

}  // namespace fathom::views
