// SPDX-License-Identifier: Apache-2.0
#include "runs/config_diff_model.h"

#include <QBrush>
#include <QColor>

using namespace Qt::StringLiterals;

namespace fathom::views {

ConfigDiffModel::ConfigDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void ConfigDiffModel::setComparison(const store::RunComparison& comparison) {
  beginResetModel();
  m_rows = comparison.configDifferences;
  m_runs.clear();
  for (const store::RunSummary& s : comparison.runs) {
    m_runs << tr("Run %1: %2").arg(s.info.id.value).arg(QString::fromStdString(s.info.name));
  }
  endResetModel();
}

int ConfigDiffModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ConfigDiffModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : FirstRunColumn + static_cast<int>(m_runs.size());
}

QVariant ConfigDiffModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const store::ConfigDifference& d = m_rows.at(static_cast<std::size_t>(index.row()));
  if (index.column() == KeyColumn) {
    return role == Qt::DisplayRole ? QVariant(QString::fromStdString(d.key)) : QVariant();
  }
  const auto run = static_cast<std::size_t>(index.column() - FirstRunColumn);
  const bool set = run < d.values.size() && d.values[run].has_value();
  switch (role) {
  case Qt::DisplayRole: return set ? QString::fromStdString(*d.values[run]) : tr("(not set)");
  case Qt::ForegroundRole: return set ? QVariant() : QVariant(QBrush(QColor(0x80, 0x80, 0x80)));
  default: return {};
  }
}

QVariant ConfigDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount()) {
    return {};
  }
  return section == KeyColumn ? tr("Key") : m_runs.at(section - FirstRunColumn);
}

}  // namespace fathom::views
