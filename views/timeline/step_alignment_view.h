// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "timeline/step_alignment_canvas.h"

#include <fathom/plan/planned_step.h>
#include <fathom/trace/step_alignment.h>

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QTableView;
class QTreeWidget;

namespace fathom::views {

class PlanStepModel;

/// The step alignment of a multi-rank trace (issue 19), a tab beside its timeline: pick a ProfilerStep#N; every rank's
/// span of that step is a row, stacked on one time axis that starts at the earliest rank's start, with a mark where
/// the rank arrived at each of the step's collectives; the rank that arrived last at a collective (the one every
/// other rank waited for) is marked in red with its lag. Below, the collectives as a table (first and last rank, lag,
/// spread), and, when a plan is set, the step measured on a chosen rank against the planned step (PlanStepModel).
/// Computed once per trace by trace::alignSteps.
class StepAlignmentView : public QWidget {
  Q_OBJECT

public:
  /// One collective mark the last paint drew: its rank, the collective's ordinal, x, and whether it is the last
  /// arrival (drawn highlighted).
  using Mark = StepAlignmentCanvas::Mark;

  explicit StepAlignmentView(QWidget* parent = nullptr);
  ~StepAlignmentView() override;

  /// Aligns `index`'s steps (nullptr clears) and shows the first step.
  void setIndex(std::shared_ptr<const trace::TimelineIndex> index);
  const trace::StepAlignment& alignment() const { return m_alignment; }
  /// The planned step to compare each step with; nullopt hides the comparison.
  void setPlan(std::optional<plan::PlannedStep> plan);

  /// The step shown: an index into alignment().steps, -1 when there is none.
  int currentStep() const;
  void setCurrentStep(int step);
  /// The rank whose measured step the comparison shows.
  int comparedRank() const;
  void setComparedRank(int rank);

  /// The ranks the view highlights as last, per collective of the current step (by ordinal): what the table's "last
  /// rank" column and the canvas's red marks show.
  std::vector<int> highlightedLastRanks() const;
  /// The marks the canvas drew in its last paint.
  const std::vector<Mark>& lastPaintMarks() const;
  const PlanStepModel* comparisonModel() const { return m_comparison; }

signals:
  void currentStepChanged(int step);

private:
  void showStep();
  void updateComparison();

  std::shared_ptr<const trace::TimelineIndex> m_index;
  trace::StepAlignment m_alignment;
  std::optional<plan::PlannedStep> m_plan;
  QComboBox* m_steps = nullptr;
  QLabel* m_summary = nullptr;
  StepAlignmentCanvas* m_canvas = nullptr;
  QTreeWidget* m_collectives = nullptr;
  QWidget* m_comparisonBox = nullptr;
  QComboBox* m_rank = nullptr;
  QTableView* m_comparisonTable = nullptr;
  PlanStepModel* m_comparison = nullptr;
};

}  // namespace fathom::views
