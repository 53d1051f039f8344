// SPDX-License-Identifier: Apache-2.0
#include "planner/saved_plans_model.h"

#include "planner/plan_request.h"

#include <fathom/common/error.h>
#include <fathom/plan/prediction_json.h>

#include <nlohmann/json.hpp>

#include <QJsonDocument>
#include <QLocale>

#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

QJsonObject parse(const std::string& text) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
}

}  // namespace

SavedPlanRow SavedPlanRow::fromRecord(const store::PlanRecord& record) {
  SavedPlanRow row;
  row.id = record.id.value;
  row.savedAt = QDateTime::fromMSecsSinceEpoch(std::llround(record.createdAt * 1000.0));
  const QJsonObject input = parse(record.inputJson);
  if (input.value(u"kind"_s).toString() == u"comparison"_s) {
    row.request = input.value(u"request"_s).toObject();
    try {
      const PlanRequest request = PlanRequest::fromJson(row.request);
      row.model = request.model.displayName();
      row.hardware =
          request.hardware.custom ? QString::fromStdString(request.hardware.custom->name) : request.hardware.preset;
      row.numGpus = request.plan.numGpus;
    } catch (const ConfigError&) {
      // A request this version cannot read: the row shows what the prediction says.
    }
  } else {
    row.model = input.value(u"model"_s).toString();
  }
  // The prediction side: every strategy's `fathom plan --json` object (core's one JSON form), or its error.
  nlohmann::json prediction;
  try {
    prediction = nlohmann::json::parse(record.predictionJson);
  } catch (const nlohmann::json::exception&) {
    return row;
  }
  const auto strategies = prediction.find("strategies");
  if (strategies == prediction.end() || !strategies->is_array()) {
    return row;
  }
  double best = std::numeric_limits<double>::infinity();
  for (const nlohmann::json& strategy : *strategies) {
    ++row.strategies;
    if (strategy.contains("error")) {
      continue;
    }
    try {
      const plan::PredictionReport report = plan::predictionReportFromJson(strategy, "strategy");
      if (!report.prediction.fits) {
        continue;
      }
      ++row.fitting;
      if (report.prediction.time.stepS < best) {
        best = report.prediction.time.stepS;
        row.fastest = QString::fromStdString(plan::strategyLabel(report.plan));
      }
    } catch (const ConfigError&) {
      // Not a prediction this version reads: counted, neither fitting nor fastest.
    }
  }
  return row;
}

SavedPlansModel::SavedPlansModel(QObject* parent) : QAbstractTableModel(parent) {}

void SavedPlansModel::setPlans(const QList<SavedPlanRow>& plans) {
  beginResetModel();
  m_rows = plans;
  endResetModel();
}

int SavedPlansModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int SavedPlansModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant SavedPlansModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const SavedPlanRow& r = m_rows.at(index.row());
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case IdColumn: return r.id;
    case SavedColumn: return QLocale().toString(r.savedAt.toLocalTime(), QLocale::ShortFormat);
    case ModelColumn: return r.model.isEmpty() ? u"–"_s : r.model;
    case HardwareColumn: return r.hardware.isEmpty() ? u"–"_s : r.hardware;
    case GpusColumn: return r.numGpus > 0 ? QVariant(r.numGpus) : QVariant(u"–"_s);
    case FittingColumn: return r.strategies > 0 ? tr("%1 of %2").arg(r.fitting).arg(r.strategies) : u"–"_s;
    case FastestColumn: return r.fastest.isEmpty() ? u"–"_s : r.fastest;
    default: return {};
    }
  case SortRole:
    switch (index.column()) {
    case IdColumn: return r.id;
    case SavedColumn: return r.savedAt;
    case GpusColumn: return r.numGpus;
    case FittingColumn: return r.fitting;
    default: return data(index, Qt::DisplayRole);
    }
  case Qt::ToolTipRole: return index.column() == ModelColumn && !r.model.isEmpty() ? QVariant(r.model) : QVariant();
  case PlanIdRole: return r.id;
  case RequestRole: return r.request;
  default: return {};
  }
}

QVariant SavedPlansModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return {};
  }
  switch (section) {
  case IdColumn: return tr("ID");
  case SavedColumn: return tr("Saved");
  case ModelColumn: return tr("Model");
  case HardwareColumn: return tr("Hardware");
  case GpusColumn: return tr("GPUs");
  case FittingColumn: return tr("Fitting");
  case FastestColumn: return tr("Fastest fitting");
  default: return {};
  }
}

}  // namespace fathom::views
