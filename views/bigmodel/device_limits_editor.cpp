// SPDX-License-Identifier: Apache-2.0
#include "bigmodel/device_limits_editor.h"

#include "bigmodel/device_palette.h"
#include "common/wheel_scroll_guard.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>

using namespace Qt::StringLiterals;

namespace fathom::views {

namespace bm = bigmodel;

namespace {

/// Binary units, as Accelerate's "GiB" and Fathom's byte formatting write them (symbols: not translated).
constexpr std::array<const char*, 3> kUnits{"KiB", "MiB", "GiB"};

double unitBytes(int unit) {
  return std::pow(1024.0, unit + 1);
}

QString rowKey(const bm::DeviceKey& device) {
  return QString::fromStdString(device.toString());
}

}  // namespace

DeviceLimitsEditor::DeviceLimitsEditor(QWidget* parent) : QWidget(parent) {
  setObjectName(u"deviceLimitsEditor"_s);
  m_rowsLayout = new QVBoxLayout();
  m_rowsLayout->setContentsMargins(0, 0, 0, 0);
  m_rowsLayout->setSpacing(4);
  m_add = new QPushButton(tr("Add GPU"), this);
  m_add->setObjectName(u"addGpu"_s);
  m_remove = new QPushButton(tr("Remove GPU"), this);
  m_remove->setObjectName(u"removeGpu"_s);
  connect(m_add, &QPushButton::clicked, this, &DeviceLimitsEditor::addGpu);
  connect(m_remove, &QPushButton::clicked, this, &DeviceLimitsEditor::removeGpu);
  auto* disk = new QLabel(tr("Disk: no limit, used last."), this);
  disk->setObjectName(u"diskNote"_s);
  disk->setWordWrap(true);
  auto* buttons = new QHBoxLayout();
  buttons->addWidget(m_add);
  buttons->addWidget(m_remove);
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(m_rowsLayout);
  layout->addWidget(disk);
  layout->addLayout(buttons);
}

bm::MaxMemory DeviceLimitsEditor::maxMemory() const {
  bm::MaxMemory out;
  for (const Row& row : m_rows) {
    out.push_back({row.device, bytesOf(row)});
  }
  return out;
}

void DeviceLimitsEditor::setMaxMemory(const bm::MaxMemory& maxMemory) {
  m_updating = true;
  clearRows();
  std::optional<bm::ByteCount> cpu;
  for (const bm::MemoryLimit& limit : bm::normalizeMaxMemory(maxMemory)) {
    if (limit.device.isGpu()) {
      addRow({bm::DeviceKey::gpu(gpuCount()), limit.bytes});  // GPUs renumbered 0..n-1: a gap means nothing here
    } else if (limit.device == bm::DeviceKey::cpu()) {
      cpu = limit.bytes;
    }
  }
  addRow({bm::DeviceKey::cpu(), cpu.value_or(0)});
  updateButtons();
  m_updating = false;
}

int DeviceLimitsEditor::gpuCount() const {
  return int(std::count_if(m_rows.begin(), m_rows.end(), [](const Row& r) { return r.device.isGpu(); }));
}

void DeviceLimitsEditor::addGpu() {
  const int n = gpuCount();
  const double bytes = n > 0 ? bytesOf(m_rows[std::size_t(n - 1)]) : 16 * unitBytes(2);
  bm::MaxMemory limits = maxMemory();
  limits.insert(limits.begin() + n, {bm::DeviceKey::gpu(n), bytes});
  setMaxMemory(limits);
  emit changed();
}

void DeviceLimitsEditor::removeGpu() {
  const int n = gpuCount();
  if (n == 0) {
    return;
  }
  bm::MaxMemory limits = maxMemory();
  limits.erase(limits.begin() + (n - 1));
  setMaxMemory(limits);
  emit changed();
}

void DeviceLimitsEditor::addRow(const bm::MemoryLimit& limit) {
  Row row{.device = limit.device};
  row.widget = new QWidget(this);
  auto* swatch = new QLabel(row.widget);
  swatch->setFixedSize(12, 12);
  swatch->setStyleSheet(u"background: %1; border: 1px solid #666;"_s.arg(deviceColor(limit.device).name()));
  auto* label = new QLabel(deviceLabel(limit.device), row.widget);
  label->setMinimumWidth(label->fontMetrics().horizontalAdvance(deviceLabel(bm::DeviceKey::gpu(88))) + 4);
  row.value = new QDoubleSpinBox(row.widget);
  row.value->setObjectName(u"limitValue_"_s + rowKey(limit.device));
  row.value->setRange(0, 1e6);
  row.value->setDecimals(2);
  row.value->setKeyboardTracking(false);  // one plan per number typed, not per key
  row.value->setAccessibleName(tr("Limit of %1").arg(deviceLabel(limit.device)));
  row.unit = new QComboBox(row.widget);
  row.unit->setObjectName(u"limitUnit_"_s + rowKey(limit.device));
  for (const char* unit : kUnits) {
    row.unit->addItem(QString::fromLatin1(unit));
  }
  show(row, limit.bytes);
  auto* layout = new QHBoxLayout(row.widget);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(swatch);
  layout->addWidget(label);
  layout->addWidget(row.value, 1);
  layout->addWidget(row.unit);
  m_rowsLayout->addWidget(row.widget);
  WheelScrollGuard::install(row.widget);
  const auto edited = [this] {
    if (!m_updating) {
      emit changed();
    }
  };
  connect(row.value, &QDoubleSpinBox::valueChanged, this, edited);
  connect(row.unit, &QComboBox::currentIndexChanged, this, edited);
  m_rows.push_back(row);
}

void DeviceLimitsEditor::clearRows() {
  for (Row& row : m_rows) {
    delete row.widget;
  }
  m_rows.clear();
}

void DeviceLimitsEditor::updateButtons() {
  m_remove->setEnabled(gpuCount() > 0);
  m_add->setEnabled(gpuCount() < 16);
}

double DeviceLimitsEditor::bytesOf(const Row& row) {
  return std::round(row.value->value() * unitBytes(row.unit->currentIndex()));
}

void DeviceLimitsEditor::show(Row& row, double bytes) {
  int unit = 0;  // the largest unit that keeps the number at 1 or more
  while (unit + 1 < int(kUnits.size()) && bytes >= unitBytes(unit + 1)) {
    ++unit;
  }
  if (bytes == 0) {
    unit = 1;
  }
  row.unit->setCurrentIndex(unit);
  row.value->setValue(bytes / unitBytes(unit));
}

}  // namespace fathom::views
