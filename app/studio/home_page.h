// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

class QLabel;
class QListWidget;
class QTableView;

namespace fathom::views {
class EnvironmentModel;
}

namespace fathom::studio {

/// The start page: what to do next (open or create a workspace, build the demo, configure a run, plan), the
/// recent workspaces, and this machine as Fathom sees it (the environment report).
class HomePage : public QWidget {
  Q_OBJECT

public:
  HomePage(views::EnvironmentModel* environment, QWidget* parent = nullptr);

  void setRecentWorkspaces(const QStringList& paths);
  /// Says which workspace is open ("" = none).
  void setWorkspace(const QString& path, int runs);
  QTableView* environmentView() const { return m_environmentView; }

signals:
  void openWorkspaceClicked();
  void newWorkspaceClicked();
  void demoClicked();
  void newConfigurationClicked();
  void plannerClicked();
  void recentWorkspaceActivated(const QString& path);

private:
  QLabel* m_workspace = nullptr;
  QListWidget* m_recent = nullptr;
  QTableView* m_environmentView = nullptr;
};

}  // namespace fathom::studio
