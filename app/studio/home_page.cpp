// SPDX-License-Identifier: Apache-2.0
#include "home_page.h"

#include "common/environment_model.h"

#include <QCommandLinkButton>
#include <QDir>
#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::studio {

HomePage::HomePage(views::EnvironmentModel* environment, QWidget* parent) : QWidget(parent) {
  setObjectName(u"homePage"_s);
  auto* heading = new QLabel(u"<h2>%1</h2>"_s.arg(tr("Welcome to Fathom Studio")), this);
  m_workspace = new QLabel(this);
  m_workspace->setObjectName(u"homeWorkspace"_s);
  m_workspace->setWordWrap(true);

  auto* start = new QGroupBox(tr("Start"), this);
  auto link = [start](const QString& title, const QString& text, const QString& name) {
    auto* b = new QCommandLinkButton(title, text, start);
    b->setObjectName(name);
    return b;
  };
  auto* open = link(tr("Open Workspace…"), tr("A fathom.sqlite with runs and saved plans"), u"homeOpen"_s);
  auto* create = link(tr("New Workspace…"), tr("An empty workspace for new runs"), u"homeNew"_s);
  auto* demo = link(tr("Open the Demo Workspace"),
                    tr("A finished demo run and a saved plan comparison; built on "
                       "first use (a short real training run)"),
                    u"homeDemo"_s);
  auto* configure =
      link(tr("New Run Configuration…"), tr("The wizard, with the planner beside every page"), u"homeConfigure"_s);
  auto* plan =
      link(tr("What-if Planner"), tr("Memory, communication and step time of every strategy"), u"homePlanner"_s);
  connect(open, &QCommandLinkButton::clicked, this, &HomePage::openWorkspaceClicked);
  connect(create, &QCommandLinkButton::clicked, this, &HomePage::newWorkspaceClicked);
  connect(demo, &QCommandLinkButton::clicked, this, &HomePage::demoClicked);
  connect(configure, &QCommandLinkButton::clicked, this, &HomePage::newConfigurationClicked);
  connect(plan, &QCommandLinkButton::clicked, this, &HomePage::plannerClicked);
  auto* startLayout = new QGridLayout(start);
  startLayout->addWidget(open, 0, 0);
  startLayout->addWidget(create, 0, 1);
  startLayout->addWidget(demo, 1, 0);
  startLayout->addWidget(configure, 1, 1);
  startLayout->addWidget(plan, 2, 0);

  auto* recentBox = new QGroupBox(tr("Recent workspaces"), this);
  m_recent = new QListWidget(recentBox);
  m_recent->setObjectName(u"recentWorkspaces"_s);
  m_recent->setTextElideMode(Qt::ElideMiddle);
  m_recent->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  (new QVBoxLayout(recentBox))->addWidget(m_recent);
  connect(m_recent, &QListWidget::itemActivated, this,
          [this](QListWidgetItem* item) { emit recentWorkspaceActivated(item->data(Qt::UserRole).toString()); });

  auto* machine = new QGroupBox(tr("This machine"), this);
  m_environmentView = new QTableView(machine);
  m_environmentView->setObjectName(u"environmentView"_s);
  m_environmentView->setModel(environment);
  m_environmentView->verticalHeader()->hide();
  m_environmentView->horizontalHeader()->setStretchLastSection(true);
  m_environmentView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_environmentView->setWordWrap(true);
  (new QVBoxLayout(machine))->addWidget(m_environmentView);

  auto* top = new QHBoxLayout();
  top->addWidget(start, 3);
  top->addWidget(recentBox, 2);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(heading);
  layout->addWidget(m_workspace);
  layout->addLayout(top);
  layout->addWidget(machine, 1);
  setWorkspace(QString(), 0);
}

void HomePage::setRecentWorkspaces(const QStringList& paths) {
  m_recent->clear();
  for (const QString& path : paths) {
    auto* item = new QListWidgetItem(QDir::toNativeSeparators(path), m_recent);
    item->setData(Qt::UserRole, path);
    item->setToolTip(path);
  }
  if (paths.isEmpty()) {
    auto* item = new QListWidgetItem(tr("None yet"), m_recent);
    item->setFlags(Qt::NoItemFlags);
  }
}

void HomePage::setWorkspace(const QString& path, int runs) {
  m_workspace->setText(
      path.isEmpty() ? tr("No workspace is open. Open one, create one, or start with the demo.")
                     : tr("Workspace %1: %n run(s). Double-click a run in the Runs panel to open it.", nullptr, runs)
                           .arg(QDir::toNativeSeparators(path)));
}

}  // namespace fathom::studio
