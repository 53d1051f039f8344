// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/trace/step_alignment.h>

#include <QWidget>

#include <vector>

namespace fathom::views {

/// StepAlignmentView's drawing: one step of every rank, a row per rank on one time axis starting at the earliest
/// rank's start. Each row shows the rank's ProfilerStep span, its collective spans, and a mark at each arrival; the
/// last rank's mark of each collective is red and labelled with its lag, and a dashed line across the rows shows where
/// that last arrival let the collective proceed.
class StepAlignmentCanvas : public QWidget {
  Q_OBJECT

public:
  struct Mark {
    int rank = 0;
    std::uint32_t ordinal = 0;
    int x = 0;
    bool last = false;
  };

  explicit StepAlignmentCanvas(QWidget* parent = nullptr);

  /// Shows `step` of `index` (either nullptr: nothing). Both must outlive the canvas or the next call.
  void setStep(const trace::TimelineIndex* index, const trace::AlignedStep* step);
  const std::vector<Mark>& lastPaintMarks() const { return m_marks; }
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

protected:
  void paintEvent(QPaintEvent* event) override;

private:
  static constexpr int kHeaderWidth = 90;
  static constexpr int kRulerHeight = 22;
  static constexpr int kRowHeight = 26;

  const trace::TimelineIndex* m_index = nullptr;
  const trace::AlignedStep* m_step = nullptr;
  std::vector<Mark> m_marks;
};

}  // namespace fathom::views
