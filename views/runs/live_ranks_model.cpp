// SPDX-License-Identifier: Apache-2.0
#include "runs/live_ranks_model.h"

#include "common/formatting.h"
#include "runs/runs_model.h"

#include <QLocale>

#include <fathom/common/memory_metric_keys.h>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

const QString kNone = u"–"_s;

}  // namespace

LiveRanksModel::LiveRanksModel(QObject* parent) : QAbstractTableModel(parent) {}

void LiveRanksModel::clear() {
  beginResetModel();
  m_rows.clear();
  endResetModel();
}

LiveRanksModel::Rank& LiveRanksModel::rankRow(int rank, bool* inserted) {
  const auto at =
      std::lower_bound(m_rows.begin(), m_rows.end(), rank, [](const Rank& r, int k) { return r.info.rank < k; });
  if (at != m_rows.end() && at->info.rank == rank) {
    return *at;
  }
  const int row = static_cast<int>(at - m_rows.begin());
  beginInsertRows({}, row, row);
  Rank fresh;
  fresh.info.rank = rank;
  const auto placed = m_rows.insert(at, fresh);
  endInsertRows();
  *inserted = true;
  return *placed;
}

void LiveRanksModel::sample(Rank& r, double time, std::int64_t step) {
  r.step = std::max(r.step.value_or(step), step);
  if (r.window.empty() || step > r.window.back().second) {
    r.window.emplace_back(time, step);
  }
  while (r.window.size() > 2 && r.window.back().first - r.window.front().first > kWindowS) {
    r.window.pop_front();
  }
}

void LiveRanksModel::apply(const RunDelta& delta) {
  bool inserted = false;
  const bool statusChanged = delta.info.status != m_status;
  m_status = delta.info.status;
  for (const store::RankInfo& info : delta.ranks) {
    Rank& r = rankRow(info.rank, &inserted);
    r.info = info;
    r.recorded = true;
  }
  for (const store::MetricRow& m : delta.metrics) {
    Rank& r = rankRow(m.point.rank, &inserted);
    sample(r, m.point.wallTime, m.point.step);
    const std::string& key = m.point.key;
    if (key == "loss") {
      r.loss = m.point.value;
    } else if (key == "steps_per_second") {
      r.reportedRate = m.point.value;
    } else if (key == kAllocatedBytesKey) {
      r.deviceBytes = m.point.value;
    } else if (key == kRssBytesKey) {
      r.hostBytes = m.point.value;
    }
  }
  for (const store::Heartbeat& h : delta.heartbeats) {
    Rank& r = rankRow(h.rank, &inserted);
    if (!r.heartbeat || h.time > *r.heartbeat) {
      r.heartbeat = h.time;
      r.entered = h.entered;
      r.finished = h.finished;
      sample(r, h.time, h.step);
    }
  }
  m_now = std::max(m_now, delta.readAt);
  if (!m_rows.empty() &&
      (!delta.ranks.empty() || !delta.metrics.empty() || !delta.heartbeats.empty() || statusChanged || inserted)) {
    emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  }
}

void LiveRanksModel::setNow(double now) {
  m_now = now;
  if (!m_rows.empty()) {
    emit dataChanged(index(0, HeartbeatAgeColumn), index(rowCount() - 1, HeartbeatAgeColumn));
  }
}

std::optional<std::int64_t> LiveRanksModel::stepOf(int rank) const {
  for (const Rank& r : m_rows) {
    if (r.info.rank == rank) {
      return r.step;
    }
  }
  return std::nullopt;
}

std::optional<double> LiveRanksModel::stepsPerSecond(const Rank& r) const {
  // Over the window: steps made between its first and last sample, per second between them.
  if (r.window.size() >= 2) {
    const double seconds = r.window.back().first - r.window.front().first;
    if (seconds > 0) {
      return double(r.window.back().second - r.window.front().second) / seconds;
    }
  }
  return r.reportedRate;
}

int LiveRanksModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int LiveRanksModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant LiveRanksModel::display(const Rank& r, int column) const {
  auto opt = [](const auto& v, auto text) { return v ? text(*v) : kNone; };
  switch (column) {
  case RankColumn: return r.info.rank;
  case StateColumn:
    if (r.info.exitCode) {
      return *r.info.exitCode == 0 ? tr("exited") : tr("failed (exit code %1)").arg(*r.info.exitCode);
    }
    return m_status == store::RunStatus::Running ? tr("running") : RunsModel::statusText(m_status);
  case HostColumn: return r.info.host.empty() ? kNone : QString::fromStdString(r.info.host);
  case PidColumn: return r.info.pid > 0 ? QString::number(r.info.pid) : kNone;
  case StepColumn: return opt(r.step, [](std::int64_t s) { return QString::number(s); });
  case StepsPerSecondColumn:
    return opt(stepsPerSecond(r), [](double v) { return QLocale().toString(v, 'f', v < 10 ? 2 : 1); });
  case LossColumn: return format::scalar(r.loss);
  case DeviceMemoryColumn: return opt(r.deviceBytes, [](double v) { return format::bytes(v); });
  case HostMemoryColumn: return opt(r.hostBytes, [](double v) { return format::bytes(v); });
  case PhaseColumn: return r.phase.isEmpty() ? kNone : r.phase;
  case HeartbeatAgeColumn:
    return opt(r.heartbeat, [this](double t) { return format::duration(std::max(0.0, m_now - t)); });
  case CollectiveEnteredColumn: return format::collective(r.entered);
  case CollectiveFinishedColumn: return format::collective(r.finished);
  default: return {};
  }
}

QVariant LiveRanksModel::sortValue(const Rank& r, int column) const {
  auto num = [](const auto& v) { return v ? QVariant(double(*v)) : QVariant(-HUGE_VAL); };
  switch (column) {
  case RankColumn: return r.info.rank;
  case PidColumn: return QVariant::fromValue<qint64>(r.info.pid);
  case StepColumn: return num(r.step);
  case StepsPerSecondColumn: return num(stepsPerSecond(r));
  case LossColumn: return num(r.loss);
  case DeviceMemoryColumn: return num(r.deviceBytes);
  case HostMemoryColumn: return num(r.hostBytes);
  case HeartbeatAgeColumn: return r.heartbeat ? QVariant(m_now - *r.heartbeat) : QVariant(-HUGE_VAL);
  default: return display(r, column);
  }
}

QVariant LiveRanksModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const Rank& r = m_rows.at(static_cast<std::size_t>(index.row()));
  switch (role) {
  case Qt::DisplayRole: return display(r, index.column());
  case SortRole: return sortValue(r, index.column());
  case ExitCodeRole: return r.info.exitCode ? QVariant(*r.info.exitCode) : QVariant();
  case Qt::TextAlignmentRole:
    return index.column() == StateColumn || index.column() == HostColumn || index.column() == PhaseColumn
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  default: return {};
  }
}

QVariant LiveRanksModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case RankColumn: return tr("Rank");
  case StateColumn: return tr("State");
  case HostColumn: return tr("Host");
  case PidColumn: return tr("PID");
  case StepColumn: return tr("Step");
  case StepsPerSecondColumn: return tr("Steps/s");
  case LossColumn: return tr("Loss");
  case DeviceMemoryColumn: return tr("Device memory");
  case HostMemoryColumn: return tr("Host memory");
  case PhaseColumn: return tr("Phase");
  case HeartbeatAgeColumn: return tr("Last heartbeat");
  case CollectiveEnteredColumn: return tr("Collective entered");
  case CollectiveFinishedColumn: return tr("Collective finished");
  default: return {};
  }
}

}  // namespace fathom::views
