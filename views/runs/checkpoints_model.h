// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/records.h>

#include <QAbstractTableModel>

#include <vector>

namespace fathom::views {

/// A run's checkpoints: its artifacts of kind "checkpoint" (store::ArtifactRow, what Accelerator::saveState() records
/// once a checkpoint is published), one row each in the order they were saved: the folder's name, the bytes of its
/// files, when it was recorded, and its path. Other artifacts (traces, exports) are left out. A row stays after
/// rotation (or a user) deleted its folder, as the workspace keeps the record: it then reads "(deleted)" and is
/// disabled, so it cannot be chosen to resume from. Whether a folder is there is read by setArtifacts().
class CheckpointsModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { NameColumn, SizeColumn, SavedColumn, PathColumn, ColumnCount };
  enum Role {
    /// The checkpoint folder's absolute path (any column).
    PathRole = Qt::UserRole + 1,
  };

  explicit CheckpointsModel(QObject* parent = nullptr);

  /// Replaces the rows with the checkpoint artifacts among `artifacts`.
  void setArtifacts(const std::vector<store::ArtifactRow>& artifacts);

  Qt::ItemFlags flags(const QModelIndex& index) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::vector<store::ArtifactRow> m_rows;
  std::vector<bool> m_present;  ///< per row: the folder still holds a published checkpoint (its manifest.json)
};

}  // namespace fathom::views
