// SPDX-License-Identifier: Apache-2.0
#include "timeline/plan_lane_painter.h"

#include "timeline/time_coords.h"

#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace fathom::views {

namespace {

std::int64_t nanoseconds(double seconds) {
  return static_cast<std::int64_t>(std::llround(seconds * 1e9));
}

}  // namespace

void PlanLanePainter::setPlan(std::optional<plan::PlannedStep> plan) {
  m_plan = std::move(plan);
}

void PlanLanePainter::setIndex(const trace::TimelineIndex* index) {
  m_steps.clear();
  if (index == nullptr) {
    return;
  }
  m_steps.resize(index->processes().size());
  for (const trace::TimelineStep& step : index->steps()) {
    const trace::TimelineLane& lane = index->lane(step.slice.lane);
    StepStarts& steps = m_steps[lane.process];
    steps.starts.push_back(lane.start[step.slice.index]);
    steps.numbers.push_back(step.number);
  }
  for (StepStarts& steps : m_steps) {  // steps() is by rank, then start; a process's may still interleave threads
    std::vector<std::size_t> order(steps.starts.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return steps.starts[a] < steps.starts[b]; });
    StepStarts sorted;
    for (const std::size_t i : order) {
      sorted.starts.push_back(steps.starts[i]);
      sorted.numbers.push_back(steps.numbers[i]);
    }
    steps = std::move(sorted);
  }
}

bool PlanLanePainter::hasLane(std::uint32_t process) const {
  return m_plan.has_value() && process < m_steps.size() && !m_steps[process].starts.empty();
}

std::optional<std::int64_t> PlanLanePainter::extentEndNs() const {
  std::optional<std::int64_t> end;
  if (m_plan) {
    for (const StepStarts& steps : m_steps) {
      if (!steps.starts.empty()) {
        end = std::max(end.value_or(steps.starts.back()), steps.starts.back() + nanoseconds(m_plan->stepS));
      }
    }
  }
  return end;
}

std::span<const std::int64_t> PlanLanePainter::stepStarts(std::uint32_t process) const {
  return process < m_steps.size() ? std::span<const std::int64_t>(m_steps[process].starts)
                                  : std::span<const std::int64_t>();
}

QColor PlanLanePainter::colour(Shade shade) {
  switch (shade) {
  case Shade::Compute: return QColor(0x4c, 0x8b, 0xd6);      // blue
  case Shade::Idle: return QColor(0xb8, 0xb8, 0xb8);         // grey
  case Shade::Overlapped: return QColor(0x59, 0xb3, 0x6b);   // green: communication hidden under compute
  case Shade::ExposedComm: return QColor(0xe0, 0x5a, 0x47);  // red: communication the step waits for
  }
  return Qt::gray;
}

PlanLanePainter::Shade PlanLanePainter::shadeOf(const plan::PlannedSegment& segment) {
  switch (segment.phase) {
  case plan::PlannedPhase::Forward:
  case plan::PlannedPhase::Backward: return Shade::Compute;
  case plan::PlannedPhase::Bubble:
  case plan::PlannedPhase::Optimizer:
  case plan::PlannedPhase::Overhead: return Shade::Idle;
  case plan::PlannedPhase::Communication: return segment.exposed ? Shade::ExposedComm : Shade::Overlapped;
  }
  return Shade::Idle;
}

QString PlanLanePainter::phaseName(plan::PlannedPhase phase) {
  switch (phase) {
  case plan::PlannedPhase::Bubble: return tr("pipeline bubble");
  case plan::PlannedPhase::Forward: return tr("forward");
  case plan::PlannedPhase::Backward: return tr("backward");
  case plan::PlannedPhase::Optimizer: return tr("optimizer");
  case plan::PlannedPhase::Communication: return tr("communication");
  case plan::PlannedPhase::Overhead: return tr("overhead");
  }
  return {};
}

void PlanLanePainter::paint(QPainter& painter, std::uint32_t process, trace::TimeRange range, int left, int pixels,
                            int top, int rowHeight) {
  if (!hasLane(process) || range.endNs <= range.startNs || pixels <= 0) {
    return;
  }
  const StepStarts& steps = m_steps[process];
  const std::int64_t stepNs = std::max<std::int64_t>(1, nanoseconds(m_plan->stepS));
  // The first step drawn is the first whose planned end is after the range's start.
  auto it = std::upper_bound(steps.starts.begin(), steps.starts.end(), range.startNs - stepNs);
  const std::array<const std::vector<plan::PlannedSegment>*, 2> rows{&m_plan->path, &m_plan->communication};
  for (; it != steps.starts.end() && *it < range.endNs; ++it) {
    // Per row: the columns this step filled so far. A planned step longer than the measured one is overlapped by the
    // next, drawn over it.
    std::array<int, 2> filled{-1, -1};
    const std::int64_t start = *it;
    const std::int64_t number = steps.numbers[static_cast<std::size_t>(it - steps.starts.begin())];
    for (int row = 0; row < 2; ++row) {
      const auto& segments = *rows[static_cast<std::size_t>(row)];
      const int y = top + row * rowHeight;
      for (std::size_t i = 0; i < segments.size(); ++i) {
        const plan::PlannedSegment& segment = segments[i];
        const std::int64_t t0 = start + nanoseconds(segment.startS);
        const std::int64_t t1 = start + nanoseconds(segment.endS);
        if (t0 >= range.endNs) {
          break;  // sorted by start
        }
        if (t1 <= range.startNs) {
          continue;
        }
        int x0 = std::clamp(static_cast<int>(std::floor(timeToPixel(range, pixels, t0))), 0, pixels - 1);
        const int x1 = std::clamp(static_cast<int>(std::ceil(timeToPixel(range, pixels, t1))), x0 + 1, pixels);
        x0 = std::max(x0, filled[static_cast<std::size_t>(row)]);
        if (x1 <= x0) {
          continue;  // under a pixel, in a column this row already filled
        }
        const Shade shade = shadeOf(segment);
        const QRect rect(left + x0, y + 1, x1 - x0, rowHeight - 2);
        painter.fillRect(rect, colour(shade));
        if (x0 > 0 && rect.width() > 2) {  // a hairline between abutting segments (forward | backward)
          painter.fillRect(QRect(rect.left(), rect.top(), 1, rect.height()), QColor(255, 255, 255, 160));
        }
        filled[static_cast<std::size_t>(row)] = x1;
        m_frame.push_back({process, row, x0, x1, shade, number, static_cast<int>(i)});
        if (rect.width() >= 48) {
          const QString label = segment.phase == plan::PlannedPhase::Communication && segment.collective >= 0
                                    ? QString::fromLatin1(plan::toString(
                                          m_plan->collectives[static_cast<std::size_t>(segment.collective)].kind))
                                    : phaseName(segment.phase);
          painter.setPen(Qt::black);
          painter.drawText(rect.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                           painter.fontMetrics().elidedText(label, Qt::ElideRight, rect.width() - 4));
        }
      }
    }
  }
}

const plan::PlannedSegment* PlanLanePainter::segmentAt(const std::vector<plan::PlannedSegment>& segments,
                                                       double s) const {
  const auto it = std::upper_bound(segments.begin(), segments.end(), s,
                                   [](double value, const plan::PlannedSegment& seg) { return value < seg.startS; });
  if (it == segments.begin()) {
    return nullptr;
  }
  const plan::PlannedSegment& segment = *(it - 1);
  return s < segment.endS ? &segment : nullptr;
}

QString PlanLanePainter::toolTipAt(std::uint32_t process, int row, std::int64_t t) const {
  if (!hasLane(process) || row < 0 || row > 1) {
    return {};
  }
  const StepStarts& steps = m_steps[process];
  const std::int64_t stepNs = nanoseconds(m_plan->stepS);
  // The latest step drawn at or before t whose planned step still covers t (a later one is drawn over it).
  auto it = std::upper_bound(steps.starts.begin(), steps.starts.end(), t);
  if (it == steps.starts.begin() || t >= *(it - 1) + stepNs) {
    return {};
  }
  const auto k = static_cast<std::size_t>(it - 1 - steps.starts.begin());
  const double s = static_cast<double>(t - steps.starts[k]) / 1e9;
  const plan::PlannedSegment* segment = segmentAt(row == 0 ? m_plan->path : m_plan->communication, s);
  if (segment == nullptr) {
    return {};
  }
  QString what = phaseName(segment->phase);
  if (segment->phase == plan::PlannedPhase::Communication && segment->collective >= 0) {
    const plan::Collective& c = m_plan->collectives[static_cast<std::size_t>(segment->collective)];
    what = QString::fromLatin1(plan::toString(c.kind)) + QLatin1String(" · ") + QString::fromStdString(c.purpose) +
           QLatin1Char('\n') + (segment->exposed ? tr("exposed: the step waits for it") : tr("hidden under compute"));
  }
  const std::int64_t duration = nanoseconds(segment->durationS());
  return tr("planned %1\npredicted %2, at ProfilerStep#%3 + %4")
      .arg(what, formatTime(duration, std::max<std::int64_t>(1, duration / 100)))
      .arg(steps.numbers[k])
      .arg(formatTime(nanoseconds(segment->startS), std::max<std::int64_t>(1, stepNs / 1000)));
}

}  // namespace fathom::views
