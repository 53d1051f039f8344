// SPDX-License-Identifier: Apache-2.0
#include "timeline/area_name_model.h"

#include "timeline/time_coords.h"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <utility>

namespace fathom::views {

AreaNameModel::AreaNameModel(QObject* parent) : QAbstractTableModel(parent) {}

void AreaNameModel::setRows(std::shared_ptr<const trace::TimelineIndex> index, std::vector<trace::NameAggregate> rows) {
  beginResetModel();
  m_index = std::move(index);
  m_rows = std::move(rows);
  endResetModel();
}

void AreaNameModel::clear() {
  setRows(nullptr, {});
}

int AreaNameModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int AreaNameModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant AreaNameModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
    return {};
  const trace::NameAggregate& a = m_rows[static_cast<std::size_t>(index.row())];
  if (role == SortRole) {
    switch (index.column()) {
    case NameColumn: return QString::fromUtf8(m_index->name(a.name));
    case CountColumn: return static_cast<qulonglong>(a.count);
    case TotalColumn: return static_cast<qlonglong>(a.totalNs);
    case MeanColumn: return a.meanNs();
    case MaxColumn: return static_cast<qlonglong>(a.maxNs);
    default: return {};
    }
  }
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
    case NameColumn: return QString::fromUtf8(m_index->name(a.name));
    case CountColumn: return QLocale().toString(static_cast<qulonglong>(a.count));
    case TotalColumn: return formatDuration(a.totalNs);
    case MeanColumn: return formatDuration(std::llround(a.meanNs()));
    case MaxColumn: return formatDuration(a.maxNs);
    default: return {};
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() != NameColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant AreaNameModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  switch (section) {
  case NameColumn: return tr("Name");
  case CountColumn: return tr("Count");
  case TotalColumn: return tr("Total");
  case MeanColumn: return tr("Mean");
  case MaxColumn: return tr("Max");
  default: return {};
  }
}

}  // namespace fathom::views
