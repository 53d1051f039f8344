// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "runs/run_delta.h"

#include <QAbstractTableModel>

#include <deque>
#include <optional>
#include <vector>

namespace fathom::views {

/// The live run page's table: one row per rank with its state, host, pid, current step, steps/s over the last
/// kWindowS seconds, last loss, device and host memory, phase, the age of its last heartbeat and the last
/// collective it entered and finished. apply() folds in one RunDelta (rows are inserted or changed, never reset);
/// setNow() moves the clock the heartbeat ages are measured against.
class LiveRanksModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column {
    RankColumn,
    StateColumn,
    HostColumn,
    PidColumn,
    StepColumn,
    StepsPerSecondColumn,
    LossColumn,
    DeviceMemoryColumn,
    HostMemoryColumn,
    PhaseColumn,
    HeartbeatAgeColumn,
    /// The collective wavefront of the latest heartbeat (store::Heartbeat::entered / finished): "all_reduce #12
    /// (world)"; "–" before the rank's first collective.
    CollectiveEnteredColumn,
    CollectiveFinishedColumn,
    ColumnCount
  };
  enum Role {
    /// The column's value for sorting: numbers as numbers; empty values sort first.
    SortRole = Qt::UserRole + 1,
    /// int: the rank's exit code (an invalid QVariant while it runs).
    ExitCodeRole,
  };

  /// The window of steps/s.
  static constexpr double kWindowS = 10;

  explicit LiveRanksModel(QObject* parent = nullptr);

  void apply(const RunDelta& delta);
  void clear();
  /// The clock of the heartbeat ages (seconds since the Unix epoch); a change updates that column only.
  void setNow(double now);

  /// The current step of `rank` (the highest logged or reported), if any.
  std::optional<std::int64_t> stepOf(int rank) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  struct Rank {
    store::RankInfo info;
    bool recorded = false;  ///< the ranks table has it (else only its metrics or heartbeats were seen)
    std::optional<std::int64_t> step;
    std::deque<std::pair<double, std::int64_t>> window;  ///< (time, step) samples of the last kWindowS seconds
    std::optional<double> reportedRate;                  ///< its last steps_per_second
    std::optional<double> loss, deviceBytes, hostBytes;
    std::optional<double> heartbeat;
    std::optional<parallel::CollectivePosition> entered, finished;  ///< of the latest heartbeat
    QString phase;
  };
  Rank& rankRow(int rank, bool* inserted);
  void sample(Rank& r, double time, std::int64_t step);
  std::optional<double> stepsPerSecond(const Rank& r) const;
  QVariant display(const Rank& r, int column) const;
  QVariant sortValue(const Rank& r, int column) const;

  std::vector<Rank> m_rows;  ///< by rank
  store::RunStatus m_status = store::RunStatus::Running;
  double m_now = 0;
};

}  // namespace fathom::views
