// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "planner/plan_comparison.h"

#include <QWidget>

#include <array>

class QLabel;

namespace fathom::views {

class MemoryBar;

/// The planner beside the wizard (and in the main window's Planner dock): for one plan, the predicted memory per
/// GPU by category against the device's capacity, communication per step, step time, throughput and MFU, and a
/// warning when the plan will not fit or is not valid. Every number's tooltip is its `fathom plan --explain` text.
class PlannerPanel : public QWidget {
  Q_OBJECT

public:
  explicit PlannerPanel(QWidget* parent = nullptr);

  /// Shows a snapshot (the PlannerController computes it).
  void setSnapshot(const PlanSnapshot& snapshot);
  /// Says the planner is working on a newer plan (the numbers shown are for the previous one).
  void setBusy(bool busy);
  /// Shows the empty state: `message` instead of numbers.
  void clear(const QString& message);

  const PlanSnapshot& snapshot() const { return m_snapshot; }
  /// The warning shown (empty when the plan fits).
  QString warning() const;

private:
  QLabel* valueLabel(const QString& name);

  PlanSnapshot m_snapshot;
  QLabel* m_title = nullptr;
  QLabel* m_subtitle = nullptr;
  QLabel* m_empty = nullptr;
  QWidget* m_body = nullptr;
  MemoryBar* m_bar = nullptr;
  std::array<QLabel*, plan::kMemoryBreakdownFields.size()> m_categoryValues{};
  std::array<QLabel*, plan::kMemoryBreakdownFields.size()> m_categoryNames{};
  QLabel* m_total = nullptr;
  QLabel* m_commBytes = nullptr;
  QLabel* m_commTime = nullptr;
  QLabel* m_stepTime = nullptr;
  QLabel* m_throughput = nullptr;
  QLabel* m_mfu = nullptr;
  QLabel* m_warning = nullptr;
  QLabel* m_busy = nullptr;
};

}  // namespace fathom::views
