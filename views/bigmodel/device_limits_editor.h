// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/bigmodel/device_key.h>

#include <QWidget>

#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QPushButton;
class QVBoxLayout;

namespace fathom::views {

/// Edits the devices of a device map and their limits (Accelerate's max_memory): GPUs 0..n-1 and the CPU, each with a
/// size in KiB, MiB or GiB; GPUs are added (with the last one's limit) and removed (the last) with two buttons. Disk is
/// always there, without a limit, as infer_auto_device_map adds it. Emits changed() on every edit.
class DeviceLimitsEditor : public QWidget {
  Q_OBJECT

public:
  explicit DeviceLimitsEditor(QWidget* parent = nullptr);

  /// GPUs in order, then cpu.
  bigmodel::MaxMemory maxMemory() const;
  /// Shows the GPUs and cpu of `maxMemory` (other devices are not edited here; cpu gets 0 when absent). Emits nothing.
  void setMaxMemory(const bigmodel::MaxMemory& maxMemory);
  int gpuCount() const;

  /// A GPU after the last, with its limit (or 16 GiB for the first); emits changed().
  void addGpu();
  /// Removes the last GPU; emits changed(). Nothing without GPUs.
  void removeGpu();

signals:
  void changed();

private:
  struct Row {
    bigmodel::DeviceKey device;
    QWidget* widget = nullptr;
    QDoubleSpinBox* value = nullptr;
    QComboBox* unit = nullptr;
  };

  void addRow(const bigmodel::MemoryLimit& limit);
  void clearRows();
  void updateButtons();
  static double bytesOf(const Row& row);
  static void show(Row& row, double bytes);

  std::vector<Row> m_rows;  ///< GPUs in order, then cpu
  QVBoxLayout* m_rowsLayout = nullptr;
  QPushButton* m_add = nullptr;
  QPushButton* m_remove = nullptr;
  bool m_updating = false;
};

}  // namespace fathom::views
