// SPDX-License-Identifier: Apache-2.0
// MainWindow's trace tabs (issue 19): a trace file in a TimelinePage, the step alignment tab beside it, a plan file on
// its plan lanes. The rest of the window is in main_window.cpp.
#include "main_window.h"

#include "timeline/plan_lane_painter.h"
#include "timeline/step_alignment_view.h"
#include "timeline/timeline_page.h"
#include "timeline/timeline_view.h"

#include <fathom/common/error.h>
#include <fathom/plan/prediction_json.h>

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTabWidget>

using namespace Qt::StringLiterals;

namespace fathom::studio {

views::TimelineView* MainWindow::openTrace(const QString& path) {
  auto* page = new views::TimelinePage(m_tabs);
  page->setObjectName(u"timelinePage"_s);
  views::TimelineView* view = page->view();  // its context menu has the exports (TimelinePage's TimelineExport)
  const int tab = m_tabs->addTab(page, QFileInfo(path).fileName());
  m_tabs->setTabToolTip(tab, QDir::toNativeSeparators(path));
  m_tabs->setCurrentIndex(tab);
  page->open(path);  // progress, cancel and a failure's message are shown in the view itself
  page->setFocus();  // the view (the page's focus proxy): W/S/A/D work at once

  // The step alignment tab beside the page (issue 19), once the trace has several ranks with ProfilerSteps or a plan
  // is shown. The page owns it until it becomes a tab.
  auto* steps = new views::StepAlignmentView(page);
  steps->setObjectName(u"stepAlignmentView"_s);
  steps->hide();
  const auto showSteps = [this, page, view, steps, name = QFileInfo(path).fileName()] {
    steps->setPlan(view->planLanes().plan());
    if (view->index() == nullptr || (steps->alignment().ranks.size() < 2 && !view->planLanes().plan())) {
      return;
    }
    if (m_tabs->indexOf(steps) < 0) {
      m_tabs->insertTab(m_tabs->indexOf(page) + 1, steps, tr("Steps: %1").arg(name));
    }
  };
  connect(view, &views::TimelineView::loaded, steps, [view, steps, showSteps] {
    steps->setIndex(view->sharedIndex());
    showSteps();
  });
  connect(view, &views::TimelineView::planChanged, steps, showSteps);
  return view;
}

bool MainWindow::openTracePlan(views::TimelineView* view, const QString& planPath) {
  QFile file(planPath);
  QString error;
  if (!file.open(QIODevice::ReadOnly)) {
    error = file.errorString();
  } else {
    try {
      const nlohmann::json json = nlohmann::json::parse(file.readAll().toStdString());
      if (!json.is_object() || !json.contains("time") || !json.contains("plan")) {
        throw fathom::ConfigError("it has no \"plan\" and \"time\" keys");
      }
      const plan::PredictionReport report =
          plan::predictionReportFromJson(json, QFileInfo(planPath).fileName().toStdString());
      view->setPlan(report.prediction, report.plan);
      return true;
    } catch (const nlohmann::json::exception& e) {
      error = QString::fromUtf8(e.what());
    } catch (const fathom::Error& e) {
      error = QString::fromUtf8(e.what());
    }
  }
  showError(tr("Open Plan"),
            tr("%1 is not a plan: give the output of fathom plan --json.").arg(QDir::toNativeSeparators(planPath)),
            error);
  return false;
}

}  // namespace fathom::studio
