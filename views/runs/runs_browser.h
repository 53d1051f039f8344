// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace fathom::views {

class RunsModel;

/// The runs browser: the runs of the open workspace in a sortable table (status, start, duration, world size,
/// strategy, final loss), a text filter over every column and a status filter, and an empty state that says what
/// to do when there is nothing to show. Double-click (or Enter) opens a run; Compare opens the runs selected
/// (Ctrl/Shift-click, two or more) side by side.
class RunsBrowser : public QWidget {
  Q_OBJECT

public:
  explicit RunsBrowser(RunsModel* model, QWidget* parent = nullptr);

  /// Focuses the filter field and selects its text (Ctrl+F).
  void focusFilter();
  /// The text shown instead of the table while there are no runs (e.g. "No workspace open").
  void setEmptyText(const QString& text);
  /// Selects run `id` if it is listed.
  void selectRun(qint64 id);
  /// The selected run, or 0.
  qint64 currentRun() const;
  /// Every selected run, by id.
  QList<qint64> selectedRuns() const;
  /// Selects exactly `ids` (those listed).
  void selectRuns(const QList<qint64>& ids);

  QTableView* view() const { return m_view; }
  QSortFilterProxyModel* proxy() const { return m_proxy; }

signals:
  void runActivated(qint64 runId);
  void currentRunChanged(qint64 runId);
  void compareRequested(const QList<qint64>& runIds);

private:
  void updateEmptyState();

  RunsModel* m_model;
  QSortFilterProxyModel* m_proxy = nullptr;
  QLineEdit* m_filter = nullptr;
  QComboBox* m_status = nullptr;
  QPushButton* m_compare = nullptr;
  QStackedWidget* m_stack = nullptr;
  QTableView* m_view = nullptr;
  QLabel* m_empty = nullptr;
  QString m_emptyText;
};

}  // namespace fathom::views
