// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/records.h>
#include <fathom/store/run_alert.h>

#include <QAbstractTableModel>
#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace fathom::views {

/// One run as the runs browser shows it: the workspace row plus its world size and strategy in words and what the
/// browser derives from its metrics. A plain value, built off the GUI thread.
struct RunRow {
  store::RunInfo info;
  int worldSize = 0;                    ///< the run's recorded world size, else the ranks recorded; 0 = unknown
  QString strategy;                     ///< "DDP", "FSDP full shard", "ZeRO-2", "Single process", ... (translated)
  std::optional<double> finalLoss;      ///< rank 0's final_loss, else its last loss; empty when it logged none
  std::optional<double> durationS;      ///< end - start; for a running run, the time so far when the row was built
  std::vector<store::RunAlert> alerts;  ///< the run monitor's hang and straggler alerts, oldest first

  /// Builds the row: world size and strategy from the run's typed layout (store::RunLayout, named as the planner
  /// names strategies), the final loss from the metric summaries, the alerts from Workspace::alerts.
  static RunRow fromStore(const store::RunInfo& info, int rankCount, const std::vector<store::MetricSummary>& metrics,
                          const std::vector<store::AlertRow>& alerts = {});

  bool operator==(const RunRow& other) const;
};

/// The runs of a workspace, one row per run, oldest first (a QSortFilterProxyModel sorts and filters for the view).
/// setRuns() merges a fresh snapshot: rows of deleted runs are removed, changed rows emit dataChanged, new runs are
/// appended, so selections and sort orders survive the periodic refresh.
class RunsModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column {
    IdColumn,
    NameColumn,
    StatusColumn,
    StartedColumn,
    DurationColumn,
    WorldSizeColumn,
    StrategyColumn,
    FinalLossColumn,
    /// The run monitor's alerts: "hang (open)", "straggler", ...; the tooltip describes each.
    AlertsColumn,
    ColumnCount
  };
  enum Role {
    /// The column's value for sorting: numbers as numbers (start time, duration, loss), text otherwise.
    SortRole = Qt::UserRole + 1,
    /// qint64: the run's id in the workspace.
    RunIdRole,
    /// int: the store::RunStatus.
    StatusRole,
  };

  explicit RunsModel(QObject* parent = nullptr);

  /// Replaces the rows with `runs` (ordered by id), as a merge (see the class comment).
  void setRuns(const QList<RunRow>& runs);
  const QList<RunRow>& runs() const { return m_rows; }
  /// The row of run `id`, or -1.
  int rowOfRun(qint64 id) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  /// "running", "succeeded", ... in the UI language.
  static QString statusText(store::RunStatus status);

private:
  QVariant display(const RunRow& row, int column) const;
  QVariant sortValue(const RunRow& row, int column) const;

  QList<RunRow> m_rows;
};

}  // namespace fathom::views
