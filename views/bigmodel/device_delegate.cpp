// SPDX-License-Identifier: Apache-2.0
#include "bigmodel/device_delegate.h"

#include "bigmodel/device_map_document.h"
#include "bigmodel/device_palette.h"

#include <QComboBox>
#include <QPixmap>

using namespace Qt::StringLiterals;

namespace fathom::views {

DeviceDelegate::DeviceDelegate(const DeviceMapDocument* document, QObject* parent)
    : QStyledItemDelegate(parent), m_document(document) {}

QWidget* DeviceDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex&) const {
  auto* combo = new QComboBox(parent);
  combo->setObjectName(u"deviceEditor"_s);
  for (const bigmodel::DeviceKey& device : m_document->devices()) {
    QPixmap swatch(12, 12);
    swatch.fill(deviceColor(device));
    combo->addItem(QIcon(swatch), deviceLabel(device), QString::fromStdString(device.toString()));
  }
  connect(combo, &QComboBox::activated, this, &DeviceDelegate::commitAndClose);
  return combo;
}

void DeviceDelegate::commitAndClose() {
  if (auto* editor = qobject_cast<QWidget*>(sender())) {
    emit commitData(editor);
    emit closeEditor(editor);
  }
}

void DeviceDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const {
  auto* combo = static_cast<QComboBox*>(editor);
  const int at = combo->findData(index.data(Qt::EditRole));
  combo->setCurrentIndex(std::max(0, at));
}

void DeviceDelegate::setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const {
  model->setData(index, static_cast<QComboBox*>(editor)->currentData(), Qt::EditRole);
}

}  // namespace fathom::views
