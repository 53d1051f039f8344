// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/search.h>

#include <QAbstractTableModel>

#include <vector>

namespace fathom::views {

/// The best plans of `fathom plan search`, best first: strategy, then what they achieve (tokens/s, step time, MFU,
/// memory per GPU), then how (data/tensor/pipeline degrees, micro-batch, accumulation, recomputation): the
/// columns the CLI prints, results first.
class PlanSearchModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column {
    RankColumn,
    StrategyColumn,
    TokensPerSecondColumn,
    StepTimeColumn,
    MfuColumn,
    MemoryColumn,
    DataParallelColumn,
    TensorParallelColumn,
    PipelineParallelColumn,
    MicroBatchColumn,
    AccumulationColumn,
    RecomputeColumn,
    ColumnCount
  };
  enum Role {
    /// The raw value (bytes, seconds, fraction, counts) for sorting and export.
    ValueRole = Qt::UserRole + 1,
  };

  explicit PlanSearchModel(QObject* parent = nullptr);

  void setOutcome(const plan::SearchOutcome& outcome);
  const plan::SearchOutcome& outcome() const { return m_outcome; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  plan::SearchOutcome m_outcome;
};

}  // namespace fathom::views
