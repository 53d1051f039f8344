// SPDX-License-Identifier: Apache-2.0
#include "charts/scaling_chart.h"

#include "common/formatting.h"

#include <fathom/plan/predict.h>

#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// Eight distinguishable line colours (Okabe–Ito plus black), one per compared strategy.
QColor strategyColor(int index) {
  static const QColor colors[] = {{0x00, 0x00, 0x00}, {0x00, 0x72, 0xb2}, {0x56, 0xb4, 0xe9}, {0x00, 0x9e, 0x73},
                                  {0x99, 0x99, 0x99}, {0xe6, 0x9f, 0x00}, {0xd5, 0x5e, 0x00}, {0xcc, 0x79, 0xa7}};
  return colors[index % 8];
}

}  // namespace

ScalingChart::ScalingChart(Quantity quantity, QWidget* parent) : ChartView(parent), m_quantity(quantity) {
  setObjectName(quantity == Quantity::MemoryPerGpu ? u"memoryScalingChart"_s : u"stepTimeScalingChart"_s);
  chart()->setTitle(quantity == Quantity::MemoryPerGpu ? tr("Memory per GPU as the GPU count grows")
                                                       : tr("Step time as the GPU count grows"));
  chart()->legend()->setAlignment(Qt::AlignRight);
}

QString ScalingChart::pointTip(int strategy, int gpus) const {
  if (strategy < 0 || strategy >= static_cast<int>(m_comparison.scaling.size())) {
    return {};
  }
  plan::Plan p = m_comparison.scaling[static_cast<std::size_t>(strategy)].plan;
  p.numGpus = gpus;
  const PlanEvaluation e = evaluate(m_comparison.model, m_comparison.hardware, p);
  if (!e.ok()) {
    return tipText(tr("%1 on %n GPU(s): not a valid plan", nullptr, gpus).arg(strategyName(p)), e.error);
  }
  if (m_quantity == Quantity::MemoryPerGpu) {
    return tipText(tr("%1 on %n GPU(s): %2 per GPU", nullptr, gpus)
                       .arg(strategyName(p), format::bytes(e.prediction->memory.total)),
                   explanation(e, "memory.total"));
  }
  return tipText(tr("%1 on %n GPU(s): %2 per step", nullptr, gpus)
                     .arg(strategyName(p), format::duration(e.prediction->time.stepS)),
                 explanation(e, "time.step_s"));
}

void ScalingChart::setComparison(const PlanComparison& comparison) {
  m_comparison = comparison;
  QChart* c = chart();
  clearChart();
  const bool memory = m_quantity == Quantity::MemoryPerGpu;
  double low = std::numeric_limits<double>::infinity();
  double high = 0;
  std::vector<QLineSeries*> lines;
  for (std::size_t s = 0; s < comparison.scaling.size(); ++s) {
    const ScalingSeries& series = comparison.scaling[s];
    auto* line = new QLineSeries();
    line->setName(shortStrategyName(series.plan));
    line->setPointsVisible(true);
    QPen pen(strategyColor(static_cast<int>(s)));
    pen.setWidthF(1.6);
    if (s >= 5) {
      pen.setStyle(Qt::DashLine);  // ZeRO stages dashed, so they stay apart from FSDP where the values coincide
    }
    line->setPen(pen);
    const auto& values = memory ? series.memoryBytes : series.stepSeconds;
    for (std::size_t i = 0; i < comparison.gpuCounts.size(); ++i) {
      if (!values[i] || *values[i] <= 0) {
        continue;
      }
      const double v = memory ? *values[i] / kGiB : *values[i];
      line->append(comparison.gpuCounts[i], v);
      low = std::min(low, v);
      high = std::max(high, v);
    }
    const int strategy = static_cast<int>(s);
    connect(line, &QLineSeries::hovered, this, [this, strategy](const QPointF& point, bool state) {
      showTip(state ? pointTip(strategy, static_cast<int>(std::lround(point.x()))) : QString());
    });
    c->addSeries(line);
    lines.push_back(line);
  }
  QLineSeries* capacity = nullptr;
  if (memory) {
    const double cap = static_cast<double>(comparison.hardware.memoryBytes) / kGiB;
    capacity = new QLineSeries();
    capacity->setName(tr("Device memory"));
    capacity->append(1, cap);
    capacity->append(1024, cap);
    QPen pen(QColor(0xb3, 0x26, 0x1e));
    pen.setWidthF(2.0);
    pen.setStyle(Qt::DotLine);
    capacity->setPen(pen);
    c->addSeries(capacity);
    low = std::min(low, cap);
    high = std::max(high, cap);
  }

  auto* x = new QLogValueAxis();
  x->setBase(2);
  x->setRange(1, 1024);
  x->setLabelFormat(u"%g"_s);
  x->setMinorTickCount(0);
  x->setTitleText(tr("GPUs"));
  x->setTruncateLabels(false);
  c->addAxis(x, Qt::AlignBottom);
  auto* y = new QLogValueAxis();
  y->setBase(10);
  y->setLabelFormat(u"%g"_s);
  y->setMinorTickCount(-1);
  y->setTitleText(memory ? tr("GiB per GPU") : tr("Seconds per step"));
  if (std::isfinite(low) && high > 0) {
    y->setRange(std::pow(10.0, std::floor(std::log10(low))), std::pow(10.0, std::ceil(std::log10(high * 1.01))));
  }
  c->addAxis(y, Qt::AlignLeft);
  for (QLineSeries* line : lines) {
    line->attachAxis(x);
    line->attachAxis(y);
  }
  if (capacity != nullptr) {
    capacity->attachAxis(x);
    capacity->attachAxis(y);
  }
}

}  // namespace fathom::views
