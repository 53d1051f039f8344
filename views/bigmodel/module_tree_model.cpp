// SPDX-License-Identifier: Apache-2.0
#include "bigmodel/module_tree_model.h"

#include "bigmodel/device_map_document.h"
#include "bigmodel/device_palette.h"
#include "common/formatting.h"

#include <QFont>
#include <QMimeData>

using namespace Qt::StringLiterals;

namespace fathom::views {

namespace bm = bigmodel;

ModuleTreeModel::ModuleTreeModel(DeviceMapDocument* document, QObject* parent)
    : QAbstractItemModel(parent), m_document(document) {
  connect(document, &DeviceMapDocument::modelChanged, this, &ModuleTreeModel::rebuild);
  connect(document, &DeviceMapDocument::planChanged, this, &ModuleTreeModel::planChanged);
  rebuild();
}

void ModuleTreeModel::rebuild() {
  beginResetModel();
  m_parent.clear();
  m_row.clear();
  if (m_document->hasModel()) {
    const bm::ModuleTree& tree = *m_document->model().tree;
    m_parent.assign(tree.modules().size(), 0);
    m_row.assign(tree.modules().size(), 0);
    for (std::size_t i = 0; i < tree.modules().size(); ++i) {
      const std::vector<std::size_t>& children = tree.childIndexes(i);
      for (std::size_t k = 0; k < children.size(); ++k) {
        m_parent[children[k]] = i;
        m_row[children[k]] = static_cast<int>(k);
      }
    }
  }
  endResetModel();
}

void ModuleTreeModel::planChanged() {
  if (m_parent.empty()) {
    return;
  }
  // One range per parent: the root row, then each module's children.
  emit dataChanged(createIndex(0, 0, quintptr(0)), createIndex(0, ColumnCount - 1, quintptr(0)));
  const bm::ModuleTree& tree = *m_document->model().tree;
  for (std::size_t i = 0; i < m_parent.size(); ++i) {
    const std::vector<std::size_t>& children = tree.childIndexes(i);
    if (!children.empty()) {
      emit dataChanged(createIndex(0, 0, quintptr(children.front())),
                       createIndex(int(children.size()) - 1, ColumnCount - 1, quintptr(children.back())));
    }
  }
}

QModelIndex ModuleTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount || m_parent.empty()) {
    return {};
  }
  if (!parent.isValid()) {
    return row == 0 ? createIndex(0, column, quintptr(0)) : QModelIndex();
  }
  if (parent.column() != 0) {
    return {};
  }
  const std::vector<std::size_t>& children = m_document->model().tree->childIndexes(moduleOf(parent));
  return row < int(children.size()) ? createIndex(row, column, quintptr(children[std::size_t(row)])) : QModelIndex();
}

QModelIndex ModuleTreeModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || moduleOf(child) == 0) {
    return {};
  }
  const std::size_t p = m_parent[moduleOf(child)];
  return createIndex(m_row[p], 0, quintptr(p));
}

int ModuleTreeModel::rowCount(const QModelIndex& parent) const {
  if (m_parent.empty()) {
    return 0;
  }
  if (!parent.isValid()) {
    return 1;
  }
  if (parent.column() != 0) {
    return 0;
  }
  return int(m_document->model().tree->childIndexes(moduleOf(parent)).size());
}

int ModuleTreeModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() && parent.column() != 0 ? 0 : ColumnCount;
}

QVariant ModuleTreeModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) {
    return {};
  }
  const bm::ModuleInfo& module = m_document->model().tree->module(moduleOf(index));
  const std::vector<bm::DeviceKey> devices = m_document->devicesOf(module.name);
  QStringList labels;
  QStringList keys;
  for (const bm::DeviceKey& d : devices) {
    labels << deviceLabel(d);
    keys << QString::fromStdString(d.toString());
  }
  const double size = m_document->sizes()[module.name];
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case NameColumn:
      return module.name.empty() ? tr("(model)")
                                 : QString::fromStdString(module.name.substr(module.name.rfind('.') + 1));
    case ClassColumn: return QString::fromStdString(module.className);
    case SizeColumn: return format::bytes(size);
    case DeviceColumn: return labels.join(u", "_s);
    }
    return {};
  case Qt::EditRole: return index.column() == DeviceColumn && !keys.isEmpty() ? QVariant(keys.front()) : QVariant();
  case Qt::ToolTipRole:
    return tr("%1 (%2): %3 on %4.\nDrag it onto a device bar, or onto a module on another device, to move it there.")
        .arg(module.name.empty() ? tr("the model") : QString::fromStdString(module.name),
             QString::fromStdString(module.className), format::bytes(size),
             labels.isEmpty() ? tr("no device") : labels.join(u", "_s));
  case Qt::DecorationRole:  // a swatch of the device's colour, as on its bar
    return index.column() == DeviceColumn && devices.size() == 1 ? QVariant(deviceColor(devices.front())) : QVariant();
  case Qt::BackgroundRole: return devices.size() == 1 ? QVariant(deviceTint(devices.front())) : QVariant();
  case Qt::ForegroundRole: return devices.size() == 1 ? QVariant(QColor(Qt::black)) : QVariant();
  case Qt::FontRole: {
    if (!m_document->isMoved(module.name)) {
      return {};
    }
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  case Qt::TextAlignmentRole:
    return index.column() == SizeColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
  case FullNameRole: return QString::fromStdString(module.name);
  case SizeRole: return size;
  case DevicesRole: return keys;
  case MovedRole: return m_document->isMoved(module.name);
  }
  return {};
}

QVariant ModuleTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case NameColumn: return tr("Module");
  case ClassColumn: return tr("Class");
  case SizeColumn: return tr("Size");
  case DeviceColumn: return tr("Device");
  }
  return {};
}

Qt::ItemFlags ModuleTreeModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) {
    return Qt::NoItemFlags;
  }
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (m_document->hasPlan()) {
    f |= Qt::ItemIsDragEnabled | Qt::ItemIsDropEnabled;
    if (index.column() == DeviceColumn) {
      f |= Qt::ItemIsEditable;
    }
  }
  return f;
}

bool ModuleTreeModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || index.column() != DeviceColumn || role != Qt::EditRole) {
    return false;
  }
  const std::optional<bm::DeviceKey> device = bm::DeviceKey::parse(value.toString().toStdString());
  if (!device) {
    return false;
  }
  const std::string& name = m_document->model().tree->module(moduleOf(index)).name;
  if (m_document->devicesOf(name) == std::vector<bm::DeviceKey>{*device}) {
    return true;  // already there
  }
  return m_document->moveModule(name, *device);
}

QStringList ModuleTreeModel::mimeTypes() const {
  return {QString::fromLatin1(kMimeType)};
}

QMimeData* ModuleTreeModel::mimeData(const QModelIndexList& indexes) const {
  if (indexes.isEmpty() || !indexes.front().isValid()) {
    return nullptr;
  }
  auto* data = new QMimeData();
  data->setData(QString::fromLatin1(kMimeType),
                QByteArray::fromStdString(m_document->model().tree->module(moduleOf(indexes.front())).name));
  return data;
}

Qt::DropActions ModuleTreeModel::supportedDragActions() const {
  return Qt::MoveAction;
}

Qt::DropActions ModuleTreeModel::supportedDropActions() const {
  return Qt::MoveAction;
}

bool ModuleTreeModel::canDropMimeData(const QMimeData* data, Qt::DropAction, int row, int,
                                      const QModelIndex& parent) const {
  if (data == nullptr || !data->hasFormat(QString::fromLatin1(kMimeType)) || !parent.isValid() || row != -1 ||
      !m_document->hasPlan()) {
    return false;
  }
  return m_document->devicesOf(m_document->model().tree->module(moduleOf(parent)).name).size() == 1;
}

bool ModuleTreeModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                                   const QModelIndex& parent) {
  if (!canDropMimeData(data, action, row, column, parent)) {
    return false;
  }
  const bm::DeviceKey device = m_document->devicesOf(m_document->model().tree->module(moduleOf(parent)).name).front();
  return m_document->moveModule(data->data(QString::fromLatin1(kMimeType)).toStdString(), device);
}

QModelIndex ModuleTreeModel::indexOf(const QString& name, int column) const {
  if (m_parent.empty()) {
    return {};
  }
  const std::optional<std::size_t> module = m_document->model().tree->findModule(name.toStdString());
  return module ? createIndex(m_row[*module], column, quintptr(*module)) : QModelIndex();
}

}  // namespace fathom::views
