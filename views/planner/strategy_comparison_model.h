// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "planner/plan_comparison.h"

#include <QAbstractTableModel>

#include <vector>

namespace fathom::views {

/// The strategies of a comparison side by side, one row each: total memory per GPU and headroom, step time,
/// tokens/s, MFU, communication per step, then memory per GPU by category. Every numeric cell's tooltip is the `fathom
/// plan --explain` text of that number. Empty until setComparison(), which resets the model.
class StrategyComparisonModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column {
    StrategyColumn,
    TotalColumn,
    HeadroomColumn,
    StepTimeColumn,
    TokensPerSecondColumn,
    MfuColumn,
    CommunicationColumn,
    ParametersColumn,  ///< the categories, in MemoryCategory order, from here to FrameworkOverheadColumn
    GradientsColumn,
    OptimizerStatesColumn,
    MasterWeightsColumn,
    ActivationsColumn,
    GatheredParametersColumn,
    CommBuffersColumn,
    FrameworkOverheadColumn,
    ColumnCount
  };
  enum Role {
    /// double: the cell's number in base units (bytes, seconds, tokens/s, fraction); invalid for an unpredicted plan.
    ValueRole = Qt::UserRole + 1,
    /// bool: the plan fits the device (and the host, when offloading).
    FitsRole,
    /// QString: the `--explain` text of the cell (also its tooltip).
    ExplanationRole,
  };

  explicit StrategyComparisonModel(QObject* parent = nullptr);

  void setComparison(const PlanComparison& comparison);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  QVariant value(const PlanEvaluation& e, int column) const;
  QString explain(const PlanEvaluation& e, int column) const;

  std::vector<PlanEvaluation> m_rows;
};

}  // namespace fathom::views
