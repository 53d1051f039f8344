// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractProxyModel>
#include <QString>

#include <vector>

namespace fathom::views {

/// Groups the rows of a flat table model (the live ranks) under one parent row per distinct value of a key column
/// (the host), in order of first appearance: the run page's ranks of a multi-node run, grouped by host. With fewer
/// than two distinct keys it is flat (the source's rows at the top level), so a run on one machine looks as before.
/// A group row shows its key and its row count in the first column ("h2 (2 ranks)") and the key in the key column;
/// the other columns are empty. The grouping is rebuilt (a model reset) when the source's rows come or go or a row's
/// key changes; other changes are forwarded as dataChanged of the mapped cells.
class HostGroupProxy : public QAbstractProxyModel {
  Q_OBJECT

public:
  /// `keyColumn`: the source column whose DisplayRole groups the rows; `sortRole`: the role a sorting proxy above
  /// reads (group rows answer it with their key).
  HostGroupProxy(int keyColumn, int sortRole, QObject* parent = nullptr);

  void setSourceModel(QAbstractItemModel* source) override;

  /// Whether the rows are grouped now (at least two distinct keys).
  bool grouped() const { return m_groups.size() >= 2; }

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  bool hasChildren(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  /// The source's column headers (QAbstractProxyModel's default maps a section through row 0, which may be a
  /// group row without a source row: the headers came out blank).
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QModelIndex mapToSource(const QModelIndex& proxy) const override;
  QModelIndex mapFromSource(const QModelIndex& source) const override;

private:
  struct Group {
    QString key;
    std::vector<int> rows;  ///< source rows, in source order
  };
  /// Internal ids: 0 = a top-level row (a group, or a source row when flat); g + 1 = a row of group g.
  static constexpr quintptr kTop = 0;

  QString keyOf(int sourceRow) const;
  void rebuild();
  void sourceDataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight, const QList<int>& roles);

  int m_keyColumn;
  int m_sortRole;
  std::vector<Group> m_groups;
  /// Per source row: (group, position in it).
  std::vector<std::pair<int, int>> m_position;
};

}  // namespace fathom::views
