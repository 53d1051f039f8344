// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/runtime/environment.h>

#include <QAbstractTableModel>
#include <QList>
#include <QString>

namespace fathom::views {

/// Two-column table (property, value) over an EnvironmentReport, in the order `fathom env` prints it.
/// Empty until setReport(); setReport() resets the model.
class EnvironmentModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { PropertyColumn, ValueColumn, ColumnCount };
  enum Role {
    /// bool: the row reports something usable (true), missing (false); invalid for plain facts.
    AvailableRole = Qt::UserRole + 1,
    /// QString: the stable JSON key of the row, as in `fathom env --json` (e.g. "gloo_available").
    KeyRole,
  };

  explicit EnvironmentModel(QObject* parent = nullptr);

  void setReport(const runtime::EnvironmentReport& report);
  bool hasReport() const { return m_hasReport; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  struct Row {
    QString key;
    QString property;
    QString value;
    QVariant available;  // bool or invalid
    QString detail;      // tooltip
  };
  QList<Row> m_rows;
  bool m_hasReport = false;
};

}  // namespace fathom::views
