// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/run_comparison.h>

#include <QAbstractTableModel>

namespace fathom::views {

/// The summary table of a run comparison: one row per run with its status, world size, strategy, steps/s, final
/// loss, last step and the peak device and host memory of each rank.
class RunSummaryModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column {
    RunColumn,
    StatusColumn,
    WorldSizeColumn,
    StrategyColumn,
    StepsPerSecondColumn,
    FinalLossColumn,
    LastStepColumn,
    PeakDeviceColumn,
    PeakHostColumn,
    ColumnCount
  };
  enum Role {
    /// The column's value for sorting (numbers as numbers; the memory columns by their largest rank).
    SortRole = Qt::UserRole + 1,
  };

  explicit RunSummaryModel(QObject* parent = nullptr);

  void setComparison(const store::RunComparison& comparison);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::vector<store::RunSummary> m_rows;
};

}  // namespace fathom::views
