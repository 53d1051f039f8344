// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/store/run_comparison.h>

#include <QAbstractTableModel>
#include <QStringList>

namespace fathom::views {

/// The configuration keys whose values differ between compared runs (store::RunComparison::configDifferences,
/// computed in core so `fathom runs compare` shows the same): one row per key, the key then one column per run.
class ConfigDiffModel : public QAbstractTableModel {
  Q_OBJECT

public:
  enum Column { KeyColumn, FirstRunColumn };

  explicit ConfigDiffModel(QObject* parent = nullptr);

  void setComparison(const store::RunComparison& comparison);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  std::vector<store::ConfigDifference> m_rows;
  QStringList m_runs;  ///< column headers
};

}  // namespace fathom::views
