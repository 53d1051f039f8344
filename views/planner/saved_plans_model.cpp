// SPDX-License-Identifier: Apache-2.0
#include "planner/saved_plans_model.h"

#include <QJsonArray>
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

QString modelName(const QJsonObject& model) {
  const QString kind = model.value(u"kind"_s).toString();
  if (kind == u"builtin"_s) {
    return model.value(u"builtin"_s).toObject().value(u"name"_s).toString();
  }
  if (kind == u"dims"_s) {
    const QString name = model.value(u"name"_s).toString();
    return name.isEmpty() ? model.value(u"dims"_s).toObject().value(u"arch"_s).toString() : name;
  }
  if (kind == u"hf_config"_s) {
    return model.value(u"path"_s).toString();
  }
  if (kind == u"params"_s) {
    return QLocale().toString(model.value(u"params"_s).toDouble(), 'g', 3);
  }
  return {};
}

}  // namespace

SavedPlanRow SavedPlanRow::fromRecord(const store::PlanRecord& record) {
  SavedPlanRow row;
  row.id = record.id.value;
  row.savedAt = QDateTime::fromMSecsSinceEpoch(std::llround(record.createdAt * 1000.0));
  const QJsonObject input = parse(record.inputJson);
  if (input.value(u"kind"_s).toString() == u"comparison"_s) {
    row.request = input.value(u"request"_s).toObject();
    row.model = modelName(row.request.value(u"model"_s).toObject());
    const QJsonObject hardware = row.request.value(u"hardware"_s).toObject();
    row.hardware = hardware.contains(u"custom"_s) ? hardware.value(u"custom"_s).toObject().value(u"name"_s).toString()
                                                  : hardware.value(u"preset"_s).toString();
    row.numGpus = row.request.value(u"plan"_s).toObject().value(u"num_gpus"_s).toInt();
  } else {
    row.model = input.value(u"model"_s).toString();
  }
  double best = std::numeric_limits<double>::infinity();
  for (const QJsonValue& s : parse(record.predictionJson).value(u"strategies"_s).toArray()) {
    const QJsonObject o = s.toObject();
    ++row.strategies;
    if (!o.value(u"memory"_s).toObject().value(u"fits"_s).toBool()) {
      continue;
    }
    ++row.fitting;
    const double step = o.value(u"time"_s).toObject().value(u"step_s"_s).toDouble(best);
    if (step < best) {
      best = step;
      const QJsonObject plan = o.value(u"plan"_s).toObject();
      row.fastest = plan.value(u"strategy"_s).toString();
      if (plan.contains(u"fsdp_sharding_strategy"_s)) {
        row.fastest += u"/"_s + plan.value(u"fsdp_sharding_strategy"_s).toString();
      }
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
