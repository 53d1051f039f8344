// SPDX-License-Identifier: Apache-2.0
#include "runs/event_log_model.h"

#include "common/formatting.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QLocale>

#include <cmath>

namespace fathom::views {

EventLogModel::EventLogModel(QObject* parent) : QAbstractTableModel(parent) {}

void EventLogModel::setEvents(const std::vector<store::EventRow>& events) {
  beginResetModel();
  m_rows = events;
  endResetModel();
}

void EventLogModel::appendEvents(const std::vector<store::EventRow>& events) {
  const qint64 last = lastEventId();
  std::vector<store::EventRow> newer;
  for (const auto& e : events) {
    if (e.id.value > (newer.empty() ? last : newer.back().id.value)) {
      newer.push_back(e);
    }
  }
  if (newer.empty()) {
    return;
  }
  const int first = static_cast<int>(m_rows.size());
  beginInsertRows({}, first, first + static_cast<int>(newer.size()) - 1);
  m_rows.insert(m_rows.end(), newer.begin(), newer.end());
  endInsertRows();
}

qint64 EventLogModel::lastEventId() const {
  return m_rows.empty() ? 0 : m_rows.back().id.value;
}

int EventLogModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int EventLogModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString EventLogModel::levelText(LogLevel level) {
  switch (level) {
  case LogLevel::Debug: return tr("debug");
  case LogLevel::Info: return tr("info");
  case LogLevel::Warning: return tr("warning");
  case LogLevel::Error: return tr("error");
  }
  return {};
}

QVariant EventLogModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const store::EventRow& row = m_rows.at(static_cast<std::size_t>(index.row()));
  const store::EventRecord& e = row.event;
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case TimeColumn: return format::timeOfDay(e.time, /*millis=*/true);
    case RankColumn: return e.rank < 0 ? tr("launcher") : QString::number(e.rank);
    case LevelColumn: return levelText(e.level);
    case TextColumn: return QString::fromStdString(e.text);
    default: return {};
    }
  case Qt::ToolTipRole: return index.column() == TextColumn ? QVariant(QString::fromStdString(e.text)) : QVariant();
  case Qt::ForegroundRole:
    switch (e.level) {
    case LogLevel::Warning: return QBrush(QColor(0x8a, 0x6d, 0x00));
    case LogLevel::Error: return QBrush(QColor(0xb3, 0x26, 0x1e));
    case LogLevel::Debug: return QBrush(QColor(0x80, 0x80, 0x80));
    default: return {};
    }
  case LevelRole: return static_cast<int>(e.level);
  case EventIdRole: return QVariant::fromValue<qint64>(row.id.value);
  default: return {};
  }
}

QVariant EventLogModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case TimeColumn: return tr("Time");
  case RankColumn: return tr("Rank");
  case LevelColumn: return tr("Level");
  case TextColumn: return tr("Message");
  default: return {};
  }
}

}  // namespace fathom::views
