// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractItemModel>

#include <vector>

namespace fathom::views {

class DeviceMapDocument;

/// A model's modules as a tree (the root module the one top-level row, children in registration order), each row
/// with its size (compute_module_sizes at the document's dtype) and the device(s) the document's map puts it on,
/// tinted by that device. A row can be dragged (kMimeType: its dotted name) and dropped on a row of another device, or
/// its Device cell edited (a device name, as DeviceKey::toString writes it): either moves the module there through
/// DeviceMapDocument::moveModule. Nothing is computed here: sizes and devices are the document's.
class ModuleTreeModel : public QAbstractItemModel {
  Q_OBJECT

public:
  enum Column { NameColumn, ClassColumn, SizeColumn, DeviceColumn, ColumnCount };
  enum Role {
    FullNameRole = Qt::UserRole,  ///< QString: the dotted module name ("" for the model)
    SizeRole,                     ///< double: bytes
    DevicesRole,                  ///< QStringList: the devices it is on, as DeviceKey::toString writes them
    MovedRole,                    ///< bool: moved by hand (a move of this very module is in force)
  };
  /// What a dragged row carries: its dotted name in UTF-8.
  static constexpr const char* kMimeType = "application/x-fathom-module";

  explicit ModuleTreeModel(DeviceMapDocument* document, QObject* parent = nullptr);

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  /// DeviceColumn, EditRole: moves the module to the device named by `value` ("0", "cpu", "disk").
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

  QStringList mimeTypes() const override;
  QMimeData* mimeData(const QModelIndexList& indexes) const override;
  Qt::DropActions supportedDragActions() const override;
  Qt::DropActions supportedDropActions() const override;
  /// Only onto a row (not between rows) that is on one device.
  bool canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                       const QModelIndex& parent) const override;
  /// Moves the dragged module to the device of the row it is dropped on.
  bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                    const QModelIndex& parent) override;

  /// The row of the module with this dotted name, or an invalid index.
  QModelIndex indexOf(const QString& name, int column = NameColumn) const;

private:
  void rebuild();
  void planChanged();
  std::size_t moduleOf(const QModelIndex& index) const { return static_cast<std::size_t>(index.internalId()); }

  DeviceMapDocument* m_document;
  std::vector<std::size_t> m_parent;  ///< by module index (pre-order); the root's is itself
  std::vector<int> m_row;             ///< a module's row under its parent
};

}  // namespace fathom::views
