// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStyledItemDelegate>

namespace fathom::views {

class DeviceMapDocument;

/// The module tree's Device cell as a combo box of the document's devices: choosing one writes its name
/// (DeviceKey::toString) to the model, which moves the module there.
class DeviceDelegate : public QStyledItemDelegate {
  Q_OBJECT

public:
  explicit DeviceDelegate(const DeviceMapDocument* document, QObject* parent = nullptr);

  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  void setEditorData(QWidget* editor, const QModelIndex& index) const override;
  void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override;

private:
  /// A choice applies at once (a combo box in a cell otherwise waits for the focus to leave).
  void commitAndClose();

  const DeviceMapDocument* m_document;
};

}  // namespace fathom::views
