// SPDX-License-Identifier: Apache-2.0
#include "planner/strategy_comparison_model.h"

#include "common/formatting.h"
#include "common/memory_categories.h"

#include <QBrush>
#include <QColor>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

bool isCategory(int column) {
  return column >= StrategyComparisonModel::ParametersColumn &&
         column <= StrategyComparisonModel::FrameworkOverheadColumn;
}

MemoryCategory categoryOf(int column) {
  return plan::kMemoryBreakdownFields[static_cast<std::size_t>(column - StrategyComparisonModel::ParametersColumn)]
      .category;
}

}  // namespace

StrategyComparisonModel::StrategyComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void StrategyComparisonModel::setComparison(const PlanComparison& comparison) {
  beginResetModel();
  m_rows = comparison.strategies;
  endResetModel();
}

int StrategyComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int StrategyComparisonModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant StrategyComparisonModel::value(const PlanEvaluation& e, int column) const {
  if (!e.prediction) {
    return {};
  }
  const plan::Prediction& r = *e.prediction;
  if (isCategory(column)) {
    return plan::bytesOf(r.memory, categoryOf(column));
  }
  switch (column) {
  case TotalColumn: return r.memory.total;
  case HeadroomColumn: return r.headroomBytes;
  case CommunicationColumn: return r.communication.bytesPerRankPerStep;
  case StepTimeColumn: return r.time.stepS;
  case TokensPerSecondColumn: return r.time.tokensPerS;
  case MfuColumn: return r.time.mfu;
  default: return {};
  }
}

QString StrategyComparisonModel::explain(const PlanEvaluation& e, int column) const {
  if (isCategory(column)) {
    return explanation(e, plan::explanationKey(categoryOf(column)));
  }
  switch (column) {
  case StrategyColumn: return e.ok() ? QString::fromStdString(plan::strategyLabel(e.plan)) : e.error;
  case TotalColumn:
  case HeadroomColumn: return explanation(e, "memory.total");
  case CommunicationColumn: return communicationExplanation(e);
  case StepTimeColumn: return explanation(e, "time.step_s");
  case TokensPerSecondColumn: return explanation(e, "time.tokens_per_s");
  case MfuColumn: return explanation(e, "time.mfu");
  default: return {};
  }
}

QVariant StrategyComparisonModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const PlanEvaluation& e = m_rows.at(static_cast<std::size_t>(index.row()));
  const int column = index.column();
  switch (role) {
  case Qt::DisplayRole: {
    if (column == StrategyColumn) {
      return strategyName(e.plan);
    }
    const QVariant v = value(e, column);
    if (!v.isValid()) {
      return column == TotalColumn ? tr("invalid plan") : u"–"_s;
    }
    const double d = v.toDouble();
    switch (column) {
    case StepTimeColumn: return format::duration(d);
    case TokensPerSecondColumn: return format::tokensPerSecond(d);
    case MfuColumn: return format::percent(d);
    default: return format::bytes(d);
    }
  }
  case Qt::ToolTipRole:
  case ExplanationRole: {
    const QString text = explain(e, column);
    return text.isEmpty() ? QVariant() : QVariant(text);
  }
  case Qt::ForegroundRole:
    if ((column == TotalColumn || column == HeadroomColumn) && e.prediction) {
      return QBrush(e.prediction->fits ? QColor(0x1b, 0x7f, 0x3b) : QColor(0xb3, 0x26, 0x1e));
    }
    return {};
  case Qt::TextAlignmentRole:
    return column == StrategyColumn ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  case ValueRole: return value(e, column);
  case FitsRole: return e.prediction ? QVariant(e.prediction->fits) : QVariant();
  default: return {};
  }
}

QVariant StrategyComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  if (isCategory(section)) {
    return categoryName(categoryOf(section));
  }
  switch (section) {
  case StrategyColumn: return tr("Strategy");
  case TotalColumn: return tr("Total per GPU");
  case HeadroomColumn: return tr("Headroom");
  case CommunicationColumn: return tr("Sent per GPU and step");
  case StepTimeColumn: return tr("Step time");
  case TokensPerSecondColumn: return tr("Throughput");
  case MfuColumn: return tr("MFU");
  default: return {};
  }
}

}  // namespace fathom::views
