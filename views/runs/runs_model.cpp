// SPDX-License-Identifier: Apache-2.0
#include "runs/runs_model.h"

#include "common/formatting.h"
#include "planner/plan_request.h"
#include "runs/alerts_model.h"

#include <fathom/common/clock.h>

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QLocale>
#include <QStringList>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

/// The run's strategy as the Studio names it everywhere (the planner's names, strategyName()); one process of DDP
/// is "Single process"; empty when the record does not say.
QString strategyLabel(const store::RunLayout& layout, int worldSize) {
  if (!layout.strategy) {
    return {};
  }
  if (layout.strategy->strategy == plan::Strategy::Ddp && worldSize == 1) {
    return RunsModel::tr("Single process");
  }
  plan::Plan p;
  p.strategy = layout.strategy->strategy;
  p.fsdpSharding = layout.strategy->fsdpSharding;
  p.numGpus = worldSize;
  return strategyName(p);
}

/// "hang (open), straggler": each alert's kind, marked while it lasts; "–" for a run without alerts.
QString alertsText(const std::vector<store::RunAlert>& alerts) {
  if (alerts.empty()) {
    return u"–"_s;
  }
  QStringList parts;
  for (const store::RunAlert& a : alerts) {
    const QString kind = AlertsModel::kindText(a.kind);
    parts << (a.resolvedAt ? kind : RunsModel::tr("%1 (open)").arg(kind));
  }
  return parts.join(u", "_s);
}

}  // namespace

RunRow RunRow::fromStore(const store::RunInfo& info, int rankCount, const std::vector<store::MetricSummary>& metrics,
                         const std::vector<store::AlertRow>& alerts) {
  RunRow row;
  row.info = info;
  for (const store::AlertRow& a : alerts) {
    row.alerts.push_back(a.alert);
  }
  row.worldSize = info.layout.worldSize > 0 ? info.layout.worldSize : rankCount;
  row.strategy = strategyLabel(info.layout, row.worldSize);
  std::optional<double> lastLoss;
  for (const store::MetricSummary& m : metrics) {
    if (m.rank != 0) {
      continue;
    }
    if (m.key == "final_loss") {
      row.finalLoss = m.last;
    } else if (m.key == "loss") {
      lastLoss = m.last;
    }
  }
  if (!row.finalLoss) {
    row.finalLoss = lastLoss;
  }
  const double start = info.startedAt.value_or(info.createdAt);
  if (info.endedAt) {
    row.durationS = *info.endedAt - start;
  } else if (info.status == store::RunStatus::Running) {
    row.durationS = std::max(0.0, unixNowSeconds() - start);
  }
  return row;
}

bool RunRow::operator==(const RunRow& o) const {
  const store::RunInfo& a = info;
  const store::RunInfo& b = o.info;
  return a.id == b.id && a.name == b.name && a.status == b.status && a.createdAt == b.createdAt &&
         a.startedAt == b.startedAt && a.endedAt == b.endedAt && a.exitCode == b.exitCode &&
         a.commandLine == b.commandLine && a.host == b.host && a.configText == b.configText && a.layout == b.layout &&
         worldSize == o.worldSize && strategy == o.strategy && finalLoss == o.finalLoss && durationS == o.durationS &&
         alerts == o.alerts;
}

RunsModel::RunsModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunsModel::setRuns(const QList<RunRow>& runs) {
  // Both lists are ordered by id: remove the rows whose run is gone (backwards, so row numbers stay valid) ...
  for (int row = static_cast<int>(m_rows.size()) - 1; row >= 0; --row) {
    const auto id = m_rows.at(row).info.id;
    const bool kept = std::any_of(runs.begin(), runs.end(), [id](const RunRow& r) { return r.info.id == id; });
    if (!kept) {
      beginRemoveRows({}, row, row);
      m_rows.removeAt(row);
      endRemoveRows();
    }
  }
  // ... update the rows that stay, then append the runs that are new.
  qsizetype next = 0;
  for (int row = 0; row < m_rows.size(); ++row) {
    while (next < runs.size() && runs.at(next).info.id < m_rows.at(row).info.id) {
      // A run with a smaller id than one we show was never seen (ids only grow): insert it in place.
      beginInsertRows({}, row, row);
      m_rows.insert(row, runs.at(next++));
      endInsertRows();
      ++row;
    }
    if (next < runs.size() && runs.at(next).info.id == m_rows.at(row).info.id) {
      if (!(m_rows.at(row) == runs.at(next))) {
        m_rows[row] = runs.at(next);
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
      }
      ++next;
    }
  }
  if (next < runs.size()) {
    beginInsertRows({}, static_cast<int>(m_rows.size()), static_cast<int>(runs.size() - next + m_rows.size() - 1));
    for (; next < runs.size(); ++next) {
      m_rows.append(runs.at(next));
    }
    endInsertRows();
  }
}

int RunsModel::rowOfRun(qint64 id) const {
  for (int row = 0; row < m_rows.size(); ++row) {
    if (m_rows.at(row).info.id.value == id) {
      return row;
    }
  }
  return -1;
}

int RunsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString RunsModel::statusText(store::RunStatus status) {
  switch (status) {
  case store::RunStatus::Running: return tr("running");
  case store::RunStatus::Succeeded: return tr("succeeded");
  case store::RunStatus::Failed: return tr("failed");
  case store::RunStatus::Lost: return tr("lost");
  }
  return {};
}

QVariant RunsModel::display(const RunRow& row, int column) const {
  const store::RunInfo& r = row.info;
  switch (column) {
  case IdColumn: return QVariant::fromValue<qint64>(r.id.value);
  case NameColumn: return QString::fromStdString(r.name);
  case StatusColumn:
    return r.exitCode && r.status == store::RunStatus::Failed
               ? tr("%1 (exit code %2)").arg(statusText(r.status)).arg(*r.exitCode)
               : statusText(r.status);
  case StartedColumn:
    return QLocale().toString(
        QDateTime::fromMSecsSinceEpoch(std::llround(r.startedAt.value_or(r.createdAt) * 1000.0)).toLocalTime(),
        QLocale::ShortFormat);
  case DurationColumn:
    if (!row.durationS) {
      return u"–"_s;
    }
    return r.status == store::RunStatus::Running ? tr("%1 so far").arg(format::duration(*row.durationS))
                                                 : format::duration(*row.durationS);
  case WorldSizeColumn: return row.worldSize > 0 ? QVariant(row.worldSize) : QVariant(u"–"_s);
  case StrategyColumn: return row.strategy;
  case FinalLossColumn: return format::scalar(row.finalLoss);
  case AlertsColumn: return alertsText(row.alerts);
  default: return {};
  }
}

QVariant RunsModel::sortValue(const RunRow& row, int column) const {
  const store::RunInfo& r = row.info;
  switch (column) {
  case IdColumn: return QVariant::fromValue<qint64>(r.id.value);
  case StatusColumn: return static_cast<int>(r.status);
  case StartedColumn: return r.startedAt.value_or(r.createdAt);
  case DurationColumn: return row.durationS ? *row.durationS : -1.0;
  case WorldSizeColumn: return row.worldSize;
  case FinalLossColumn: return row.finalLoss && !std::isnan(*row.finalLoss) ? *row.finalLoss : HUGE_VAL;
  default: return display(row, column);
  }
}

QVariant RunsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const RunRow& row = m_rows.at(index.row());
  switch (role) {
  case Qt::DisplayRole: return display(row, index.column());
  case Qt::ToolTipRole:
    if (index.column() == NameColumn || index.column() == StrategyColumn) {
      return QString::fromStdString(row.info.commandLine);
    }
    if (index.column() == AlertsColumn && !row.alerts.empty()) {
      QStringList lines;
      for (const store::RunAlert& a : row.alerts) {
        lines << QString::fromStdString(store::describeAlert(a));
      }
      return lines.join(u'\n');
    }
    return {};
  case Qt::TextAlignmentRole:
    switch (index.column()) {
    case IdColumn:
    case DurationColumn:
    case WorldSizeColumn:
    case FinalLossColumn: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default: return {};
    }
  case Qt::ForegroundRole:
    if (index.column() == StatusColumn) {
      switch (row.info.status) {
      case store::RunStatus::Running: return QBrush(QColor(0x1f, 0x6f, 0xb5));
      case store::RunStatus::Succeeded: return QBrush(QColor(0x1b, 0x7f, 0x3b));
      case store::RunStatus::Failed: return QBrush(QColor(0xb3, 0x26, 0x1e));
      case store::RunStatus::Lost: return QBrush(QColor(0x8a, 0x6d, 0x00));
      }
    }
    if (index.column() == AlertsColumn &&
        std::any_of(row.alerts.begin(), row.alerts.end(), [](const auto& a) { return !a.resolvedAt; })) {
      return QBrush(QColor(0xb3, 0x26, 0x1e));
    }
    return {};
  case SortRole: return sortValue(row, index.column());
  case RunIdRole: return QVariant::fromValue<qint64>(row.info.id.value);
  case StatusRole: return static_cast<int>(row.info.status);
  default: return {};
  }
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case IdColumn: return tr("ID");
  case NameColumn: return tr("Name");
  case StatusColumn: return tr("Status");
  case StartedColumn: return tr("Started");
  case DurationColumn: return tr("Duration");
  case WorldSizeColumn: return tr("World size");
  case StrategyColumn: return tr("Strategy");
  case FinalLossColumn: return tr("Final loss");
  case AlertsColumn: return tr("Alerts");
  default: return {};
  }
}

}  // namespace fathom::views
