// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/planned_step.h>
#include <fathom/trace/trace_summary.h>

#include <QAbstractTableModel>

#include <optional>

namespace fathom::views {

/// Measured against predicted for one step of one rank (issue 19, "measured vs predicted per step"): what the rank's
/// ProfilerStep#N measured (trace::rankStepSummary: `fathom trace summary`'s breakdown of the step) next to the
/// planned step (plan::plannedStep).
///
/// Contract: one row per Quantity, in that order; columns per Column. DisplayRole: the quantity's name, then times
/// in ms (empty where a side is unknown: no step, or no plan), the difference signed; SecondsRole: the number in
/// seconds as a double (invalid where unknown). The measured exposed communication is communication − overlap, the
/// summary's definition; the predicted one the plan's exposed communication.
class PlanStepModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Quantity { StepTimeRow, ComputeRow, CommunicationRow, ExposedCommunicationRow, RowCount };
  enum Column { QuantityColumn, MeasuredColumn, PredictedColumn, DifferenceColumn, ColumnCount };
  enum Role { SecondsRole = Qt::UserRole };

  explicit PlanStepModel(QObject* parent = nullptr);

  /// Shows `measured` (nullopt: unknown) against `predicted` (nullopt: no plan).
  void setStep(const std::optional<trace::StepSummary>& measured, const std::optional<plan::PlannedStep>& predicted);
  std::optional<double> measuredSeconds(Quantity row) const;
  std::optional<double> predictedSeconds(Quantity row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::optional<trace::TimeBreakdown> m_measured;
  std::optional<plan::PlannedStep> m_predicted;
};

}  // namespace fathom::views
