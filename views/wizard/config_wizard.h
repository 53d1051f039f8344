// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "planner/plan_comparison.h"
#include "wizard/wizard_run.h"

#include <fathom/config/accelerate_config.h>
#include <fathom/runtime/environment.h>

#include <QTimer>
#include <QWizard>

#include <vector>

namespace fathom::views {

class PlannerPanel;
class WizardEnvironmentPage;
class WizardPage;
class WizardReviewPage;

/// The configuration wizard: environment, training paradigm, precision, batch, model and data, trackers, monitoring
/// and profiler, review. A planner panel beside every page shows the prediction for the configuration as it is being
/// edited; the wizard only asks for it (planRequested) and shows what it is given (setSnapshot). Finish saves the
/// Accelerate-compatible YAML; Launch saves it and asks for a launch (launchRequested). Both ask before they replace
/// an existing file other than the one the wizard opened. openFile() fills the wizard from any config file,
/// Accelerate's own included.
class ConfigWizard : public QWizard {
  Q_OBJECT

public:
  enum PageId {
    EnvironmentPageId,
    ParadigmPageId,
    PrecisionPageId,
    BatchPageId,
    ModelPageId,
    ToolsPageId,
    ReviewPageId
  };

  explicit ConfigWizard(QWidget* parent = nullptr);

  /// Loads `path` (config::runSpecFromConfig() of the file, with each value's line for messages); on failure returns
  /// false and sets `error` to the core's message, which names the file, the key and the value.
  bool openFile(const QString& path, QString* error);
  void setEnvironment(const runtime::EnvironmentReport& report);
  /// Where Finish saves (the review page's field).
  void setSavePath(const QString& path);
  QString savePath() const;

  /// What the pages edit: the run specification and the wizard's own choices.
  const WizardRun& run() const { return m_run; }
  /// The config Finish writes.
  config::AccelerateConfig config() const;
  PlannerPanel* plannerPanel() const { return m_panel; }

  /// Saves to savePath(); false (and `error`) on failure.
  bool save(QString* error);

public slots:
  /// Shows a prediction; snapshots for an older request than the current one are ignored.
  void setSnapshot(const fathom::views::PlanSnapshot& snapshot);
  void accept() override;

signals:
  /// The configuration changed (debounced): predict this.
  void planRequested(const fathom::views::PlanRequest& request);
  /// Launch was pressed: the file is saved at `configPath`.
  void launchRequested(const QString& configPath, const fathom::views::WizardRun& run);

private:
  void collect();
  void reloadPages();
  void refreshReview();
  void requestPlan();
  void launch();
  /// Whether savePath() may be written: it does not exist, it is the file the wizard opened, or the user chose to
  /// overwrite it (asked in a box titled `title`).
  bool confirmOverwrite(const QString& title);

  WizardRun m_run;
  config::AccelerateConfig m_base;  ///< the file opened (keys the wizard does not edit survive a save)
  QString m_openedPath;             ///< where m_base came from ("" for a new configuration)
  QStringList m_notes;
  std::vector<WizardPage*> m_pages;
  WizardEnvironmentPage* m_environment = nullptr;
  WizardReviewPage* m_review = nullptr;
  PlannerPanel* m_panel = nullptr;
  QTimer m_debounce;
  std::optional<PlanRequest> m_pending;
};

}  // namespace fathom::views
