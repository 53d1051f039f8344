// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/records.h>

#include <QAbstractTableModel>

#include <vector>

namespace fathom::views {

/// A run's metrics, one row per (key, rank): how many points, the last value and its step, the minimum and the
/// maximum (store::MetricSummary, ordered by key then rank). Keys under "memory/" hold bytes and are shown as such.
class MetricSummaryModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { KeyColumn, RankColumn, CountColumn, LastColumn, LastStepColumn, MinColumn, MaxColumn, ColumnCount };
  enum Role {
    /// The column's value for sorting: the raw number (bytes, loss) for value columns.
    SortRole = Qt::UserRole + 1,
  };

  explicit MetricSummaryModel(QObject* parent = nullptr);

  void setSummaries(const std::vector<store::MetricSummary>& summaries);
  /// Folds newly read points into the summaries (a live run): counts, last (at the highest step), min and max
  /// change in place, a new (key, rank) is inserted where it sorts. Never a reset.
  void appendPoints(const std::vector<store::MetricRow>& rows);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::vector<store::MetricSummary> m_rows;
};

}  // namespace fathom::views
