// SPDX-License-Identifier: Apache-2.0
#include "planner/plan_vs_actual_model.h"

#include "common/formatting.h"
#include "common/memory_categories.h"

#include <cmath>

using namespace Qt::StringLiterals;

namespace fathom::views {

PlanVsActualModel::PlanVsActualModel(QObject* parent) : QAbstractTableModel(parent) {}

void PlanVsActualModel::setComparison(const plan::PlanVsActual& comparison) {
  beginResetModel();
  m_rows.clear();
  for (const plan::RankComparison& r : comparison.ranks) {
    for (std::size_t i = 0; i < plan::kComparedMemoryCategories.size(); ++i) {
      m_rows.push_back({r.rank, Kind::Memory, plan::kComparedMemoryCategories[i], r.memory[i], {}});
    }
    m_rows.push_back({r.rank, Kind::Total, MemoryCategory::Other, r.totalBytes, {}});
    for (const plan::ComparedCollective& c : r.collectives) {
      m_rows.push_back({r.rank, Kind::Collective, MemoryCategory::Other, {}, c});
    }
    m_rows.push_back({r.rank, Kind::StepTime, MemoryCategory::Other, r.stepSeconds, {}});
  }
  endResetModel();
}

int PlanVsActualModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int PlanVsActualModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString PlanVsActualModel::categoryName(MemoryCategory category) {
  // Activations are measured as the profiler's highest peak, the others as the engines' samples.
  return category == MemoryCategory::Activations ? tr("Peak activations") : views::categoryName(category);
}

QString PlanVsActualModel::quantityName(const Row& row) const {
  switch (row.kind) {
  case Kind::Memory: return categoryName(row.category);
  case Kind::Total: return tr("Total (profiled peak)");
  case Kind::Collective: return tr("%1 per step").arg(QString::fromLatin1(plan::toString(row.collective.kind)));
  case Kind::StepTime: return tr("Step time");
  }
  return {};
}

QVariant PlanVsActualModel::raw(const Row& row, int column) const {
  const auto optional = [](const std::optional<double>& v) { return v ? QVariant(*v) : QVariant(); };
  const auto collectiveBytes = [](const std::optional<plan::CollectiveCount>& c) {
    return c ? QVariant(c->bytes) : QVariant();
  };
  switch (column) {
  case RankColumn: return row.rank;
  case QuantityColumn:
    switch (row.kind) {
    case Kind::Memory: return QString::fromLatin1(toString(row.category));
    case Kind::Total: return u"total"_s;
    case Kind::Collective: return QString::fromLatin1(plan::toString(row.collective.kind));
    case Kind::StepTime: return u"step_s"_s;
    }
    return {};
  case PredictedColumn:
    return row.kind == Kind::Collective ? collectiveBytes(row.collective.predicted) : optional(row.value.predicted);
  case MeasuredColumn:
    return row.kind == Kind::Collective ? collectiveBytes(row.collective.measured) : optional(row.value.measured);
  case DifferenceColumn:
    if (row.kind == Kind::Collective) {
      if (!row.collective.predicted && !row.collective.measured) {
        return {};
      }
      return row.collective.measured.value_or(plan::CollectiveCount{}).bytes -
             row.collective.predicted.value_or(plan::CollectiveCount{}).bytes;
    }
    return optional(row.value.difference());
  default: return {};
  }
}

QVariant PlanVsActualModel::cell(const Row& row, int column) const {
  const bool seconds = row.kind == Kind::StepTime;
  const auto amount = [seconds](const std::optional<double>& v) {
    return v ? (seconds ? format::duration(*v) : format::bytes(*v)) : u"–"_s;
  };
  const auto calls = [this](const std::optional<plan::CollectiveCount>& c) {
    return c ? tr("%1 calls, %2").arg(c->count).arg(format::bytes(c->bytes)) : u"–"_s;
  };
  switch (column) {
  case RankColumn: return row.rank;
  case QuantityColumn: return quantityName(row);
  case PredictedColumn:
    return row.kind == Kind::Collective ? calls(row.collective.predicted) : amount(row.value.predicted);
  case MeasuredColumn:
    return row.kind == Kind::Collective ? calls(row.collective.measured) : amount(row.value.measured);
  case DifferenceColumn: {
    const bool exact = row.kind == Kind::Collective ? row.collective.exact() : row.value.exact();
    if (exact) {
      return tr("exact");
    }
    if (row.kind == Kind::Collective) {
      const plan::CollectiveCount p = row.collective.predicted.value_or(plan::CollectiveCount{});
      const plan::CollectiveCount m = row.collective.measured.value_or(plan::CollectiveCount{});
      const qint64 callsDifference = m.count - p.count;
      return tr("%1 calls, %2")
          .arg((callsDifference > 0 ? u"+"_s : QString()) + QString::number(callsDifference))
          .arg(format::signedBytes(m.bytes - p.bytes));
    }
    const auto d = row.value.difference();
    if (!d) {
      return u"–"_s;
    }
    return seconds ? (*d > 0 ? u"+"_s : QString()) + format::duration(*d) : format::signedBytes(*d);
  }
  default: return {};
  }
}

QVariant PlanVsActualModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const Row& row = m_rows.at(static_cast<std::size_t>(index.row()));
  switch (role) {
  case Qt::DisplayRole: return cell(row, index.column());
  case ValueRole: return raw(row, index.column());
  case ExactRole: return row.kind == Kind::Collective ? row.collective.exact() : row.value.exact();
  case Qt::TextAlignmentRole:
    if (index.column() != QuantityColumn) {
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
  default: return {};
  }
}

QVariant PlanVsActualModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case RankColumn: return tr("Rank");
  case QuantityColumn: return tr("Quantity");
  case PredictedColumn: return tr("Predicted");
  case MeasuredColumn: return tr("Measured");
  case DifferenceColumn: return tr("Difference");
  default: return {};
  }
}

}  // namespace fathom::views
