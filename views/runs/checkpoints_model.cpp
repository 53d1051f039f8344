// SPDX-License-Identifier: Apache-2.0
#include "runs/checkpoints_model.h"

#include "common/formatting.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QLocale>

#include <cmath>

namespace fathom::views {

CheckpointsModel::CheckpointsModel(QObject* parent) : QAbstractTableModel(parent) {}

void CheckpointsModel::setArtifacts(const std::vector<store::ArtifactRow>& artifacts) {
  beginResetModel();
  m_rows.clear();
  for (const store::ArtifactRow& row : artifacts) {
    if (row.artifact.kind == store::ArtifactKind::Checkpoint)
      m_rows.push_back(row);
  }
  endResetModel();
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
  if (role == PathRole)
    return path;
  if (role == Qt::ToolTipRole)
    return QDir::toNativeSeparators(path);
  if (role == Qt::TextAlignmentRole && index.column() == SizeColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole)
    return {};
  switch (index.column()) {
  case NameColumn: return QFileInfo(path).fileName();
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
