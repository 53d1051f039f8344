// SPDX-License-Identifier: Apache-2.0
#include "runs/run_summary_model.h"

#include "common/formatting.h"
#include "runs/runs_model.h"

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

/// "0: 1.2 GiB · 1: 1.3 GiB" over the ranks that recorded a peak of the kind.
QString perRank(const store::RunSummary& s, bool device) {
  QStringList parts;
  for (const store::RankPeakMemory& p : s.peakMemory) {
    if (const auto& v = device ? p.deviceBytes : p.hostBytes) {
      parts << u"%1: %2"_s.arg(p.rank).arg(format::bytes(*v));
    }
  }
  return parts.isEmpty() ? u"–"_s : parts.join(u" · "_s);
}

double largest(const store::RunSummary& s, bool device) {
  double out = -HUGE_VAL;
  for (const store::RankPeakMemory& p : s.peakMemory) {
    if (const auto& v = device ? p.deviceBytes : p.hostBytes) {
      out = std::max(out, *v);
    }
  }
  return out;
}

}  // namespace

RunSummaryModel::RunSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunSummaryModel::setComparison(const store::RunComparison& comparison) {
  beginResetModel();
  m_rows = comparison.runs;
  endResetModel();
}

int RunSummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunSummaryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunSummaryModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const store::RunSummary& s = m_rows.at(static_cast<std::size_t>(index.row()));
  if (role == SortRole) {
    auto num = [](const auto& v) { return v ? QVariant(double(*v)) : QVariant(-HUGE_VAL); };
    switch (index.column()) {
    case RunColumn: return QVariant::fromValue<qint64>(s.info.id.value);
    case WorldSizeColumn: return s.worldSize;
    case StepsPerSecondColumn: return num(s.stepsPerSecond);
    case FinalLossColumn: return num(s.finalLoss);
    case LastStepColumn: return num(s.lastStep);
    case PeakDeviceColumn: return largest(s, true);
    case PeakHostColumn: return largest(s, false);
    default: break;
    }
  }
  if (role != Qt::DisplayRole && role != SortRole) {
    return {};
  }
  switch (index.column()) {
  case RunColumn: return tr("Run %1: %2").arg(s.info.id.value).arg(QString::fromStdString(s.info.name));
  case StatusColumn: return RunsModel::statusText(s.info.status);
  case WorldSizeColumn: return s.worldSize > 0 ? QString::number(s.worldSize) : u"–"_s;
  case StrategyColumn: return RunRow::fromStore(s.info, s.worldSize, {}).strategy;  // named as the browser names it
  case StepsPerSecondColumn: return s.stepsPerSecond ? QString::number(*s.stepsPerSecond, 'f', 2) : u"–"_s;
  case FinalLossColumn: return format::scalar(s.finalLoss);
  case LastStepColumn: return s.lastStep ? QString::number(*s.lastStep) : u"–"_s;
  case PeakDeviceColumn: return perRank(s, true);
  case PeakHostColumn: return perRank(s, false);
  default: return {};
  }
}

QVariant RunSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case RunColumn: return tr("Run");
  case StatusColumn: return tr("Status");
  case WorldSizeColumn: return tr("World size");
  case StrategyColumn: return tr("Strategy");
  case StepsPerSecondColumn: return tr("Steps/s");
  case FinalLossColumn: return tr("Final loss");
  case LastStepColumn: return tr("Last step");
  case PeakDeviceColumn: return tr("Peak device memory per rank");
  case PeakHostColumn: return tr("Peak host memory per rank");
  default: return {};
  }
}

}  // namespace fathom::views
