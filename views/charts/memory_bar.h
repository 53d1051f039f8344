// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "common/memory_categories.h"

#include <QString>
#include <QWidget>

#include <vector>

namespace fathom::views {

/// One rank's predicted memory as a horizontal stacked bar, one segment per category, against the device's
/// capacity (a vertical line; the bar turns red past it). Each segment's tooltip is its `--explain` text. Small
/// enough for the wizard's side panel, where a chart's axes and margins would not fit.
class MemoryBar : public QWidget {
  Q_OBJECT

public:
  struct Segment {
    MemoryCategory category;
    double bytes = 0;
    QString tooltip;
  };

  explicit MemoryBar(QWidget* parent = nullptr);

  /// Replaces the segments and the capacity; an empty list shows an empty bar.
  void setSegments(std::vector<Segment> segments, double capacityBytes);
  const std::vector<Segment>& segments() const { return m_segments; }
  double capacity() const { return m_capacity; }
  double total() const;
  /// The segment under `x` (widget coordinates), or -1.
  int segmentAt(int x) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

private:
  double scale() const;

  std::vector<Segment> m_segments;
  double m_capacity = 0;
};

}  // namespace fathom::views
