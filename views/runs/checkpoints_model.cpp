// SPDX-License-Identifier: Apache-2.0
#include "runs/checkpoints_model.h"

#include "common/formatting.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QLocale>

#include <cmath>

namespace fathom::views {

using namespace Qt::StringLiterals;

CheckpointsModel::CheckpointsModel(QObject* parent) : QAbstractTableModel(parent) {}

void CheckpointsModel::setArtifacts(const std::vector<store::ArtifactRow>& artifacts) {
  beginResetModel();
  m_rows.clear();
  m_present.clear();
  for (const store::ArtifactRow& row : artifacts) {
    if (row.artifact.kind == store::ArtifactKind::Checkpoint) {
      m_rows.push_back(row);
      m_present.push_back(QFileInfo::exists(QString::fromStdString(row.artifact.path) + u"/manifest.json"_s));
    }
  }
  endResetModel();
}

Qt::ItemFlags CheckpointsModel::flags(const QModelIndex& index) const {
  if (!index.isValid() || index.row() >= rowCount())
    return Qt::NoItemFlags;
  return m_present[static_cast<std::size_t>(index.row())] ? Qt::ItemIsEnabled | Qt::ItemIsSelectable : Qt::NoItemFlags;
}

int CheckpointsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int CheckpointsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CheckpointsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount())
    return {};
  const store::ArtifactRow& row = m_rows[static_cast<std::size_t>(index.row())];
  const QString path = QString::fromStdString(row.artifact.path);
  const bool present = m_present[static_cast<std::size_t>(index.row())];
  if (role == PathRole)
    return path;
  if (role == Qt::ToolTipRole)
    return present ? QDir::toNativeSeparators(path)
                   : tr("%1 no longer holds this checkpoint: deleted by --save_total_limit rotation or by hand.")
                         .arg(QDir::toNativeSeparators(path));
  if (role == Qt::TextAlignmentRole && index.column() == SizeColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole)
    return {};
  switch (index.column()) {
  case NameColumn: return present ? QFileInfo(path).fileName() : tr("%1 (deleted)").arg(QFileInfo(path).fileName());
  case SizeColumn: return format::bytes(static_cast<double>(row.artifact.bytes));
  case SavedColumn:
    return QLocale().toString(QDateTime::fromMSecsSinceEpoch(std::llround(row.createdAt * 1000.0)).toLocalTime(),
                              QLocale::ShortFormat);
  case PathColumn: return QDir::toNativeSeparators(path);
  default: return {};
  }
}

QVariant CheckpointsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return {};
  switch (section) {
  case NameColumn: return tr("Checkpoint");
  case SizeColumn: return tr("Size");
  case SavedColumn: return tr("Saved");
  case PathColumn: return tr("Folder");
  default: return {};
  }
}

}  // namespace fathom::views
