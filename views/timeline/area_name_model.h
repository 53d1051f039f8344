// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/timeline_queries.h>

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace fathom::views {

/// An area selection's slices per name (trace::AreaAggregation::byName, Perfetto's area aggregation): one row per
/// name, columns name, count, total, mean, max. Display: times formatted (time_coords.h's formatTime); SortRole: the
/// raw numbers (ns, counts) and the name, for a QSortFilterProxyModel. Rows come in the aggregation's order (total,
/// descending).
class AreaNameModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { NameColumn, CountColumn, TotalColumn, MeanColumn, MaxColumn, ColumnCount };
  enum Role { SortRole = Qt::UserRole };

  explicit AreaNameModel(QObject* parent = nullptr);

  /// Shows `rows` of `index` (which interns their names); resets the model.
  void setRows(std::shared_ptr<const trace::TimelineIndex> index, std::vector<trace::NameAggregate> rows);
  void clear();
  const std::vector<trace::NameAggregate>& rows() const { return m_rows; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::shared_ptr<const trace::TimelineIndex> m_index;
  std::vector<trace::NameAggregate> m_rows;
};

}  // namespace fathom::views
