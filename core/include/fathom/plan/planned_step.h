// SPDX-License-Identifier: Apache-2.0
// A prediction laid out as a timeline: one optimizer step of one rank as the planner's time model schedules it, for
// the trace timeline's plan lane (issue 19) and docs/planner.md ("The planned step").
#pragma once

#include <fathom/plan/prediction.h>
#include <fathom/plan/training_plan.h>

#include <cstdint>
#include <vector>

namespace fathom::plan {

/// What a segment of the planned step is.
enum class PlannedPhase {
  Bubble,         ///< pipeline fill: the stage waits for its first micro-batch (TimePrediction::bubbleS)
  Forward,        ///< forward compute of one micro-step
  Backward,       ///< backward compute of one micro-step (recomputation included)
  Optimizer,      ///< the optimizer step: the planner counts only offloading's host<->device transfers (offloadS)
  Communication,  ///< (part of) one collective entry's calls
  Overhead,       ///< the loop's own time a profiled run's fit measured (TimePrediction::overheadS), last
};

/// One interval of the planned step, in seconds from the step's start.
struct PlannedSegment {
  PlannedPhase phase = PlannedPhase::Forward;
  double startS = 0.0;
  double endS = 0.0;
  int microStep = -1;   ///< Forward/Backward, and collectives issued per micro-step: 0 .. gradAccum - 1; else -1
  int collective = -1;  ///< Communication: the index in PlannedStep::collectives (Prediction::communication's order)
  /// Communication: whether this part is on the critical path (not hidden behind compute). A collective that is
  /// partly hidden is split into a hidden and an exposed segment.
  bool exposed = false;
  double durationS() const { return endS - startS; }
};

/// One optimizer step of one rank as the planner's time model schedules it (plan/predict.h, docs/planner.md):
///
/// - `path` is the critical path: contiguous segments tiling [0, stepS] in order: the pipeline bubble, then per
///   micro-step its forward and backward compute (the planner's backward share: 2/3 of the micro-step, 3/4 with full
///   recomputation), each followed by its share of the non-overlapped per-micro-step collectives (tensor- and
///   pipeline-parallel traffic, split between forward and backward as the compute is), then the exposed tail of the
///   overlapped collectives, the other non-overlapped once-per-step collectives, the optimizer (offload transfers),
///   the non-overlapped all-gathers of updated parameters (ZeRO-1/2), and last a run fit's overhead. So Σ path
///   durations = stepS = computeS + exposedCommS + offloadS + overheadS.
/// - `communication` is the communication stream: every collective's time, one serial stream, segments disjoint and
///   sorted by start. Overlapped collectives run during compute: those issued in every micro-step (FSDP and ZeRO-3
///   gathers and reductions) at their phase of each micro-step (forward gathers at the forward, the rest at the
///   backward), those issued once (DDP's gradient buckets) at the last backward; back to back when the stream is
///   busy. Where the stream would run past the compute while its total fits the planner's window (the whole compute
///   when any overlapped collective is issued per micro-step, else the last backward), the collectives are drawn
///   earlier, as the planner assumes they hide; what does not fit is exposed after the compute, exactly the planner's
///   max(0, Σ overlapped − window). Where the prediction exposes more (the time model let nothing overlap: CPU ranks
///   filling every core), the stream ends that long after the compute. Per collective, the segments' durations add
///   up to Collective::timeS.
/// - Exposed communication segments appear on both lists, with the same times.
struct PlannedStep {
  std::vector<PlannedSegment> path;           ///< the critical path, tiling [0, stepS]
  std::vector<PlannedSegment> communication;  ///< the communication stream, sorted by start, disjoint
  std::vector<Collective> collectives;        ///< the prediction's collectives (PlannedSegment::collective indexes)
  int microSteps = 1;                         ///< gradient accumulation steps
  double stepS = 0.0;                         ///< the path's end: TimePrediction::stepS
  double computeS = 0.0;                      ///< Forward + Backward + Bubble time
  double commS = 0.0;                         ///< Σ collective times (CommunicationPrediction::timeS)
  double exposedCommS = 0.0;                  ///< exposed communication on the path (TimePrediction::exposedCommS)
  double optimizerS = 0.0;                    ///< the optimizer segment (TimePrediction::offloadS)
};

/// Lays out `prediction` (made for `plan`: its gradient accumulation and recomputation decide the micro-steps and
/// the backward share) as one optimizer step. Pure; O(collectives · micro-steps · log). For a prediction of today's
/// planner, stepS and exposedCommS equal the prediction's (a saved plan from another time model keeps its own
/// collectives and compute, laid out by today's rule). Throws ConfigError naming the value for a time that is
/// negative or not finite.
PlannedStep plannedStep(const Prediction& prediction, const Plan& plan);

/// Stable names ("bubble", "forward", "backward", "optimizer", "communication", "overhead").
const char* toString(PlannedPhase phase);

}  // namespace fathom::plan
