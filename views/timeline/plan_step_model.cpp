// SPDX-License-Identifier: Apache-2.0
#include "timeline/plan_step_model.h"

#include <QLocale>

namespace fathom::views {

PlanStepModel::PlanStepModel(QObject* parent) : QAbstractTableModel(parent) {}

void PlanStepModel::setStep(const std::optional<trace::StepSummary>& measured,
                            const std::optional<plan::PlannedStep>& predicted) {
  beginResetModel();
  m_measured.reset();
  if (measured) {
    m_measured = measured->time;
  }
  m_predicted = predicted;
  endResetModel();
}

std::optional<double> PlanStepModel::measuredSeconds(Quantity row) const {
  if (!m_measured) {
    return std::nullopt;
  }
  const trace::TimeBreakdown& t = *m_measured;
  switch (row) {
  case StepTimeRow: return static_cast<double>(t.spanNs) / 1e9;
  case ComputeRow: return static_cast<double>(t.computeNs) / 1e9;
  case CommunicationRow: return static_cast<double>(t.communicationNs) / 1e9;
  case ExposedCommunicationRow: return static_cast<double>(t.communicationNs - t.overlapNs) / 1e9;
  case RowCount: break;
  }
  return std::nullopt;
}

std::optional<double> PlanStepModel::predictedSeconds(Quantity row) const {
  if (!m_predicted) {
    return std::nullopt;
  }
  switch (row) {
  case StepTimeRow: return m_predicted->stepS;
  case ComputeRow: return m_predicted->computeS;
  case CommunicationRow: return m_predicted->commS;
  case ExposedCommunicationRow: return m_predicted->exposedCommS;
  case RowCount: break;
  }
  return std::nullopt;
}

int PlanStepModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : RowCount;
}

int PlanStepModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant PlanStepModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= RowCount || index.column() >= ColumnCount) {
    return {};
  }
  const auto row = static_cast<Quantity>(index.row());
  if (index.column() == QuantityColumn) {
    if (role != Qt::DisplayRole) {
      return {};
    }
    switch (row) {
    case StepTimeRow: return tr("Step time");
    case ComputeRow: return tr("Compute");
    case CommunicationRow: return tr("Communication");
    case ExposedCommunicationRow: return tr("Exposed communication");
    case RowCount: break;
    }
    return {};
  }
  std::optional<double> seconds;
  switch (index.column()) {
  case MeasuredColumn: seconds = measuredSeconds(row); break;
  case PredictedColumn: seconds = predictedSeconds(row); break;
  case DifferenceColumn: {
    const auto m = measuredSeconds(row);
    const auto p = predictedSeconds(row);
    if (m && p) {
      seconds = *m - *p;
    }
    break;
  }
  default: break;
  }
  if (!seconds) {
    return {};
  }
  switch (role) {
  case SecondsRole: return *seconds;
  case Qt::DisplayRole: {
    const QString ms = QLocale().toString(*seconds * 1e3, 'f', 2);
    return index.column() == DifferenceColumn && *seconds > 0 ? tr("+%1 ms").arg(ms) : tr("%1 ms").arg(ms);
  }
  case Qt::TextAlignmentRole: return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  default: return {};
  }
}

QVariant PlanStepModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case QuantityColumn: return tr("Per step");
  case MeasuredColumn: return tr("Measured");
  case PredictedColumn: return tr("Predicted");
  case DifferenceColumn: return tr("Difference");
  default: return {};
  }
}

}  // namespace fathom::views
