// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/bigmodel/device_key.h>

#include <QWidget>

#include <optional>
#include <vector>

namespace fathom::views {

/// One horizontal bar per device of a device map: the bytes placed on it (its colour), the room a main device keeps for
/// the largest offloaded layer (hatched), against its limit (the bar's length; a device past it is drawn red with the
/// limit marked). A module row dragged from the module tree (ModuleTreeModel::kMimeType) can be dropped on a bar:
/// moduleDropped() says which module went to which device; the owner moves it. Paints what it is given, computes
/// nothing.
class DeviceBars : public QWidget {
  Q_OBJECT

public:
  struct Bar {
    bigmodel::DeviceKey device;
    double bytes = 0;             ///< what the map places there
    double reserved = 0;          ///< room kept for the largest offloaded layer (the main GPU only)
    std::optional<double> limit;  ///< its max_memory; std::nullopt: no limit (disk)
  };

  explicit DeviceBars(QWidget* parent = nullptr);

  /// Replaces the bars (in the order given) and repaints.
  void setBars(std::vector<Bar> bars);
  const std::vector<Bar>& bars() const { return m_bars; }
  /// The bar under `pos` (widget coordinates; its whole row, label and text included), or -1.
  int barAt(const QPoint& pos) const;
  /// The row of bar `i`: label, bar and text.
  QRect rowRect(int i) const;
  /// The text beside bar `i` ("7.3 MiB of 16.0 MiB").
  QString barText(int i) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

signals:
  /// A module row was dropped on the bar of `device`.
  void moduleDropped(const QString& module, const fathom::bigmodel::DeviceKey& device);

protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dragMoveEvent(QDragMoveEvent* event) override;
  void dragLeaveEvent(QDragLeaveEvent* event) override;
  void dropEvent(QDropEvent* event) override;

private:
  int rowHeight() const;
  int labelWidth() const;
  int textWidth() const;
  QString tooltipFor(int i) const;

  std::vector<Bar> m_bars;
  int m_dropTarget = -1;  ///< the bar a drag hovers, highlighted
};

}  // namespace fathom::views
