// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/run_alert.h>

#include <QAbstractTableModel>

#include <vector>

namespace fathom::views {

/// The run monitor's alerts of one run (store::AlertRow, by id: docs/launch.md, "Hang and straggler detection"):
/// when raised, kind, the ranks behind, the collective the others wait in, how long (hang) or the straggler's time
/// per step, and whether it is still open. Fed incrementally from Workspace::alerts(run, after): appendAlerts()
/// adds the alerts newer than the last held and updates those it holds (an alert keeps its id when it is resolved),
/// so a live run page never reloads the list.
class AlertsModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { TimeColumn, KindColumn, BehindColumn, CollectiveColumn, DurationColumn, StatusColumn, ColumnCount };
  enum Role {
    /// qint64: the alert's id in the workspace.
    AlertIdRole = Qt::UserRole + 1,
    /// int: the store::AlertKind.
    KindRole,
    /// bool: the alert ended (resolved).
    ResolvedRole,
    /// QList<int>: the ranks behind (hang) or the straggler.
    BehindRanksRole,
  };

  explicit AlertsModel(QObject* parent = nullptr);

  /// Replaces every alert (a newly selected run).
  void setAlerts(const std::vector<store::AlertRow>& alerts);
  /// Adds the alerts with an id above lastAlertId() at the end (ids ascending) and replaces those already held
  /// whose content changed (a resolution), emitting dataChanged for their rows only.
  void appendAlerts(const std::vector<store::AlertRow>& alerts);
  /// The id of the newest alert held (0 when empty).
  qint64 lastAlertId() const;
  /// Alerts still open.
  int openCount() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  static QString kindText(store::AlertKind kind);

private:
  QString durationText(const store::RunAlert& alert) const;

  std::vector<store::AlertRow> m_rows;  ///< ascending ids
};

}  // namespace fathom::views
