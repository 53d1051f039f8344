// SPDX-License-Identifier: Apache-2.0
#include "screenshot_director.h"

#include "environment_controller.h"
#include "main_window.h"
#include "settings_dialog.h"
#include "timeline_start.h"
#include "workspace_controller.h"

#include "bigmodel/device_map_document.h"
#include "bigmodel/device_map_view.h"
#include "planner/planner_panel.h"
#include "planner/what_if_view.h"
#include "runs/run_details_page.h"
#include "runs/runs_browser.h"
#include "runs/runs_model.h"
#include "timeline/area_panel.h"
#include "timeline/run_timeline_page.h"
#include "timeline/slice_details_panel.h"
#include "timeline/step_alignment_view.h"
#include "timeline/timeline_page.h"
#include "timeline/timeline_view.h"
#include "wizard/config_wizard.h"

#include <QApplication>
#include <QPixmap>
#include <QScreen>
#include <QTabWidget>
#include <QTableView>
#include <QWindow>

using namespace Qt::StringLiterals;

namespace fathom::studio {

ScreenshotDirector::ScreenshotDirector(MainWindow* window, QString target, QString file, bool waitForWorkspace)
    : QObject(window), m_window(window), m_target(std::move(target)), m_file(std::move(file)),
      m_waitForWorkspace(waitForWorkspace) {
  m_timer.setInterval(100);
  connect(&m_timer, &QTimer::timeout, this, &ScreenshotDirector::poll);
  connect(window->workspace(), &WorkspaceController::runsLoaded, this, [this] { m_workspaceLoaded = true; });
}

bool ScreenshotDirector::start() {
  MainWindow* w = m_window;
  if (m_target == u"main"_s) {
    m_ready = [w]() -> QWidget* { return w; };
  } else if (m_target == u"planner:device-map"_s) {
    // The what-if planner's Device map tab, once its first model is planned.
    m_ready = [w]() -> QWidget* {
      views::WhatIfView* view = w->whatIfView();
      if (view == nullptr) {
        return nullptr;
      }
      view->showDeviceMap();
      return view->deviceMapView()->document()->hasPlan() ? w : nullptr;
    };
  } else if (m_target.startsWith(u"planner"_s)) {
    const int tab = m_target.contains(u':') ? m_target.section(u':', 1).toInt() : 0;
    m_ready = [w, tab]() -> QWidget* {
      views::WhatIfView* view = w->whatIfView();
      if (view == nullptr || !view->comparison()) {
        return nullptr;
      }
      if (auto* tabs = view->findChild<QTabWidget*>(u"whatIfTabs"_s)) {
        tabs->setCurrentIndex(tab);
      }
      return w;
    };
  } else if (m_target.startsWith(u"run:"_s) && m_target.endsWith(u":device-map"_s)) {
    // run:ID:device-map: the run page's "Device map…" (its first recorded map), shown in the device-map view.
    const qint64 id = m_target.section(u':', 1, 1).toLongLong();
    m_ready = [w, id, clicked = false]() mutable -> QWidget* {
      views::RunDetailsPage* page = w->runPage(id);
      if (page == nullptr || page->deviceMaps().empty()) {
        return nullptr;
      }
      if (!clicked) {
        clicked = true;
        const store::RunDeviceMapRow& first = page->deviceMaps().front();
        w->openRecordedDeviceMap(id, QString::fromStdString(first.map.recordJson), page->deviceMapTitle(0));
      }
      views::WhatIfView* view = w->whatIfView();
      return view != nullptr && view->deviceMapView()->showsRecordedMap() ? w : nullptr;
    };
  } else if (m_target.startsWith(u"run:"_s)) {
    // run:ID or run:ID:TAB (the index of the page's tab: ranks, metrics, log, alerts, plan vs actual, configuration;
    // or the word `timeline`: the Timeline tab once its first timeline is loaded and painted).
    const qint64 id = m_target.section(u':', 1, 1).toLongLong();
    const bool timeline = m_target.section(u':', 2, 2) == u"timeline"_s;
    const int tab = m_target.count(u':') >= 2 && !timeline ? m_target.section(u':', 2, 2).toInt() : 0;
    m_ready = [w, id, tab, timeline]() -> QWidget* {
      views::RunDetailsPage* page = w->runPage(id);
      if (page == nullptr || page->runId() != id ||
          (page->pointCount() == 0 && page->deviceMaps().empty() && !timeline)) {
        return nullptr;  // (a profiled run may log no metrics: the timeline waits for its own data; an inference run's
                         // device map is data too)
      }
      if (timeline) {
        page->showTimelineTab();
        const views::TimelineView* view = page->timelinePage()->view();
        return view->index() != nullptr && view->lastPaint().rows > 0 ? w : nullptr;
      }
      if (auto* tabs = page->findChild<QTabWidget*>(u"runTabs"_s)) {
        tabs->setCurrentIndex(tab);
      }
      return w;
    };
  } else if (m_target.startsWith(u"compare:"_s)) {
    // compare:ID,ID[,ID...]: the comparison page of those runs.
    for (const QString& id : m_target.mid(8).split(u',')) {
      m_compare << id.toLongLong();
    }
    if (m_compare.size() < 2) {
      return false;
    }
    m_ready = [w]() -> QWidget* { return w->comparisonPage() != nullptr ? w : nullptr; };
  } else if (m_target.startsWith(u"wizard"_s)) {
    const int page = m_target.contains(u':') ? m_target.section(u':', 1).toInt() : 0;
    if (page < 0 || page > views::ConfigWizard::ReviewPageId) {
      return false;
    }
    m_ready = [w, page]() -> QWidget* {
      views::ConfigWizard* wizard = w->wizard();
      if (wizard == nullptr) {
        return nullptr;
      }
      while (wizard->currentId() < page) {
        wizard->next();
      }
      const views::PlanSnapshot& s = wizard->plannerPanel()->snapshot();
      return (!s.model.name.empty() || !s.error.isEmpty()) ? wizard : nullptr;
    };
  } else if (m_target == u"settings"_s) {
    m_ready = [w]() -> QWidget* { return w->findChild<SettingsDialog*>(); };
  } else if (m_target == u"timeline"_s) {
    // The first trace given with --open or FILE, once loaded, its --range/--select/--area applied, its panels done
    // (a selected slice's args read, an area aggregated) and painted with its rows.
    m_ready = [w]() -> QWidget* {
      const auto* view = w->findChild<views::TimelineView*>(u"timelineView"_s);
      if (view == nullptr || view->index() == nullptr || view->isLoading() ||
          !view->property(kStartAppliedProperty).toBool()) {
        return nullptr;
      }
      const views::TimelinePage* page = nullptr;  // the view's page, when it has one (a splitter lies between)
      for (const QWidget* up = view->parentWidget(); up != nullptr && page == nullptr; up = up->parentWidget()) {
        page = qobject_cast<const views::TimelinePage*>(up);
      }
      if (page != nullptr && (page->detailsPanel()->isReadingArgs() || page->areaPanel()->isComputing())) {
        return nullptr;
      }
      return view->lastPaint().rows > 0 ? w : nullptr;
    };
  } else if (m_target == u"steps"_s) {
    // The step alignment tab of the trace given with --open (several ranks with steps, or a --plan), brought forward.
    m_ready = [w]() -> QWidget* {
      auto* steps = w->findChild<views::StepAlignmentView*>(u"stepAlignmentView"_s);
      if (steps == nullptr || w->documents()->indexOf(steps) < 0) {
        return nullptr;
      }
      w->documents()->setCurrentWidget(steps);
      return w;
    };
  } else {
    return false;
  }
  m_timer.start();
  return true;
}

void ScreenshotDirector::poll() {
  if (++m_polls > kTimeoutS * 10) {
    qCritical("screenshot: %s did not become ready within %d s", qPrintable(m_target), kTimeoutS);
    QApplication::exit(1);
    return;
  }
  if (!m_window->environment()->hasReport() || (m_waitForWorkspace && !m_workspaceLoaded)) {
    return;
  }
  if (!m_opened) {
    m_opened = true;
    if (m_target.startsWith(u"planner"_s)) {
      m_window->showPlanner();
    } else if (m_target.startsWith(u"run:"_s)) {
      m_window->openRun(m_target.section(u':', 1, 1).toLongLong());
    } else if (m_target.startsWith(u"compare:"_s)) {
      m_window->compareRuns(m_compare);
    } else if (m_target.startsWith(u"wizard"_s)) {
      m_window->newConfiguration();
    } else if (m_target == u"settings"_s) {
      m_window->showSettings();
    } else if (m_target == u"main"_s && m_window->runsModel()->rowCount() > 0) {
      m_window->runsBrowser()->selectRun(m_window->runsModel()->runs().last().info.id.value);
    }
    return;
  }
  if (QWidget* widget = m_ready()) {
    m_timer.stop();
    QTimer::singleShot(600, this, [this, widget] { grab(widget); });  // let charts and layouts settle
  }
}

void ScreenshotDirector::grab(QWidget* widget) {
  QWidget* top = widget->window();
  QScreen* screen = top->screen();
  // What the window system shows (a frame, when a window manager draws one); the widget itself otherwise.
  QPixmap pixmap = screen != nullptr ? screen->grabWindow(top->winId()) : QPixmap();
  if (pixmap.isNull()) {
    pixmap = top->grab();
  }
  const bool ok = pixmap.save(m_file, "PNG");
  if (!ok) {
    qCritical("screenshot: could not write %s", qPrintable(m_file));
  }
  QApplication::exit(ok ? 0 : 1);
}

}  // namespace fathom::studio
