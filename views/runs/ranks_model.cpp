// SPDX-License-Identifier: Apache-2.0
#include "runs/ranks_model.h"

#include <QBrush>
#include <QColor>

using namespace Qt::StringLiterals;

namespace fathom::views {

RanksModel::RanksModel(QObject* parent) : QAbstractTableModel(parent) {}

void RanksModel::setRanks(const std::vector<store::RankInfo>& ranks) {
  beginResetModel();
  m_ranks = ranks;
  endResetModel();
}

int RanksModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_ranks.size());
}

int RanksModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RanksModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const store::RankInfo& r = m_ranks.at(static_cast<std::size_t>(index.row()));
  if (role == Qt::DisplayRole || role == SortRole) {
    switch (index.column()) {
    case RankColumn: return r.rank;
    case HostColumn: return QString::fromStdString(r.host);
    case PidColumn: return QVariant::fromValue<qint64>(r.pid);
    case DeviceColumn:
      return r.device.empty() ? (role == SortRole ? QString() : u"–"_s) : QString::fromStdString(r.device);
    case ExitCodeColumn:
      if (!r.exitCode) {
        return role == SortRole ? QVariant(-1) : QVariant(tr("running"));
      }
      return *r.exitCode;
    default: return {};
    }
  }
  if (role == Qt::ForegroundRole && index.column() == ExitCodeColumn && r.exitCode) {
    return QBrush(*r.exitCode == 0 ? QColor(0x1b, 0x7f, 0x3b) : QColor(0xb3, 0x26, 0x1e));
  }
  if (role == Qt::TextAlignmentRole && index.column() != HostColumn && index.column() != DeviceColumn) {
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  return {};
}

QVariant RanksModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case RankColumn: return tr("Rank");
  case HostColumn: return tr("Host");
  case PidColumn: return tr("PID");
  case DeviceColumn: return tr("Device");
  case ExitCodeColumn: return tr("Exit code");
  default: return {};
  }
}

}  // namespace fathom::views
