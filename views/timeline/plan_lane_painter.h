// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/plan/planned_step.h>
#include <fathom/trace/timeline_index.h>
#include <fathom/trace/trace_summary.h>

#include <QColor>
#include <QCoreApplication>
#include <QString>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

class QPainter;

namespace fathom::views {

/// The timeline's plan lanes (issue 19): under each rank's process, the planner's predicted step (plan/planned_step.h)
/// drawn again at every ProfilerStep#N start the rank measured, so that predicted and measured sit on one time axis.
/// A plan lane has two rows: the critical path (forward and backward compute, the pipeline bubble, the optimizer, and
/// communication that is exposed) and the communication stream (each collective: hidden under compute, or exposed).
///
/// Cost per frame and lane: a binary search for the visible steps, then the segments of those steps; a segment
/// narrower than a pixel that falls in a column its row already filled for the step is skipped (Tracy's merging,
/// coarser), so a step fills at most one rectangle per pixel column and row. A planned step longer than the measured
/// one is overlapped by the next step's plan, drawn over it.
class PlanLanePainter {
  Q_DECLARE_TR_FUNCTIONS(PlanLanePainter)

public:
  /// What a rectangle of a plan lane shows, which decides its colour.
  enum class Shade {
    Compute,      ///< forward or backward compute
    Idle,         ///< pipeline bubble, optimizer (offload transfers)
    Overlapped,   ///< communication hidden under compute (communication row)
    ExposedComm,  ///< communication on the critical path (both rows)
  };
  /// One rectangle of the last frame.
  struct Rect {
    std::uint32_t process = 0;
    int row = 0;  ///< 0: the critical path, 1: the communication stream
    int x0 = 0;   ///< plot pixels, x1 > x0
    int x1 = 0;
    Shade shade = Shade::Compute;
    std::int64_t step = 0;  ///< the measured ProfilerStep#N it is drawn at
    int segment = 0;        ///< its index in PlannedStep::path (row 0) or ::communication (row 1)
  };

  /// The plan to draw; nullopt removes the lanes.
  void setPlan(std::optional<plan::PlannedStep> plan);
  const std::optional<plan::PlannedStep>& plan() const { return m_plan; }
  /// Reads each process's ProfilerStep starts from `index` (nullptr: none).
  void setIndex(const trace::TimelineIndex* index);
  /// Whether `process` gets a plan lane: a plan is set and the process holds ProfilerStep spans.
  bool hasLane(std::uint32_t process) const;
  /// The end of the last planned step drawn (the latest step start + the planned step), or nullopt without a plan or
  /// steps: the view lets the time axis run to it, so that a plan longer than the trace is seen whole.
  std::optional<std::int64_t> extentEndNs() const;
  /// The starts of `process`'s ProfilerSteps, ascending.
  std::span<const std::int64_t> stepStarts(std::uint32_t process) const;

  /// Forgets the last frame's rectangles (call once per paint, before the lanes).
  void beginFrame() { m_frame.clear(); }
  /// Paints `process`'s plan lane into the plot area starting at x = `left`, `pixels` wide, rows from `top`, each
  /// `rowHeight` high, over `range`.
  void paint(QPainter& painter, std::uint32_t process, trace::TimeRange range, int left, int pixels, int top,
             int rowHeight);
  /// The rectangles every paint() of this frame filled.
  const std::vector<Rect>& lastFrame() const { return m_frame; }
  /// What hovering at time `t` of `process`'s lane row `row` shows: the planned segment there (phase or collective,
  /// its predicted duration, the measured step it is drawn at); empty over nothing.
  QString toolTipAt(std::uint32_t process, int row, std::int64_t t) const;

  /// The colour of a shade (the legend's and the lanes').
  static QColor colour(Shade shade);
  /// The shade of a planned segment.
  static Shade shadeOf(const plan::PlannedSegment& segment);
  /// "forward", "backward", ... in the UI language.
  static QString phaseName(plan::PlannedPhase phase);

private:
  struct StepStarts {
    std::vector<std::int64_t> starts;
    std::vector<std::int64_t> numbers;
  };
  const plan::PlannedSegment* segmentAt(const std::vector<plan::PlannedSegment>& segments, double s) const;

  std::optional<plan::PlannedStep> m_plan;
  std::vector<StepStarts> m_steps;  ///< per process
  std::vector<Rect> m_frame;
};

}  // namespace fathom::views
