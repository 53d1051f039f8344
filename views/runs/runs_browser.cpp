// SPDX-License-Identifier: Apache-2.0
#include "runs/runs_browser.h"

#include "runs/runs_model.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

/// Filters by text over every column and, optionally, by status.
class RunsFilter : public QSortFilterProxyModel {
public:
  using QSortFilterProxyModel::QSortFilterProxyModel;

  void setStatus(int status) {
    m_status = status;
    invalidateFilter();
  }

protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
    if (m_status >= 0 && sourceModel()->index(row, 0, parent).data(RunsModel::StatusRole).toInt() != m_status) {
      return false;
    }
    return QSortFilterProxyModel::filterAcceptsRow(row, parent);
  }

private:
  int m_status = -1;
};

}  // namespace

RunsBrowser::RunsBrowser(RunsModel* model, QWidget* parent) : QWidget(parent), m_model(model) {
  setObjectName(u"runsBrowser"_s);
  auto* filter = new RunsFilter(this);
  m_proxy = filter;
  m_proxy->setSourceModel(model);
  m_proxy->setSortRole(RunsModel::SortRole);
  m_proxy->setFilterKeyColumn(-1);
  m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);

  m_filter = new QLineEdit(this);
  m_filter->setObjectName(u"runsFilter"_s);
  m_filter->setPlaceholderText(tr("Filter runs (Ctrl+F)"));
  m_filter->setClearButtonEnabled(true);
  m_status = new QComboBox(this);
  m_status->setObjectName(u"runsStatusFilter"_s);
  m_status->addItem(tr("All statuses"), -1);
  for (auto s :
       {store::RunStatus::Running, store::RunStatus::Succeeded, store::RunStatus::Failed, store::RunStatus::Lost}) {
    m_status->addItem(RunsModel::statusText(s), static_cast<int>(s));
  }

  m_view = new QTableView(this);
  m_view->setObjectName(u"runsView"_s);
  m_view->setModel(m_proxy);
  m_view->setSortingEnabled(true);
  m_view->sortByColumn(RunsModel::IdColumn, Qt::DescendingOrder);  // newest first
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);  // Ctrl/Shift-click: runs to compare
  m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_view->setAlternatingRowColors(true);
  m_view->verticalHeader()->hide();
  m_view->horizontalHeader()->setStretchLastSection(true);
  m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  m_view->setWordWrap(false);

  m_empty = new QLabel(this);
  m_empty->setObjectName(u"runsEmpty"_s);
  m_empty->setAlignment(Qt::AlignCenter);
  m_empty->setWordWrap(true);
  m_empty->setEnabled(false);
  m_stack = new QStackedWidget(this);
  m_stack->addWidget(m_view);
  m_stack->addWidget(m_empty);

  m_compare = new QPushButton(tr("Compare"), this);
  m_compare->setObjectName(u"runsCompare"_s);
  m_compare->setToolTip(tr("Select two or more runs (Ctrl+click) to compare their metrics, configurations and "
                           "summaries"));
  m_compare->setEnabled(false);

  auto* top = new QHBoxLayout();
  top->addWidget(m_filter, 1);
  top->addWidget(m_status);
  top->addWidget(m_compare);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(top);
  layout->addWidget(m_stack, 1);

  connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
  connect(m_status, &QComboBox::currentIndexChanged, this,
          [this, filter] { filter->setStatus(m_status->currentData().toInt()); });
  connect(m_view, &QTableView::activated, this,
          [this](const QModelIndex& index) { emit runActivated(index.data(RunsModel::RunIdRole).toLongLong()); });
  connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    emit currentRunChanged(current.isValid() ? current.data(RunsModel::RunIdRole).toLongLong() : 0);
  });
  connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          [this] { m_compare->setEnabled(selectedRuns().size() >= 2); });
  connect(m_compare, &QPushButton::clicked, this, [this] {
    if (const QList<qint64> runs = selectedRuns(); runs.size() >= 2) {
      emit compareRequested(runs);
    }
  });
  connect(m_proxy, &QAbstractItemModel::modelReset, this, &RunsBrowser::updateEmptyState);
  connect(m_proxy, &QAbstractItemModel::layoutChanged, this, &RunsBrowser::updateEmptyState);
  connect(m_proxy, &QAbstractItemModel::rowsInserted, this, [this] {
    updateEmptyState();
    m_view->resizeColumnsToContents();
  });
  connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &RunsBrowser::updateEmptyState);
  setEmptyText(tr("No workspace open."));
}

void RunsBrowser::focusFilter() {
  m_filter->setFocus(Qt::ShortcutFocusReason);
  m_filter->selectAll();
}

void RunsBrowser::setEmptyText(const QString& text) {
  m_emptyText = text;
  updateEmptyState();
}

void RunsBrowser::updateEmptyState() {
  const bool none = m_model->rowCount() == 0;
  m_empty->setText(none ? m_emptyText : tr("No run matches the filter."));
  m_stack->setCurrentWidget(m_proxy->rowCount() == 0 ? static_cast<QWidget*>(m_empty) : m_view);
}

void RunsBrowser::selectRun(qint64 id) {
  const int row = m_model->rowOfRun(id);
  if (row < 0) {
    return;
  }
  const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
  if (index.isValid()) {
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index);
  }
}

QList<qint64> RunsBrowser::selectedRuns() const {
  QList<qint64> out;
  for (const QModelIndex& index : m_view->selectionModel()->selectedRows()) {
    out << index.data(RunsModel::RunIdRole).toLongLong();
  }
  std::sort(out.begin(), out.end());
  return out;
}

void RunsBrowser::selectRuns(const QList<qint64>& ids) {
  QItemSelection selection;
  for (const qint64 id : ids) {
    const int row = m_model->rowOfRun(id);
    if (row >= 0) {
      const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
      selection.select(index, index);
    }
  }
  m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

qint64 RunsBrowser::currentRun() const {
  const QModelIndex index = m_view->currentIndex();
  return index.isValid() ? index.data(RunsModel::RunIdRole).toLongLong() : 0;
}

}  // namespace fathom::views
