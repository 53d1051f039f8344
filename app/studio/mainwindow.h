// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QMainWindow>

class QLabel;
class QTableView;

namespace fathom::views {
class EnvironmentModel;
}

namespace fathom::studio {

class EnvironmentController;

/// The Studio's main window: menus, a status bar with the LibTorch version and a device summary, and the
/// environment overview as its start page (the run views arrive with the workspace).
class MainWindow : public QMainWindow {
  Q_OBJECT

public:
  explicit MainWindow(QWidget* parent = nullptr);

  /// Text of the status bar's permanent device summary ("Probing environment…" until the report arrives).
  QString deviceSummary() const;
  EnvironmentController* environment() const { return m_environment; }

public slots:
  void showAbout();

private:
  void createMenus();

  EnvironmentController* m_environment = nullptr;
  views::EnvironmentModel* m_environmentModel = nullptr;
  QTableView* m_environmentView = nullptr;
  QLabel* m_deviceLabel = nullptr;
};

}  // namespace fathom::studio
