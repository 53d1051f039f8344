// SPDX-License-Identifier: Apache-2.0
#include "mainwindow.h"

#include "aboutdialog.h"
#include "environmentcontroller.h"
#include "environmentmodel.h"

#include <QAction>
#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::studio {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_environment(new EnvironmentController(this)),
      m_environmentModel(new views::EnvironmentModel(this)) {
  setObjectName(u"mainWindow"_s);
  setWindowTitle(tr("Fathom Studio"));
  resize(960, 600);

  auto* page = new QWidget(this);
  auto* heading = new QLabel(u"<h2>%1</h2>"_s.arg(tr("Welcome to Fathom Studio")), page);
  auto* intro = new QLabel(tr("This machine, as Fathom sees it. Runs, plans and traces will appear here once a "
                              "workspace is open."),
                           page);
  intro->setWordWrap(true);
  m_environmentView = new QTableView(page);
  m_environmentView->setObjectName(u"environmentView"_s);
  m_environmentView->setModel(m_environmentModel);
  m_environmentView->verticalHeader()->hide();
  m_environmentView->horizontalHeader()->setStretchLastSection(true);
  m_environmentView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_environmentView->setWordWrap(true);

  auto* layout = new QVBoxLayout(page);
  layout->addWidget(heading);
  layout->addWidget(intro);
  layout->addWidget(m_environmentView, 1);
  setCentralWidget(page);

  createMenus();

  m_deviceLabel = new QLabel(tr("Probing environment…"), this);
  m_deviceLabel->setObjectName(u"deviceSummary"_s);
  statusBar()->addPermanentWidget(m_deviceLabel);
  statusBar()->showMessage(tr("Ready"));

  connect(m_environment, &EnvironmentController::reportReady, this, [this](const runtime::EnvironmentReport& report) {
    m_environmentModel->setReport(report);
    m_environmentView->resizeColumnToContents(views::EnvironmentModel::PropertyColumn);
    m_environmentView->resizeRowsToContents();
    m_deviceLabel->setText(EnvironmentController::summary(report));
  });
  m_environment->refresh();
}

QString MainWindow::deviceSummary() const {
  return m_deviceLabel->text();
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->setObjectName(u"fileMenu"_s);
  QAction* refresh = file->addAction(tr("&Refresh Environment"), m_environment, &EnvironmentController::refresh);
  refresh->setShortcut(QKeySequence::Refresh);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->setObjectName(u"helpMenu"_s);
  QAction* about = help->addAction(tr("&About Fathom Studio"), this, &MainWindow::showAbout);
  about->setObjectName(u"aboutAction"_s);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::showAbout() {
  auto* dialog = new AboutDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->open();
}

}  // namespace fathom::studio
