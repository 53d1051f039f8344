// SPDX-License-Identifier: Apache-2.0
#include "planner/collectives_model.h"

#include "common/formatting.h"

#include <fathom/plan/report.h>

using namespace Qt::StringLiterals;

namespace fathom::views {

CollectivesModel::CollectivesModel(QObject* parent) : QAbstractTableModel(parent) {}

void CollectivesModel::setCollectives(const std::vector<plan::Collective>& collectives) {
  beginResetModel();
  m_rows = collectives;
  endResetModel();
}

int CollectivesModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CollectivesModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CollectivesModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const plan::Collective& c = m_rows.at(static_cast<std::size_t>(index.row()));
  if (role == ValueRole) {
    switch (index.column()) {
    case KindColumn: return QString::fromLatin1(plan::toString(c.kind));
    case PurposeColumn: return QString::fromStdString(c.purpose);
    case BytesColumn: return c.bytes;
    case CallsColumn: return QVariant::fromValue<qint64>(c.count);
    case GroupColumn: return c.groupSize;
    case ScopeColumn: return QString::fromLatin1(plan::toString(c.scope));
    case SentPerRankColumn: return c.bytesSentPerRank;
    case TimeColumn: return c.timeS;
    case OverlapColumn: return c.overlapped;
    default: return {};
    }
  }
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
    case KindColumn:
    case PurposeColumn: return data(index, ValueRole);
    case BytesColumn: return format::bytes(c.bytes);
    case CallsColumn: return QVariant::fromValue<qint64>(c.count);
    case GroupColumn: return c.groupSize;
    case ScopeColumn: return c.scope == plan::Scope::IntraNode ? tr("intra-node") : tr("inter-node");
    case SentPerRankColumn: return format::bytes(c.bytesSentPerRank);
    case TimeColumn: return format::duration(c.timeS);
    case OverlapColumn:
      return c.overlapped ? (c.perMicroStep ? tr("overlapped, every micro-step") : tr("overlapped"))
                          : (c.perMicroStep ? tr("exposed, every micro-step") : tr("exposed"));
    default: return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    return QString::fromStdString(plan::formatCollective(c));
  }
  if (role == Qt::TextAlignmentRole && index.column() != KindColumn && index.column() != PurposeColumn &&
      index.column() != ScopeColumn && index.column() != OverlapColumn) {
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  return {};
}

QVariant CollectivesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case KindColumn: return tr("Collective");
  case PurposeColumn: return tr("Purpose");
  case BytesColumn: return tr("Buffer bytes");
  case CallsColumn: return tr("Calls");
  case GroupColumn: return tr("Group");
  case ScopeColumn: return tr("Scope");
  case SentPerRankColumn: return tr("Sent per GPU");
  case TimeColumn: return tr("Time");
  case OverlapColumn: return tr("Overlap");
  default: return {};
  }
}

}  // namespace fathom::views
