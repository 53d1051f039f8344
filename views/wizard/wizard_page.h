// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "wizard/wizard_run.h"

#include <QWizardPage>

namespace fathom::views {

/// A page of the configuration wizard: shows its part of a WizardRun (load) and writes it back (store), the typed
/// fields of its config::RunSpec and the wizard's own choices. Pages never talk to each other; the ConfigWizard holds
/// the one WizardRun and re-loads pages whose fields depend on others.
class WizardPage : public QWizardPage {
  Q_OBJECT

public:
  using QWizardPage::QWizardPage;

  virtual void load(const WizardRun& run) = 0;
  virtual void store(WizardRun& run) const = 0;

signals:
  /// A field changed (the wizard stores every page and asks the planner again).
  void edited();

protected:
  /// Emits edited() unless the page is loading.
  void notify() {
    if (!m_loading) {
      emit edited();
    }
  }
  /// Set while load() runs, so programmatic changes do not count as edits.
  bool m_loading = false;
};

}  // namespace fathom::views
