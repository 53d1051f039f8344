// SPDX-License-Identifier: Apache-2.0
#include "common/environment_model.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace

EnvironmentModel::EnvironmentModel(QObject* parent) : QAbstractTableModel(parent) {}

void EnvironmentModel::setReport(const runtime::EnvironmentReport& r) {
  beginResetModel();
  m_rows.clear();
  const QLocale locale;
  auto yesNo = [](bool v) { return v ? tr("available") : tr("not available"); };
  auto add = [this](QString key, QString property, QString value, QVariant available = {}, QString detail = {}) {
    m_rows.append(Row{std::move(key), std::move(property), std::move(value), std::move(available), std::move(detail)});
  };

  add(u"fathom_version"_s, tr("Fathom version"),
      tr("%1 (git %2, %3)").arg(qs(r.build.version), qs(r.build.gitRevision), qs(r.build.buildType)));
  add(u"platform"_s, tr("Platform"),
      r.system.osName.empty() ? qs(r.system.platform) : u"%1 (%2)"_s.arg(qs(r.system.platform), qs(r.system.osName)));
  add(u"cpu_cores"_s, tr("CPU"), tr("%1, %n core(s)", nullptr, r.system.cpuCores).arg(qs(r.system.cpuModel)));
  add(u"ram_bytes"_s, tr("System RAM"), locale.formattedDataSize(static_cast<qint64>(r.system.ramBytes), 1));
  add(u"libtorch_version"_s, tr("LibTorch version"),
      r.libtorchCuda ? tr("%1 (CUDA)").arg(qs(r.libtorchVersion)) : tr("%1 (CPU only)").arg(qs(r.libtorchVersion)));
  add(u"gloo_available"_s, tr("c10d Gloo"), yesNo(r.glooAvailable), r.glooAvailable, qs(r.glooDetail));
  add(u"nccl_available"_s, tr("c10d NCCL"), yesNo(r.ncclAvailable), r.ncclAvailable, qs(r.ncclDetail));
  QString devices = tr("%n CUDA device(s)", nullptr, r.cudaDeviceCount());
  for (const auto& d : r.cuda.devices) {
    devices += u"\n"_s + u"cuda:%1 %2 (%3)"_s.arg(d.index).arg(
                             qs(d.name), locale.formattedDataSize(static_cast<qint64>(d.totalMemoryBytes), 1));
  }
  add(u"cuda_device_count"_s, tr("CUDA devices"), devices, r.cudaDeviceCount() > 0, qs(r.cuda.driverDetail));
  add(u"cupti_available"_s, tr("CUPTI"), yesNo(r.cuptiAvailable), r.cuptiAvailable, qs(r.cuda.cuptiDetail));
  add(u"qt_version"_s, tr("Qt version"), r.qtVersion.empty() ? tr("CLI-only build") : qs(r.qtVersion));
  add(u"default_config_path"_s, tr("Default config"),
      r.defaultConfigExists ? qs(r.defaultConfigPath.string())
                            : tr("%1 (not found)").arg(qs(r.defaultConfigPath.string())),
      r.defaultConfigExists, qs(r.defaultConfigContent));
  m_hasReport = true;
  endResetModel();
}

int EnvironmentModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int EnvironmentModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant EnvironmentModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const Row& row = m_rows.at(index.row());
  switch (role) {
  case Qt::DisplayRole: return index.column() == PropertyColumn ? row.property : row.value;
  case Qt::ToolTipRole: return row.detail.isEmpty() ? QVariant() : QVariant(row.detail);
  case Qt::ForegroundRole:
    if (index.column() == ValueColumn && row.available.isValid()) {
      return QBrush(row.available.toBool() ? QColor(0x1b, 0x7f, 0x3b) : QColor(0x8a, 0x8a, 0x8a));
    }
    return {};
  case AvailableRole: return row.available;
  case KeyRole: return row.key;
  default: return {};
  }
}

QVariant EnvironmentModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case PropertyColumn: return tr("Property");
  case ValueColumn: return tr("Value");
  default: return {};
  }
}

}  // namespace fathom::views
