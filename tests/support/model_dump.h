// SPDX-License-Identifier: Apache-2.0
// Item model tests compare a printed dump of what a model shows (hotspot's tst_models style).
#pragma once

#include <QAbstractItemModel>
#include <QLocale>
#include <QStringList>

#include <ctime>

namespace fathom::test {

/// Makes dumps the same on every machine: times in UTC, numbers and dates in US English. Call in initTestCase().
inline void useFixedLocale() {
  qputenv("TZ", "UTC");
  tzset();
  QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

/// Every row of `model` as its cells' display texts joined by " | ".
inline QStringList dumpRows(const QAbstractItemModel& model) {
  QStringList rows;
  for (int r = 0; r < model.rowCount(); ++r) {
    QStringList cells;
    for (int c = 0; c < model.columnCount(); ++c) {
      cells << model.index(r, c).data().toString();
    }
    rows << cells.join(QStringLiteral(" | "));
  }
  return rows;
}

/// One column's display texts, top to bottom.
inline QStringList dumpColumn(const QAbstractItemModel& model, int column, int role = Qt::DisplayRole) {
  QStringList out;
  for (int r = 0; r < model.rowCount(); ++r) {
    out << model.index(r, column).data(role).toString();
  }
  return out;
}

}  // namespace fathom::test
