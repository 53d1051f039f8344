// SPDX-License-Identifier: Apache-2.0
#include "planner/plan_search_model.h"

#include "common/formatting.h"
#include "planner/plan_request.h"

using namespace Qt::StringLiterals;

namespace fathom::views {

PlanSearchModel::PlanSearchModel(QObject* parent) : QAbstractTableModel(parent) {}

void PlanSearchModel::setOutcome(const plan::SearchOutcome& outcome) {
  beginResetModel();
  m_outcome = outcome;
  endResetModel();
}

int PlanSearchModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_outcome.results.size());
}

int PlanSearchModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant PlanSearchModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const plan::SearchResult& r = m_outcome.results.at(static_cast<std::size_t>(index.row()));
  const plan::Plan& p = r.plan;
  if (role == ValueRole || role == Qt::DisplayRole) {
    const bool raw = role == ValueRole;
    switch (index.column()) {
    case RankColumn: return index.row() + 1;
    case StrategyColumn: {
      QString label = strategyName(p);
      if (p.sequenceParallel) {
        label += tr(", sequence parallel");
      }
      return raw ? QVariant(QString::fromStdString(plan::strategyLabel(p))) : QVariant(label);
    }
    case DataParallelColumn: return r.prediction.dataParallel;
    case TensorParallelColumn: return p.tp;
    case PipelineParallelColumn: return p.pp;
    case MicroBatchColumn: return p.microBatch;
    case AccumulationColumn: return p.gradAccum;
    case RecomputeColumn: {
      if (raw) {
        return QString::fromLatin1(plan::toString(p.recompute).data());
      }
      switch (p.recompute) {
      case plan::Recompute::None: return tr("none");
      case plan::Recompute::Selective: return tr("selective");
      case plan::Recompute::Full: return tr("full");
      }
      return {};
    }
    case MemoryColumn: return raw ? QVariant(r.prediction.memory.total) : format::bytes(r.prediction.memory.total);
    case TokensPerSecondColumn:
      return raw ? QVariant(r.prediction.time.tokensPerS) : format::tokensPerSecond(r.prediction.time.tokensPerS);
    case StepTimeColumn: return raw ? QVariant(r.prediction.time.stepS) : format::duration(r.prediction.time.stepS);
    case MfuColumn: return raw ? QVariant(r.prediction.time.mfu) : format::percent(r.prediction.time.mfu);
    default: return {};
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() != StrategyColumn && index.column() != RecomputeColumn) {
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  return {};
}

QVariant PlanSearchModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case RankColumn: return tr("#");
  case StrategyColumn: return tr("Strategy");
  case DataParallelColumn: return tr("DP");
  case TensorParallelColumn: return tr("TP");
  case PipelineParallelColumn: return tr("PP");
  case MicroBatchColumn: return tr("Micro-batch");
  case AccumulationColumn: return tr("Accumulation");
  case RecomputeColumn: return tr("Recompute");
  case MemoryColumn: return tr("Memory per GPU");
  case TokensPerSecondColumn: return tr("Throughput");
  case StepTimeColumn: return tr("Step time");
  case MfuColumn: return tr("MFU");
  default: return {};
  }
}

}  // namespace fathom::views
