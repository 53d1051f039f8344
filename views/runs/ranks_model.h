// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/records.h>

#include <QAbstractTableModel>
#include <QList>

#include <vector>

namespace fathom::views {

/// The processes of one run (store::RankInfo rows, by rank). Empty until setRanks(), which resets the model.
class RanksModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { RankColumn, HostColumn, PidColumn, DeviceColumn, ExitCodeColumn, ColumnCount };
  enum Role {
    /// The column's value for sorting (numbers as numbers).
    SortRole = Qt::UserRole + 1,
  };

  explicit RanksModel(QObject* parent = nullptr);

  void setRanks(const std::vector<store::RankInfo>& ranks);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::vector<store::RankInfo> m_ranks;
};

}  // namespace fathom::views
