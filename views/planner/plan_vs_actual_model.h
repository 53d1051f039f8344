// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/plan_vs_actual.h>

#include <QAbstractTableModel>

#include <vector>

namespace fathom::views {

/// Plan vs actual of a run (plan::PlanVsActual, core's comparison; `fathom runs plan-vs-actual` prints the same): one
/// row per rank and quantity, the memory categories first (parameters, gradients, optimizer states, master weights,
/// peak activations, total), then the collectives per step by kind, then the step time; columns rank, quantity,
/// predicted, measured, difference ("exact" where equal, else measured − predicted with its sign; "–" where a side
/// is unknown).
class PlanVsActualModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { RankColumn, QuantityColumn, PredictedColumn, MeasuredColumn, DifferenceColumn, ColumnCount };
  enum Role {
    /// The raw value: rank, the quantity's key ("parameters", "all_gather", "step_s"), bytes or seconds (a
    /// collective: its bytes), the difference (invalid when a side is unknown).
    ValueRole = Qt::UserRole + 1,
    /// Whether the row's predicted and measured values are equal (bool).
    ExactRole,
  };

  explicit PlanVsActualModel(QObject* parent = nullptr);

  void setComparison(const plan::PlanVsActual& comparison);
  /// How plan vs actual names a memory category (the Studio's name, common/memory_categories.h; activations are
  /// "Peak activations", the profiler's highest peak being what is measured). The memory timeline's legend uses it.
  static QString categoryName(MemoryCategory category);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  enum class Kind { Memory, Total, Collective, StepTime };
  struct Row {
    int rank = 0;
    Kind kind = Kind::Memory;
    MemoryCategory category = MemoryCategory::Parameters;  ///< Kind::Memory
    plan::Compared value;                                  ///< Memory, Total, StepTime
    plan::ComparedCollective collective;                   ///< Collective
  };
  QString quantityName(const Row& row) const;
  QVariant cell(const Row& row, int column) const;
  QVariant raw(const Row& row, int column) const;
  std::vector<Row> m_rows;
};

}  // namespace fathom::views
