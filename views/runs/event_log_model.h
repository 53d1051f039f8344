// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/records.h>

#include <QAbstractTableModel>

#include <vector>

namespace fathom::views {

/// Log lines and events of a run (store::EventRow, oldest first): time, rank (-1 is the launcher), level, text.
/// setEvents() resets; appendEvents() adds newer rows at the end (the live tail of a running run).
class EventLogModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { TimeColumn, RankColumn, LevelColumn, TextColumn, ColumnCount };
  enum Role {
    /// int: the fathom::LogLevel.
    LevelRole = Qt::UserRole + 1,
    /// qint64: the event's id in the workspace.
    EventIdRole,
  };

  explicit EventLogModel(QObject* parent = nullptr);

  void setEvents(const std::vector<store::EventRow>& events);
  /// Appends the events newer than the last one held (older or repeated ids are skipped).
  void appendEvents(const std::vector<store::EventRow>& events);
  /// The id of the newest event held (0 when empty): the cursor for the next incremental read.
  qint64 lastEventId() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  static QString levelText(LogLevel level);

private:
  std::vector<store::EventRow> m_rows;
};

}  // namespace fathom::views
