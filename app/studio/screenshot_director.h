// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>

class QWidget;

namespace fathom::studio {

class MainWindow;

/// `fathom-studio --show TARGET --screenshot FILE`: opens TARGET once the main window has loaded, waits until it
/// shows real data (the environment report, the workspace's runs, the planner's first answer), saves a PNG of the
/// window that shows it, and quits. Targets: main, planner[:TAB] (0 = memory, 1 = time and communication,
/// 2 = strategies, 3 = collectives, 4 = top plans), run:ID[:TAB], compare:ID,ID…, wizard:PAGE (0 = environment …
/// 6 = review), settings, timeline (the trace of --open, once loaded and painted).
/// tests/studio/screenshots.sh uses it under Xvfb.
class ScreenshotDirector : public QObject {
  Q_OBJECT

public:
  ScreenshotDirector(MainWindow* window, QString target, QString file, bool waitForWorkspace);

  /// Checks the target and starts polling; fails (exit code 1) when it is unknown.
  bool start();
  /// Seconds to wait for the target before giving up.
  static constexpr int kTimeoutS = 90;

private:
  void poll();
  void grab(QWidget* widget);

  MainWindow* m_window;
  QString m_target;
  QString m_file;
  bool m_waitForWorkspace;
  bool m_workspaceLoaded = false;
  bool m_opened = false;
  int m_polls = 0;
  QTimer m_timer;
  QList<qint64> m_compare;            ///< compare:IDS
  std::function<QWidget*()> m_ready;  ///< the widget to grab once the target is ready, else nullptr
};

}  // namespace fathom::studio
