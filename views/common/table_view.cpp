// SPDX-License-Identifier: Apache-2.0
#include "common/table_view.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTableView>

namespace fathom::views {

QTableView* sortableTable(QAbstractItemModel* model, int sortRole, QWidget* parent, const QString& objectName) {
  auto* proxy = new QSortFilterProxyModel(parent);
  proxy->setSourceModel(model);
  proxy->setSortRole(sortRole);
  auto* view = new QTableView(parent);
  view->setObjectName(objectName);
  view->setModel(proxy);
  view->setSortingEnabled(true);
  view->sortByColumn(-1, Qt::AscendingOrder);
  view->verticalHeader()->hide();
  view->setAlternatingRowColors(true);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->horizontalHeader()->setStretchLastSection(true);
  view->setWordWrap(false);
  return view;
}

}  // namespace fathom::views
