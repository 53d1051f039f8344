// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/records.h>

#include <QAbstractTableModel>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <vector>

namespace fathom::views {

/// One saved planner result of the workspace (store::PlanRecord), as the plans list shows it. Comparisons saved
/// by the what-if planner (input {"kind": "comparison", "request": ...}) are summarised; other records show what
/// they name.
struct SavedPlanRow {
  qint64 id = 0;
  QDateTime savedAt;
  QString model;        ///< the model's name ("gpt-tiny", "Llama 2 7B", a config path)
  QString hardware;     ///< the preset or custom device name
  int numGpus = 0;      ///< 0 = unknown
  int strategies = 0;   ///< strategies compared
  int fitting = 0;      ///< of which fit the device
  QString fastest;      ///< the fitting strategy with the shortest predicted step ("fsdp/full_shard"), or empty
  QJsonObject request;  ///< the comparison's PlanRequest JSON; empty for other records

  static SavedPlanRow fromRecord(const store::PlanRecord& record);
};

/// The saved plans of a workspace, newest last. setPlans() resets the model.
class SavedPlansModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column {
    IdColumn,
    SavedColumn,
    ModelColumn,
    HardwareColumn,
    GpusColumn,
    FittingColumn,
    FastestColumn,
    ColumnCount
  };
  enum Role {
    /// qint64: the plan's id in the workspace.
    PlanIdRole = Qt::UserRole + 1,
    /// QJsonObject: the PlanRequest the comparison was made for (empty when the record is not a comparison).
    RequestRole,
    /// Sort value (numbers as numbers).
    SortRole,
  };

  explicit SavedPlansModel(QObject* parent = nullptr);

  void setPlans(const QList<SavedPlanRow>& plans);
  const QList<SavedPlanRow>& plans() const { return m_rows; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  QList<SavedPlanRow> m_rows;
};

}  // namespace fathom::views
