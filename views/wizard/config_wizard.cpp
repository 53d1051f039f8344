// SPDX-License-Identifier: Apache-2.0
#include "wizard/config_wizard.h"

#include "planner/planner_panel.h"
#include "wizard/wizard_batch_page.h"
#include "wizard/wizard_environment_page.h"
#include "wizard/wizard_model_page.h"
#include "wizard/wizard_paradigm_page.h"
#include "wizard/wizard_precision_page.h"
#include "wizard/wizard_review_page.h"
#include "wizard/wizard_tools_page.h"

#include <fathom/common/error.h>
#include <fathom/config/config_reader.h>
#include <fathom/config/config_resolver.h>
#include <fathom/config/config_writer.h>
#include <fathom/config/run_spec.h>

#include <QAbstractButton>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

/// A file's values with their lines ("a.yaml:3:18"), so that what the run specification refuses names where.
config::EffectiveConfig effectiveOf(const config::LoadedConfig& loaded) {
  config::EffectiveConfig effective;
  effective.config = loaded.config;
  effective.configFile = loaded.source;
  for (const auto& [path, value] : loaded.config.values()) {
    config::ResolvedValue& v = effective.values[path];
    v.value = value;
    v.source = config::ValueSource::ConfigFile;
    const auto at = loaded.locations.find(path);
    v.origin = at == loaded.locations.end()
                   ? loaded.source
                   : loaded.source + ":" + std::to_string(at->second.line) + ":" + std::to_string(at->second.column);
  }
  return effective;
}

}  // namespace

ConfigWizard::ConfigWizard(QWidget* parent) : QWizard(parent) {
  setObjectName(u"configWizard"_s);
  setWindowTitle(tr("New Run Configuration"));
  setWizardStyle(QWizard::ClassicStyle);
  setOption(QWizard::HaveCustomButton1, true);
  setOption(QWizard::NoCancelButtonOnLastPage, false);
  setButtonText(QWizard::CustomButton1, tr("&Launch"));
  setButtonText(QWizard::FinishButton, tr("&Save"));
  button(QWizard::CustomButton1)->setObjectName(u"launchButton"_s);
  button(QWizard::CustomButton1)->setToolTip(tr("Save the file and start the run on this machine"));

  m_environment = new WizardEnvironmentPage(this);
  m_review = new WizardReviewPage(this);
  m_pages = {m_environment,
             new WizardParadigmPage(this),
             new WizardPrecisionPage(this),
             new WizardBatchPage(this),
             new WizardModelPage(this),
             new WizardToolsPage(this),
             m_review};
  for (std::size_t i = 0; i < m_pages.size(); ++i) {
    setPage(static_cast<int>(i), m_pages[i]);
    connect(m_pages[i], &WizardPage::edited, this, [this] {
      collect();
      m_debounce.start();
    });
  }

  m_panel = new PlannerPanel(this);
  auto* side = new QScrollArea(this);
  side->setObjectName(u"plannerSide"_s);
  side->setWidget(m_panel);
  side->setWidgetResizable(true);
  side->setFrameShape(QFrame::StyledPanel);
  side->setMinimumWidth(m_panel->minimumWidth() + 30);
  setSideWidget(side);

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(120);
  connect(&m_debounce, &QTimer::timeout, this, &ConfigWizard::requestPlan);
  connect(this, &QWizard::currentIdChanged, this, [this](int id) {
    reloadPages();  // pages whose text depends on other pages (the batch page's global batch) see the latest spec
    button(QWizard::CustomButton1)->setVisible(id == ReviewPageId);
    if (id == ReviewPageId) {
      refreshReview();
    }
  });
  connect(this, &QWizard::customButtonClicked, this, [this](int which) {
    if (which == QWizard::CustomButton1) {
      launch();
    }
  });
  button(QWizard::CustomButton1)->setVisible(false);

  setSavePath(QDir::current().filePath(u"fathom_config.yaml"_s));
  reloadPages();
  resize(1180, 760);
  m_debounce.start();
}

void ConfigWizard::collect() {
  for (WizardPage* page : m_pages) {
    page->store(m_run);
  }
  if (currentId() == ReviewPageId) {
    refreshReview();
  }
}

void ConfigWizard::reloadPages() {
  for (WizardPage* page : m_pages) {
    page->load(m_run);
  }
}

config::AccelerateConfig ConfigWizard::config() const {
  return m_run.toConfig(m_base);
}

void ConfigWizard::refreshReview() {
  QString yaml;
  QString error;
  try {
    yaml = QString::fromStdString(config::emitConfig(config()));
  } catch (const Error& e) {
    error = QString::fromUtf8(e.what());
  }
  m_review->show(yaml, error, m_run.command(), m_notes);
  // Launchable here: this machine, other hosts reached over ssh (`fathom launch` reads fathom.hosts, ssh_user and
  // ssh_config from the saved file), or a SLURM job (launcher: slurm; `fathom launch` submits it, or uses the
  // allocation the Studio runs in); an Accelerate-style file for per-machine launches is only saved.
  const config::FathomSpec& f = m_run.spec.fathom;
  const bool remote = m_run.target == WizardRun::Target::RemoteHosts;
  const bool overSsh = remote && f.launcher == config::Launcher::Ssh && (!f.hosts.empty() || f.hostfile.has_value());
  const bool underSlurm = remote && f.launcher == config::Launcher::Slurm;
  button(QWizard::CustomButton1)
      ->setEnabled(error.isEmpty() && (m_run.target == WizardRun::Target::ThisMachine || overSsh || underSlurm) &&
                   !m_run.command().isEmpty());
}

void ConfigWizard::requestPlan() {
  try {
    const PlanRequest request = m_run.planRequest();
    m_pending = request;
    m_panel->setBusy(true);
    emit planRequested(request);
  } catch (const Error& e) {
    m_pending.reset();
    PlanSnapshot failed;
    failed.error = QString::fromUtf8(e.what());
    m_panel->setSnapshot(failed);
  }
}

void ConfigWizard::setSnapshot(const PlanSnapshot& snapshot) {
  if (m_pending && snapshot.request.toJson() != m_pending->toJson()) {
    return;
  }
  m_panel->setSnapshot(snapshot);
}

bool ConfigWizard::openFile(const QString& path, QString* error) {
  // Nothing changes until the whole file is read: a file the spec refuses leaves the wizard as it was.
  try {
    const config::LoadedConfig loaded = config::loadConfigFile(path.toStdString());
    QStringList notes;
    for (const std::string& note : loaded.notes) {
      notes << QString::fromStdString(note);
    }
    WizardRun run = WizardRun::fromSpec(config::runSpecFromConfig(effectiveOf(loaded)), &notes);
    run.spec.provenance.clear();  // from here on the values are the wizard's, not the file's lines
    m_base = loaded.config;
    m_notes = notes;
    m_run = run;
  } catch (const Error& e) {
    *error = QString::fromUtf8(e.what());
    return false;
  }
  m_openedPath = path;
  setWindowTitle(tr("Run Configuration: %1").arg(QDir::toNativeSeparators(path)));
  setSavePath(path);
  reloadPages();
  m_debounce.start();
  return true;
}

void ConfigWizard::setEnvironment(const runtime::EnvironmentReport& report) {
  m_environment->setEnvironment(report, /*applyDefaults=*/m_base.values().empty());
  collect();
  m_debounce.start();
}

void ConfigWizard::setSavePath(const QString& path) {
  m_review->setPath(path);
}

QString ConfigWizard::savePath() const {
  return m_review->path();
}

bool ConfigWizard::save(QString* error) {
  collect();
  try {
    config::saveConfigFile(config(), savePath().toStdString());
  } catch (const Error& e) {
    *error = QString::fromUtf8(e.what());
    return false;
  }
  return true;
}

bool ConfigWizard::confirmOverwrite(const QString& title) {
  const QFileInfo target(savePath());
  if (!target.exists() ||
      (!m_openedPath.isEmpty() && target.canonicalFilePath() == QFileInfo(m_openedPath).canonicalFilePath())) {
    return true;
  }
  QMessageBox box(QMessageBox::Warning, title,
                  tr("%1 already exists. Replace it with this configuration?")
                      .arg(QDir::toNativeSeparators(target.absoluteFilePath())),
                  QMessageBox::Cancel, this);
  QPushButton* overwrite = box.addButton(tr("&Overwrite"), QMessageBox::AcceptRole);
  box.setDefaultButton(QMessageBox::Cancel);
  box.exec();
  return box.clickedButton() == overwrite;
}

void ConfigWizard::accept() {
  if (!confirmOverwrite(tr("Save Configuration"))) {
    return;
  }
  QString error;
  if (!save(&error)) {
    QMessageBox box(QMessageBox::Critical, tr("Save Configuration"),
                    tr("The configuration could not be saved to %1.").arg(QDir::toNativeSeparators(savePath())),
                    QMessageBox::Ok, this);
    box.setDetailedText(error);
    box.exec();
    return;
  }
  QWizard::accept();
}

void ConfigWizard::launch() {
  const PlanSnapshot& planned = m_panel->snapshot();
  if (planned.ok() && !planned.evaluation.prediction->fits) {
    const auto answer = QMessageBox::warning(
        this, tr("Launch"),
        tr("The planner predicts that this plan will not fit on %1 (see the planner panel). Launch anyway?")
            .arg(QString::fromStdString(planned.hardware.description.empty() ? planned.hardware.name
                                                                             : planned.hardware.description)),
        QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
    if (answer != QMessageBox::Yes) {
      return;
    }
  }
  if (!confirmOverwrite(tr("Launch"))) {
    return;
  }
  QString error;
  if (!save(&error)) {
    QMessageBox box(QMessageBox::Critical, tr("Launch"),
                    tr("The configuration could not be saved to %1.").arg(QDir::toNativeSeparators(savePath())),
                    QMessageBox::Ok, this);
    box.setDetailedText(error);
    box.exec();
    return;
  }
  emit launchRequested(savePath(), m_run);
  QWizard::accept();
}

}  // namespace fathom::views
