// SPDX-License-Identifier: Apache-2.0
#include "runs/host_group_proxy.h"

#include <map>

namespace fathom::views {

HostGroupProxy::HostGroupProxy(int keyColumn, int sortRole, QObject* parent)
    : QAbstractProxyModel(parent), m_keyColumn(keyColumn), m_sortRole(sortRole) {}

void HostGroupProxy::setSourceModel(QAbstractItemModel* source) {
  if (sourceModel() != nullptr) {
    disconnect(sourceModel(), nullptr, this, nullptr);
  }
  QAbstractProxyModel::setSourceModel(source);
  if (source != nullptr) {
    // Structure changes regroup (rare: a rank appears, a run is cleared); value changes are forwarded.
    for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved}) {
      connect(source, signal, this, [this] { rebuild(); });
    }
    connect(source, &QAbstractItemModel::rowsMoved, this, [this] { rebuild(); });
    connect(source, &QAbstractItemModel::modelReset, this, [this] { rebuild(); });
    connect(source, &QAbstractItemModel::layoutChanged, this, [this] { rebuild(); });
    connect(source, &QAbstractItemModel::dataChanged, this, &HostGroupProxy::sourceDataChanged);
    connect(source, &QAbstractItemModel::headerDataChanged, this, &QAbstractItemModel::headerDataChanged);
  }
  rebuild();
}

QString HostGroupProxy::keyOf(int sourceRow) const {
  return sourceModel()->index(sourceRow, m_keyColumn).data(Qt::DisplayRole).toString();
}

void HostGroupProxy::rebuild() {
  QAbstractItemModel* source = sourceModel();
  std::vector<Group> groups;
  std::vector<std::pair<int, int>> position;
  if (source != nullptr) {
    std::map<QString, int> byKey;
    const int rows = source->rowCount();
    position.resize(static_cast<std::size_t>(rows));
    for (int row = 0; row < rows; ++row) {
      const QString key = keyOf(row);
      auto [it, added] = byKey.emplace(key, static_cast<int>(groups.size()));
      if (added) {
        groups.push_back({key, {}});
      }
      Group& g = groups[static_cast<std::size_t>(it->second)];
      position[static_cast<std::size_t>(row)] = {it->second, static_cast<int>(g.rows.size())};
      g.rows.push_back(row);
    }
  }
  beginResetModel();
  m_groups = std::move(groups);
  m_position = std::move(position);
  endResetModel();
}

void HostGroupProxy::sourceDataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight,
                                       const QList<int>& roles) {
  for (int row = topLeft.row(); row <= bottomRight.row(); ++row) {
    const auto [group, pos] = m_position.at(static_cast<std::size_t>(row));
    if (topLeft.column() <= m_keyColumn && m_keyColumn <= bottomRight.column() &&
        keyOf(row) != m_groups[static_cast<std::size_t>(group)].key) {
      rebuild();  // the row moves to another group
      return;
    }
  }
  for (int row = topLeft.row(); row <= bottomRight.row(); ++row) {
    emit dataChanged(mapFromSource(sourceModel()->index(row, topLeft.column())),
                     mapFromSource(sourceModel()->index(row, bottomRight.column())), roles);
  }
}

QModelIndex HostGroupProxy::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= columnCount()) {
    return {};
  }
  if (!parent.isValid()) {
    const int top = grouped() ? static_cast<int>(m_groups.size()) : static_cast<int>(m_position.size());
    return row < top ? createIndex(row, column, kTop) : QModelIndex();
  }
  if (!grouped() || parent.internalId() != kTop || parent.row() >= static_cast<int>(m_groups.size())) {
    return {};
  }
  const Group& g = m_groups[static_cast<std::size_t>(parent.row())];
  return row < static_cast<int>(g.rows.size()) ? createIndex(row, column, static_cast<quintptr>(parent.row()) + 1)
                                               : QModelIndex();
}

QModelIndex HostGroupProxy::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kTop) {
    return {};
  }
  return createIndex(static_cast<int>(child.internalId() - 1), 0, kTop);
}

int HostGroupProxy::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) {
    return grouped() ? static_cast<int>(m_groups.size()) : static_cast<int>(m_position.size());
  }
  if (grouped() && parent.internalId() == kTop && parent.column() == 0) {
    return static_cast<int>(m_groups[static_cast<std::size_t>(parent.row())].rows.size());
  }
  return 0;
}

int HostGroupProxy::columnCount(const QModelIndex&) const {
  return sourceModel() != nullptr ? sourceModel()->columnCount() : 0;
}

bool HostGroupProxy::hasChildren(const QModelIndex& parent) const {
  return rowCount(parent) > 0;
}

QVariant HostGroupProxy::headerData(int section, Qt::Orientation orientation, int role) const {
  if (sourceModel() == nullptr || orientation != Qt::Horizontal) {
    return QAbstractProxyModel::headerData(section, orientation, role);
  }
  return sourceModel()->headerData(section, orientation, role);
}

QVariant HostGroupProxy::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) {
    return {};
  }
  if (!grouped() || index.internalId() != kTop) {
    return QAbstractProxyModel::data(index, role);
  }
  const Group& g = m_groups[static_cast<std::size_t>(index.row())];
  const bool key = index.column() == 0 || index.column() == m_keyColumn;
  if (role == Qt::DisplayRole && index.column() == 0) {
    return tr("%1 (%n rank(s))", nullptr, static_cast<int>(g.rows.size())).arg(g.key);
  }
  if ((role == Qt::DisplayRole && index.column() == m_keyColumn) || (role == m_sortRole && key)) {
    return g.key;
  }
  return {};
}

Qt::ItemFlags HostGroupProxy::flags(const QModelIndex& index) const {
  if (index.isValid() && grouped() && index.internalId() == kTop) {
    return Qt::ItemIsEnabled;
  }
  return QAbstractProxyModel::flags(index);
}

QModelIndex HostGroupProxy::mapToSource(const QModelIndex& proxy) const {
  if (!proxy.isValid() || sourceModel() == nullptr) {
    return {};
  }
  if (!grouped()) {
    return sourceModel()->index(proxy.row(), proxy.column());
  }
  if (proxy.internalId() == kTop) {
    return {};  // a group row has no source row
  }
  const Group& g = m_groups[static_cast<std::size_t>(proxy.internalId() - 1)];
  return sourceModel()->index(g.rows[static_cast<std::size_t>(proxy.row())], proxy.column());
}

QModelIndex HostGroupProxy::mapFromSource(const QModelIndex& source) const {
  if (!source.isValid() || source.row() >= static_cast<int>(m_position.size())) {
    return {};
  }
  if (!grouped()) {
    return createIndex(source.row(), source.column(), kTop);
  }
  const auto [group, pos] = m_position[static_cast<std::size_t>(source.row())];
  return createIndex(pos, source.column(), static_cast<quintptr>(group) + 1);
}

}  // namespace fathom::views
