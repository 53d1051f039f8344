// SPDX-License-Identifier: Apache-2.0
#include "bigmodel/device_bars.h"

#include "bigmodel/device_palette.h"
#include "bigmodel/module_tree_model.h"
#include "common/formatting.h"

#include <QDragEnterEvent>
#include <QHelpEvent>
#include <QMimeData>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

constexpr int kMargin = 6;
constexpr int kGap = 10;
const QColor kOver(0xb3, 0x26, 0x1e);

bool over(const DeviceBars::Bar& bar) {
  return bar.limit && bar.bytes + bar.reserved > *bar.limit;
}

}  // namespace

DeviceBars::DeviceBars(QWidget* parent) : QWidget(parent) {
  setObjectName(u"deviceBars"_s);
  setAcceptDrops(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void DeviceBars::setBars(std::vector<Bar> bars) {
  const bool resized = bars.size() != m_bars.size();
  m_bars = std::move(bars);
  if (resized) {
    updateGeometry();
  }
  update();
}

int DeviceBars::rowHeight() const {
  return fontMetrics().height() + 14;
}

int DeviceBars::labelWidth() const {
  int width = 0;
  for (const Bar& bar : m_bars) {
    width = std::max(width, fontMetrics().horizontalAdvance(deviceLabel(bar.device)));
  }
  return width;
}

int DeviceBars::textWidth() const {
  int width = 0;
  for (int i = 0; i < int(m_bars.size()); ++i) {
    width = std::max(width, fontMetrics().horizontalAdvance(barText(i)));
  }
  return width;
}

QRect DeviceBars::rowRect(int i) const {
  return {0, kMargin + i * (rowHeight() + kMargin), width(), rowHeight()};
}

int DeviceBars::barAt(const QPoint& pos) const {
  for (int i = 0; i < int(m_bars.size()); ++i) {
    if (rowRect(i).contains(pos)) {
      return i;
    }
  }
  return -1;
}

QString DeviceBars::barText(int i) const {
  const Bar& bar = m_bars[std::size_t(i)];
  const QString held = bar.reserved > 0
                           ? tr("%1 + %2 kept free").arg(format::bytes(bar.bytes), format::bytes(bar.reserved))
                           : format::bytes(bar.bytes);
  if (!bar.limit) {
    return tr("%1 (no limit)").arg(held);
  }
  if (over(bar)) {
    return tr("%1 of %2: over the limit").arg(held, format::bytes(*bar.limit));
  }
  return tr("%1 of %2").arg(held, format::bytes(*bar.limit));
}

QString DeviceBars::tooltipFor(int i) const {
  const Bar& bar = m_bars[std::size_t(i)];
  QString text = tr("%1 holds %2 of the model.").arg(deviceLabel(bar.device), format::bytes(bar.bytes));
  if (bar.reserved > 0) {
    text += u'\n' + tr("It keeps %1 free for the largest layer on CPU or disk, which is brought to it to run.")
                        .arg(format::bytes(bar.reserved));
  }
  text += u'\n' + (bar.limit ? tr("Limit: %1.").arg(format::bytes(*bar.limit)) : tr("No limit."));
  text += u'\n' + tr("Drop a module here to move it to %1.").arg(deviceLabel(bar.device));
  return text;
}

QSize DeviceBars::sizeHint() const {
  const int rows = std::max(1, int(m_bars.size()));
  return {labelWidth() + textWidth() + 300, kMargin + rows * (rowHeight() + kMargin)};
}

QSize DeviceBars::minimumSizeHint() const {
  return {labelWidth() + textWidth() + 120, sizeHint().height()};
}

void DeviceBars::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing, false);
  const int label = labelWidth();
  const int text = textWidth();
  for (int i = 0; i < int(m_bars.size()); ++i) {
    const Bar& bar = m_bars[std::size_t(i)];
    const QRect row = rowRect(i);
    const QColor colour = deviceColor(bar.device);
    const QColor ink = over(bar) ? kOver : palette().color(QPalette::WindowText);
    if (i == m_dropTarget) {
      painter.fillRect(row, palette().color(QPalette::Highlight).lighter(170));
    }
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(kMargin, row.top(), label, row.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     deviceLabel(bar.device));

    const QRect track(kMargin + label + kGap, row.top() + 4,
                      std::max(20, width() - label - text - 2 * kGap - 2 * kMargin), row.height() - 8);
    const double load = bar.bytes + bar.reserved;
    const double scale = std::max({bar.limit.value_or(0.0), load, 1.0});
    const auto px = [&](double bytes) { return int(track.width() * std::clamp(bytes / scale, 0.0, 1.0) + 0.5); };
    painter.fillRect(track, palette().color(QPalette::Base));
    const int held = px(bar.bytes);
    painter.fillRect(QRect(track.left(), track.top(), held, track.height()), colour);
    if (bar.reserved > 0) {
      const QRect kept(track.left() + held, track.top(), px(load) - held, track.height());
      painter.fillRect(kept, colour.lighter(160));
      painter.fillRect(kept, QBrush(colour.darker(120), Qt::BDiagPattern));
    }
    if (over(bar)) {  // the limit, inside a bar scaled to the load
      const int x = track.left() + px(*bar.limit);
      painter.setPen(QPen(kOver, 2));
      painter.drawLine(x, track.top() - 3, x, track.bottom() + 3);
    }
    painter.setPen(QPen(over(bar) ? kOver : palette().color(QPalette::Mid), 1));
    painter.drawRect(track.adjusted(0, 0, -1, -1));
    painter.setPen(ink);
    painter.drawText(QRect(track.right() + kGap, row.top(), text + kMargin, row.height()),
                     Qt::AlignLeft | Qt::AlignVCenter, barText(i));
  }
}

bool DeviceBars::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int i = barAt(help->pos());
    if (i >= 0) {
      QToolTip::showText(help->globalPos(), tooltipFor(i), this, rowRect(i));
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(event);
}

void DeviceBars::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasFormat(QString::fromLatin1(ModuleTreeModel::kMimeType))) {
    event->acceptProposedAction();
  }
}

void DeviceBars::dragMoveEvent(QDragMoveEvent* event) {
  const int i = barAt(event->position().toPoint());
  if (i != m_dropTarget) {
    m_dropTarget = i;
    update();
  }
  if (i >= 0 && event->mimeData()->hasFormat(QString::fromLatin1(ModuleTreeModel::kMimeType))) {
    event->acceptProposedAction();
  } else {
    event->ignore();
  }
}

void DeviceBars::dragLeaveEvent(QDragLeaveEvent*) {
  m_dropTarget = -1;
  update();
}

void DeviceBars::dropEvent(QDropEvent* event) {
  const int i = barAt(event->position().toPoint());
  m_dropTarget = -1;
  update();
  if (i < 0 || !event->mimeData()->hasFormat(QString::fromLatin1(ModuleTreeModel::kMimeType))) {
    event->ignore();
    return;
  }
  event->acceptProposedAction();
  emit moduleDropped(QString::fromUtf8(event->mimeData()->data(QString::fromLatin1(ModuleTreeModel::kMimeType))),
                     m_bars[std::size_t(i)].device);
}

}  // namespace fathom::views
