// SPDX-License-Identifier: Apache-2.0
#include "runs/metric_summary_model.h"

#include "common/formatting.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace fathom::views {
namespace {

bool isBytes(const std::string& key) {
  return key.rfind("memory/", 0) == 0;
}

}  // namespace

MetricSummaryModel::MetricSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void MetricSummaryModel::setSummaries(const std::vector<store::MetricSummary>& summaries) {
  beginResetModel();
  m_rows = summaries;
  endResetModel();
}

void MetricSummaryModel::appendPoints(const std::vector<store::MetricRow>& rows) {
  int firstChanged = -1, lastChanged = -1;
  for (const store::MetricRow& row : rows) {
    const store::MetricPoint& p = row.point;
    const auto at = std::lower_bound(m_rows.begin(), m_rows.end(), p, [](const store::MetricSummary& m, const auto& q) {
      return m.key != q.key ? m.key < q.key : m.rank < q.rank;
    });
    const int position = static_cast<int>(at - m_rows.begin());
    if (at == m_rows.end() || at->key != p.key || at->rank != p.rank) {
      beginInsertRows({}, position, position);
      m_rows.insert(at, store::MetricSummary{p.key, p.rank, 1, p.step, p.value, p.value, p.value});
      endInsertRows();
      if (firstChanged >= position) {
        ++firstChanged;
      }
      if (lastChanged >= position) {
        ++lastChanged;
      }
      continue;
    }
    store::MetricSummary& m = *at;
    ++m.count;
    if (p.step >= m.lastStep) {  // the last value is the one at the highest step (the latest among equal steps)
      m.lastStep = p.step;
      m.last = p.value;
    }
    // SQLite's MIN/MAX skip NULL (NaN is stored as NULL).
    if (!std::isnan(p.value)) {
      m.min = std::isnan(m.min) ? p.value : std::min(m.min, p.value);
      m.max = std::isnan(m.max) ? p.value : std::max(m.max, p.value);
    }
    firstChanged = firstChanged < 0 ? position : std::min(firstChanged, position);
    lastChanged = std::max(lastChanged, position);
  }
  if (firstChanged >= 0) {
    emit dataChanged(index(firstChanged, 0), index(lastChanged, ColumnCount - 1));
  }
}

int MetricSummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int MetricSummaryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant MetricSummaryModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const store::MetricSummary& m = m_rows.at(static_cast<std::size_t>(index.row()));
  auto value = [&](double v) -> QVariant {
    if (role == SortRole) {
      return v;
    }
    return isBytes(m.key) ? format::bytes(v) : format::scalar(v);
  };
  if (role == Qt::DisplayRole || role == SortRole) {
    switch (index.column()) {
    case KeyColumn: return QString::fromStdString(m.key);
    case RankColumn: return m.rank;
    case CountColumn: return QVariant::fromValue<qint64>(m.count);
    case LastColumn: return value(m.last);
    case LastStepColumn: return QVariant::fromValue<qint64>(m.lastStep);
    case MinColumn: return value(m.min);
    case MaxColumn: return value(m.max);
    default: return {};
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() != KeyColumn) {
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  }
  return {};
}

QVariant MetricSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case KeyColumn: return tr("Metric");
  case RankColumn: return tr("Rank");
  case CountColumn: return tr("Points");
  case LastColumn: return tr("Last");
  case LastStepColumn: return tr("At step");
  case MinColumn: return tr("Minimum");
  case MaxColumn: return tr("Maximum");
  default: return {};
  }
}

}  // namespace fathom::views
