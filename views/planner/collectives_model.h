// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/prediction.h>

#include <QAbstractTableModel>

#include <vector>

namespace fathom::views {

/// The collectives one optimizer step issues under a plan (plan::Collective, as `fathom plan` lists them): kind,
/// purpose, whole-buffer bytes summed over the calls, calls, group, scope, bytes one rank sends, time, overlap.
class CollectivesModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column {
    KindColumn,
    PurposeColumn,
    BytesColumn,
    CallsColumn,
    GroupColumn,
    ScopeColumn,
    SentPerRankColumn,
    TimeColumn,
    OverlapColumn,
    ColumnCount
  };
  enum Role {
    /// The raw value (bytes, seconds, counts) for sorting and export.
    ValueRole = Qt::UserRole + 1,
  };

  explicit CollectivesModel(QObject* parent = nullptr);

  void setCollectives(const std::vector<plan::Collective>& collectives);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::vector<plan::Collective> m_rows;
};

}  // namespace fathom::views
