// SPDX-License-Identifier: Apache-2.0
#include "charts/comm_chart.h"

#include "common/formatting.h"

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace fathom::views {

CommChart::CommChart(QWidget* parent) : ChartView(parent) {
  setObjectName(u"commChart"_s);
  chart()->setTitle(tr("Communication per optimizer step"));
}

QString CommChart::strategyTip(int index) const {
  if (index < 0 || index >= static_cast<int>(m_comparison.strategies.size())) {
    return {};
  }
  const PlanEvaluation& e = m_comparison.strategies[static_cast<std::size_t>(index)];
  if (!e.ok()) {
    return tipText(tr("%1: not a valid plan").arg(strategyName(e.plan)), e.error);
  }
  const auto& comm = e.prediction->communication;
  return tipText(tr("%1: %2 sent per GPU, %3 of communication per step")
                     .arg(strategyName(e.plan), format::bytes(comm.bytesPerRankPerStep), format::duration(comm.timeS)),
                 communicationExplanation(e));
}

void CommChart::setComparison(const PlanComparison& comparison) {
  m_comparison = comparison;
  QChart* c = chart();
  clearChart();
  double maxBytes = 0;
  double maxTime = 0;
  QStringList labels;
  for (const PlanEvaluation& e : comparison.strategies) {
    labels << shortStrategyName(e.plan);
    if (e.ok()) {
      maxBytes = std::max(maxBytes, e.prediction->communication.bytesPerRankPerStep);
      maxTime = std::max(maxTime, e.prediction->communication.timeS);
    }
  }
  // One unit for the whole axis: the largest that keeps the biggest bar at 1 or more.
  struct Unit {
    double bytes;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1024.0 * 1024 * 1024, "GiB"}, {1024.0 * 1024, "MiB"}, {1024.0, "KiB"}, {1, "B"}};
  Unit unit = kUnits[3];
  for (const Unit& u : kUnits) {
    if (maxBytes >= u.bytes) {
      unit = u;
      break;
    }
  }

  auto* bytes = new QBarSet(tr("Sent per GPU (%1)").arg(QString::fromLatin1(unit.name)));
  bytes->setColor(QColor(0x00, 0x72, 0xb2));
  auto* times = new QScatterSeries();
  times->setName(tr("Communication time (s)"));
  times->setColor(QColor(0xd5, 0x5e, 0x00));
  times->setMarkerSize(9);
  for (std::size_t i = 0; i < comparison.strategies.size(); ++i) {
    const PlanEvaluation& e = comparison.strategies[i];
    *bytes << (e.ok() ? e.prediction->communication.bytesPerRankPerStep / unit.bytes : 0.0);
    if (e.ok()) {
      times->append(static_cast<double>(i), e.prediction->communication.timeS);
    }
  }
  connect(bytes, &QBarSet::hovered, this,
          [this](bool status, int index) { showTip(status ? strategyTip(index) : QString()); });
  connect(times, &QScatterSeries::hovered, this, [this](const QPointF& point, bool state) {
    showTip(state ? strategyTip(static_cast<int>(std::lround(point.x()))) : QString());
  });
  auto* bars = new QBarSeries();
  bars->append(bytes);
  c->addSeries(bars);
  c->addSeries(times);

  addStrategyAxes(labels, bars, times);

  auto* left = new QValueAxis();
  left->setTitleText(tr("%1 per GPU and step").arg(QString::fromLatin1(unit.name)));
  left->setLabelFormat(u"%.3g"_s);
  left->setRange(0, std::max(maxBytes / unit.bytes, 1e-9) * 1.1);
  left->applyNiceNumbers();
  c->addAxis(left, Qt::AlignLeft);
  bars->attachAxis(left);
  auto* right = new QValueAxis();
  right->setTitleText(tr("Seconds per step"));
  right->setLabelFormat(u"%.3g"_s);
  right->setRange(0, std::max(maxTime, 1e-9) * 1.1);
  right->applyNiceNumbers();
  c->addAxis(right, Qt::AlignRight);
  times->attachAxis(right);
}

}  // namespace fathom::views
