// SPDX-License-Identifier: Apache-2.0
// The planned step: predict.cpp's time model (predictTime in compute_model.cpp) drawn as a schedule. The overlap rule
// here must stay the one there: exposed = Σ non-overlapped + max(0, Σ overlapped − window), window = the compute when
// any overlapped collective is issued per micro-step, else the last backward (tst_planned_step checks both agree).
#include <fathom/plan/planned_step.h>

#include <fathom/common/error.h>
#include <fathom/plan/comm_model.h>

#include <algorithm>
#include <cmath>

namespace fathom::plan {

const char* toString(PlannedPhase phase) {
  switch (phase) {
  case PlannedPhase::Bubble: return "bubble";
  case PlannedPhase::Forward: return "forward";
  case PlannedPhase::Backward: return "backward";
  case PlannedPhase::Optimizer: return "optimizer";
  case PlannedPhase::Communication: return "communication";
  case PlannedPhase::Overhead: return "overhead";
  }
  return "forward";
}

namespace {

void checkTime(double value, const char* name) {
  FATHOM_CHECK(std::isfinite(value) && value >= 0.0, ConfigError, "the prediction's ", name,
               " must be a finite time >= 0, got ", value);
}

/// A compute segment of the path: virtual (compute-only) time [vStart, vEnd) drawn from wall time wStart.
struct ComputeSpan {
  double vStart = 0;
  double vEnd = 0;
  double wStart = 0;
};

/// One overlapped collective's calls of one micro-step (or of the whole step), scheduled in compute time.
struct Item {
  int collective = -1;
  int microStep = -1;
  double issue = 0;  ///< compute time at which its phase starts
  double duration = 0;
  double start = 0;  ///< scheduled, compute time
  double end = 0;
};

class Layout {
public:
  Layout(const Prediction& prediction, const Plan& plan) : m_prediction(prediction) {
    const TimePrediction& t = prediction.time;
    checkTime(t.computeS, "compute time");
    checkTime(t.bubbleS, "pipeline bubble");
    checkTime(t.offloadS, "offload time");
    checkTime(t.overheadS, "overhead");
    FATHOM_CHECK(t.bubbleS <= t.computeS, ConfigError, "the prediction's pipeline bubble (", t.bubbleS,
                 " s) exceeds its compute time (", t.computeS, " s)");
    for (const Collective& c : prediction.communication.collectives) {
      checkTime(c.timeS, "collective time");
    }
    m_step.collectives = prediction.communication.collectives;
    m_step.microSteps = std::max(1, plan.gradAccum);
    m_busy = t.computeS - t.bubbleS;
    m_share = plan.recompute == Recompute::Full ? 0.75 : 2.0 / 3.0;
    m_micro = m_busy / m_step.microSteps;
    m_forward = m_micro * (1.0 - m_share);
  }

  PlannedStep run() {
    layPath();
    scheduleOverlapped();
    placeOverlapped();
    layTail();
    std::sort(m_step.communication.begin(), m_step.communication.end(),
              [](const PlannedSegment& a, const PlannedSegment& b) { return a.startS < b.startS; });
    m_step.stepS = m_t;
    m_step.computeS = m_prediction.time.computeS;
    for (const Collective& c : m_step.collectives) {
      m_step.commS += c.timeS;
    }
    return std::move(m_step);
  }

private:
  bool isForwardGather(const Collective& c) const {
    return c.kind == CollectiveKind::AllGather && c.purpose == kForwardGatherPurpose;
  }

  /// Appends a segment to the critical path at the current time.
  void pathSegment(PlannedPhase phase, double duration, int microStep, int collective = -1) {
    if (duration <= 0) {
      return;
    }
    PlannedSegment s{phase, m_t, m_t + duration, microStep, collective, phase == PlannedPhase::Communication};
    m_step.path.push_back(s);
    if (phase == PlannedPhase::Communication) {
      m_step.communication.push_back(s);
      m_step.exposedCommS += duration;
    }
    m_t += duration;
  }

  /// The non-overlapped collectives issued in every micro-step (tensor- and pipeline-parallel traffic): their share
  /// of micro-step `k`'s forward (or backward), on the path.
  void inlineCollectives(int k, double share) {
    const auto& cs = m_step.collectives;
    for (std::size_t i = 0; i < cs.size(); ++i) {
      if (!cs[i].overlapped && cs[i].perMicroStep) {
        pathSegment(PlannedPhase::Communication, cs[i].timeS / m_step.microSteps * share, k, static_cast<int>(i));
      }
    }
  }

  void layPath() {
    pathSegment(PlannedPhase::Bubble, m_prediction.time.bubbleS, -1);
    const double backward = m_micro - m_forward;
    for (int k = 0; k < m_step.microSteps; ++k) {
      const double v = k * m_micro;
      m_compute.push_back({v, v + m_forward, m_t});
      pathSegment(PlannedPhase::Forward, m_forward, k);
      inlineCollectives(k, 1.0 - m_share);
      m_compute.push_back({v + m_forward, v + m_micro, m_t});
      pathSegment(PlannedPhase::Backward, backward, k);
      inlineCollectives(k, m_share);
    }
    m_tailStart = m_t;
  }

  /// The overlapped collectives on one serial stream in compute time: each at its phase, after the one before; then,
  /// when the stream runs past the compute, pulled earlier from the end so that it ends at max(compute, window start
  /// + Σ durations), the planner's exposure.
  void scheduleOverlapped() {
    const auto& cs = m_step.collectives;
    const int m = m_step.microSteps;
    bool perMicroStep = false;
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const Collective& c = cs[i];
      if (!c.overlapped) {
        continue;
      }
      if (c.perMicroStep) {
        perMicroStep = true;
        for (int k = 0; k < m; ++k) {
          const double issue = k * m_micro + (isForwardGather(c) ? 0.0 : m_forward);
          m_items.push_back({static_cast<int>(i), k, issue, c.timeS / m});
        }
      } else {
        m_items.push_back({static_cast<int>(i), -1, (m - 1) * m_micro + m_forward, c.timeS});
      }
    }
    if (m_items.empty()) {
      return;
    }
    std::stable_sort(m_items.begin(), m_items.end(), [](const Item& a, const Item& b) { return a.issue < b.issue; });
    const double windowStart = perMicroStep ? 0.0 : (m - 1) * m_micro + m_forward;
    double free = 0;
    double total = 0;
    for (Item& item : m_items) {
      item.start = std::max(item.issue, free);
      item.end = item.start + item.duration;
      free = item.end;
      total += item.duration;
    }
    const double ruleExposed = free > m_busy ? std::max(m_busy, windowStart + total) - m_busy : 0.0;
    // The prediction's exposure of the overlapped collectives: more than the rule's when the time model let them
    // overlap nothing (CPU ranks filling every core: TimePrediction's `can_overlap=no`). Then the stream is packed
    // to end that long after the compute, so the path still adds up to the predicted step.
    double nonOverlapped = 0;
    for (const Collective& c : cs) {
      nonOverlapped += c.overlapped ? 0.0 : c.timeS;
    }
    const double predictedExposed = std::clamp(m_prediction.time.exposedCommS - nonOverlapped, 0.0, total);
    const bool packed = predictedExposed > ruleExposed + 1e-12 * std::max(1.0, total);
    if (packed || free > m_busy) {
      double limit = m_busy + (packed ? predictedExposed : ruleExposed);
      for (auto it = m_items.rbegin(); it != m_items.rend(); ++it) {
        it->end = packed ? limit : std::min(it->end, limit);
        it->start = it->end - it->duration;
        limit = it->start;
      }
    }
  }

  /// Draws the scheduled collectives in wall time: the part within the compute under it (split where the path
  /// leaves the compute for an exposed collective), the rest exposed after the last backward.
  void placeOverlapped() {
    for (const Item& item : m_items) {
      const double hiddenEnd = std::min(item.end, m_busy);
      for (const ComputeSpan& span : m_compute) {
        const double a = std::max(item.start, span.vStart);
        const double b = std::min(hiddenEnd, span.vEnd);
        if (b <= a) {
          continue;
        }
        const double w0 = span.wStart + (a - span.vStart);
        const double w1 = span.wStart + (b - span.vStart);
        if (w1 <= w0) {
          continue;  // a sliver lost to rounding in wall time
        }
        PlannedSegment* last = m_step.communication.empty() ? nullptr : &m_step.communication.back();
        if (last != nullptr && last->collective == item.collective && last->microStep == item.microStep &&
            !last->exposed && last->endS == w0) {
          last->endS = w1;  // the next compute segment continues it without a gap (forward -> backward)
        } else {
          m_step.communication.push_back({PlannedPhase::Communication, w0, w1, item.microStep, item.collective, false});
        }
      }
      if (item.end > m_busy) {
        const double a = std::max(item.start, m_busy) - m_busy;
        const double b = item.end - m_busy;
        if (m_tailStart + b <= m_tailStart + a) {
          continue;
        }
        PlannedSegment s{
            PlannedPhase::Communication, m_tailStart + a, m_tailStart + b, item.microStep, item.collective, true};
        m_step.communication.push_back(s);
        m_step.path.push_back(s);
        m_step.exposedCommS += b - a;
        m_tailEnd = std::max(m_tailEnd, m_tailStart + b);
      }
    }
  }

  /// After the compute: the exposed tail (placed above), the once-per-step non-overlapped collectives, the optimizer,
  /// the non-overlapped gathers of updated parameters, then a run fit's overhead.
  void layTail() {
    m_t = std::max(m_t, m_tailEnd);
    const auto& cs = m_step.collectives;
    for (std::size_t i = 0; i < cs.size(); ++i) {
      if (!cs[i].overlapped && !cs[i].perMicroStep && cs[i].kind != CollectiveKind::AllGather) {
        pathSegment(PlannedPhase::Communication, cs[i].timeS, -1, static_cast<int>(i));
      }
    }
    m_step.optimizerS = m_prediction.time.offloadS;
    pathSegment(PlannedPhase::Optimizer, m_prediction.time.offloadS, -1);
    for (std::size_t i = 0; i < cs.size(); ++i) {
      if (!cs[i].overlapped && !cs[i].perMicroStep && cs[i].kind == CollectiveKind::AllGather) {
        pathSegment(PlannedPhase::Communication, cs[i].timeS, -1, static_cast<int>(i));
      }
    }
    pathSegment(PlannedPhase::Overhead, m_prediction.time.overheadS, -1);
  }

  const Prediction& m_prediction;
  PlannedStep m_step;
  double m_busy = 0;     ///< compute without the bubble: the compute-time axis runs over [0, m_busy]
  double m_share = 0;    ///< the backward's share of a micro-step
  double m_micro = 0;    ///< one micro-step's compute
  double m_forward = 0;  ///< its forward
  double m_t = 0;        ///< the path's end so far
  double m_tailStart = 0;
  double m_tailEnd = 0;
  std::vector<ComputeSpan> m_compute;
  std::vector<Item> m_items;
};

}  // namespace

PlannedStep plannedStep(const Prediction& prediction, const Plan& plan) {
  return Layout(prediction, plan).run();
}

}  // namespace fathom::plan
