// SPDX-License-Identifier: Apache-2.0
#include "common/wrapping_column.h"

#include <QEvent>
#include <QHeaderView>
#include <QStyle>
#include <QTableView>

#include <algorithm>

namespace fathom::views {

void WrappingColumn::install(QTableView* view, int column) {
  new WrappingColumn(view, column);
}

WrappingColumn::WrappingColumn(QTableView* view, int column)
    : QObject(view), m_view(view), m_viewport(view->viewport()), m_column(column) {
  QHeaderView* header = view->horizontalHeader();
  view->setWordWrap(true);
  header->setStretchLastSection(false);
  header->setSectionResizeMode(column, QHeaderView::Fixed);  // fit() sizes it
  // Rows as tall as their wrapped texts, never lower than a row of one line.
  view->verticalHeader()->setMinimumSectionSize(view->verticalHeader()->defaultSectionSize());
  view->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_viewport->installEventFilter(this);
  // The other columns resize to their contents when the data changes; this one follows.
  connect(header, &QHeaderView::sectionResized, this, [this](int logical) {
    if (logical != m_column) {
      fit();
    }
  });
  if (QAbstractItemModel* model = view->model()) {
    connect(model, &QAbstractItemModel::modelReset, this, &WrappingColumn::fit);
    connect(model, &QAbstractItemModel::dataChanged, this, &WrappingColumn::fit);
    connect(model, &QAbstractItemModel::rowsInserted, this, &WrappingColumn::fit);
  }
  fit();
}

bool WrappingColumn::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_viewport && event->type() == QEvent::Resize) {
    fit();
  }
  return QObject::eventFilter(watched, event);
}

int WrappingColumn::floorWidth() const {
  const QFontMetrics metrics = m_view->fontMetrics();
  int widest = m_view->horizontalHeader()->sectionSizeHint(m_column);
  const QAbstractItemModel* model = m_view->model();
  const int margins = 2 * (m_view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_view) + 1) + 2;
  for (int row = 0; model != nullptr && row < model->rowCount(); ++row) {
    const QString text = model->index(row, m_column).data().toString();
    int textFloor = metrics.horizontalAdvance(text) / 3;  // at most about three lines
    for (const QString& word : text.split(u' ', Qt::SkipEmptyParts)) {
      textFloor = std::max(textFloor, metrics.horizontalAdvance(word));
    }
    widest = std::max(widest, textFloor + margins);
  }
  return widest;
}

void WrappingColumn::fit() {
  const QHeaderView* header = m_view->horizontalHeader();
  int others = 0;
  for (int section = 0; section < header->count(); ++section) {
    if (section != m_column && !header->isSectionHidden(section)) {
      others += header->sectionSize(section);
    }
  }
  const int width = std::max(floorWidth(), m_view->viewport()->width() - others);
  if (header->sectionSize(m_column) != width) {
    m_view->horizontalHeader()->resizeSection(m_column, width);
  }
}

}  // namespace fathom::views
