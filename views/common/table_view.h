// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

class QAbstractItemModel;
class QTableView;
class QWidget;

namespace fathom::views {

/// The pages' read-only tables: `model` through a sort proxy (by `sortRole`, unsorted until a header is clicked),
/// no row numbers, alternating rows, whole-row selection, no word wrap, the last column stretched.
QTableView* sortableTable(QAbstractItemModel* model, int sortRole, QWidget* parent, const QString& objectName);

}  // namespace fathom::views
