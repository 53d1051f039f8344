// SPDX-License-Identifier: Apache-2.0
#include "runs/alerts_model.h"

#include "common/formatting.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>
#include <QLocale>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace fathom::views {

AlertsModel::AlertsModel(QObject* parent) : QAbstractTableModel(parent) {}

void AlertsModel::setAlerts(const std::vector<store::AlertRow>& alerts) {
  beginResetModel();
  m_rows = alerts;
  std::sort(m_rows.begin(), m_rows.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  endResetModel();
}

void AlertsModel::appendAlerts(const std::vector<store::AlertRow>& alerts) {
  std::vector<store::AlertRow> newer;
  for (const store::AlertRow& a : alerts) {
    if (a.id.value > (newer.empty() ? lastAlertId() : newer.back().id.value)) {
      newer.push_back(a);
      continue;
    }
    const auto held = std::lower_bound(m_rows.begin(), m_rows.end(), a.id,
                                       [](const store::AlertRow& row, store::AlertId id) { return row.id < id; });
    if (held != m_rows.end() && held->id == a.id && !(held->alert == a.alert)) {
      held->alert = a.alert;
      const int row = static_cast<int>(held - m_rows.begin());
      emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
  }
  if (newer.empty()) {
    return;
  }
  const int first = static_cast<int>(m_rows.size());
  beginInsertRows({}, first, first + static_cast<int>(newer.size()) - 1);
  m_rows.insert(m_rows.end(), newer.begin(), newer.end());
  endInsertRows();
}

qint64 AlertsModel::lastAlertId() const {
  return m_rows.empty() ? 0 : m_rows.back().id.value;
}

int AlertsModel::openCount() const {
  return static_cast<int>(
      std::count_if(m_rows.begin(), m_rows.end(), [](const auto& a) { return !a.alert.resolvedAt.has_value(); }));
}

int AlertsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int AlertsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString AlertsModel::kindText(store::AlertKind kind) {
  return kind == store::AlertKind::Hang ? tr("hang") : tr("straggler");
}

QString AlertsModel::durationText(const store::RunAlert& alert) const {
  const QLocale locale;
  if (alert.kind == store::AlertKind::Hang) {
    return tr("stalled %1 s").arg(locale.toString(alert.stalledSeconds, 'f', 1));
  }
  for (const store::AlertRank& r : alert.ranks) {
    if (r.behind && r.stepSeconds && alert.medianStepSeconds) {
      return tr("%1 s per step (others %2 s)")
          .arg(locale.toString(*r.stepSeconds, 'f', 3), locale.toString(*alert.medianStepSeconds, 'f', 3));
    }
  }
  return {};
}

QVariant AlertsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const store::AlertRow& row = m_rows.at(static_cast<std::size_t>(index.row()));
  const store::RunAlert& a = row.alert;
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case TimeColumn: return format::timeOfDay(a.time);
    case KindColumn: return kindText(a.kind);
    case BehindColumn: {
      QStringList ranks;
      for (int r : a.behind()) {
        ranks << QString::number(r);
      }
      return ranks.join(QStringLiteral(", "));
    }
    case CollectiveColumn: return format::collective(a.waitingIn);
    case DurationColumn: return durationText(a);
    case StatusColumn:
      if (!a.resolvedAt) {
        return tr("open");
      }
      return a.end == store::AlertEnd::Resolved ? tr("resolved") : tr("open at the run's end");
    default: return {};
    }
  case Qt::ToolTipRole: return QString::fromStdString(store::describeAlert(a));
  case Qt::ForegroundRole:
    return a.resolvedAt ? QVariant()
                        : QVariant(QBrush(a.kind == store::AlertKind::Hang ? QColor(0xb3, 0x26, 0x1e)
                                                                           : QColor(0x8a, 0x6d, 0x00)));
  case AlertIdRole: return QVariant::fromValue<qint64>(row.id.value);
  case KindRole: return static_cast<int>(a.kind);
  case ResolvedRole: return a.resolvedAt.has_value();
  case BehindRanksRole: {
    QList<int> ranks;
    for (int r : a.behind()) {
      ranks << r;
    }
    return QVariant::fromValue(ranks);
  }
  default: return {};
  }
}

QVariant AlertsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case TimeColumn: return tr("Raised");
  case KindColumn: return tr("Alert");
  case BehindColumn: return tr("Ranks behind");
  case CollectiveColumn: return tr("Waiting in");
  case DurationColumn: return tr("How long");
  case StatusColumn: return tr("Status");
  default: return {};
  }
}

}  // namespace fathom::views
