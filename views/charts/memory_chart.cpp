// SPDX-License-Identifier: Apache-2.0
#include "charts/memory_chart.h"

#include "common/formatting.h"
#include "common/memory_categories.h"

#include <QBarSet>
#include <QChart>
#include <QLineSeries>
#include <QPen>
#include <QStackedBarSeries>
#include <QValueAxis>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

MemoryChart::MemoryChart(QWidget* parent) : ChartView(parent) {
  setObjectName(u"memoryChart"_s);
  chart()->setTitle(tr("Memory per GPU by strategy"));
  chart()->legend()->setAlignment(Qt::AlignRight);  // nine entries: a column reads better than an elided row
}

QString MemoryChart::segmentTip(int category, int index) const {
  if (index < 0 || index >= static_cast<int>(m_comparison.strategies.size()) || category < 0 ||
      category >= static_cast<int>(plan::kMemoryBreakdownFields.size())) {
    return {};
  }
  const PlanEvaluation& e = m_comparison.strategies[static_cast<std::size_t>(index)];
  const MemoryCategory c = plan::kMemoryBreakdownFields[static_cast<std::size_t>(category)].category;
  const QString heading =
      e.ok() ? tr("%1 · %2: %3")
                   .arg(strategyName(e.plan), categoryName(c), format::bytes(plan::bytesOf(e.prediction->memory, c)))
             : tr("%1: not a valid plan").arg(strategyName(e.plan));
  return tipText(heading, e.ok() ? explanation(e, plan::explanationKey(c)) : e.error);
}

void MemoryChart::setComparison(const PlanComparison& comparison) {
  m_comparison = comparison;
  QChart* c = chart();
  clearChart();

  auto* bars = new QStackedBarSeries();
  bars->setObjectName(u"memoryBars"_s);
  QStringList labels;
  double highest = 0;
  for (const PlanEvaluation& e : comparison.strategies) {
    labels << (e.ok() ? shortStrategyName(e.plan) : tr("%1 (invalid)").arg(shortStrategyName(e.plan)));
    highest = std::max(highest, e.ok() ? e.prediction->memory.total : 0.0);
  }
  int category = 0;
  for (const auto& field : plan::kMemoryBreakdownFields) {
    const MemoryCategory cat = field.category;
    auto* set = new QBarSet(categoryName(cat));
    set->setColor(categoryColor(cat));
    set->setBorderColor(categoryColor(cat).darker(115));
    for (const PlanEvaluation& e : comparison.strategies) {
      *set << (e.ok() ? e.prediction->memory.*field.member / kGiB : 0.0);
    }
    connect(set, &QBarSet::hovered, this,
            [this, category](bool status, int index) { showTip(status ? segmentTip(category, index) : QString()); });
    bars->append(set);
    ++category;
  }
  c->addSeries(bars);

  const double capacity = static_cast<double>(comparison.hardware.memoryBytes) / kGiB;
  auto* line = new QLineSeries();
  line->setObjectName(u"capacityLine"_s);
  line->setName(tr("Device %1").arg(format::bytes(static_cast<double>(comparison.hardware.memoryBytes))));
  const int n = static_cast<int>(comparison.strategies.size());
  line->append(-0.5, capacity);
  line->append(n - 0.5, capacity);
  QPen pen(QColor(0xb3, 0x26, 0x1e));
  pen.setWidthF(2.0);
  pen.setStyle(Qt::DashLine);
  line->setPen(pen);
  c->addSeries(line);

  // The capacity line spans the bars on a hidden numeric axis aligned with the categories.
  addStrategyAxes(labels, bars, line);

  auto* y = new QValueAxis();
  y->setTitleText(tr("GiB per GPU"));
  y->setLabelFormat(u"%.3g"_s);
  y->setRange(0, std::max(highest / kGiB, capacity) * 1.08);
  y->applyNiceNumbers();
  c->addAxis(y, Qt::AlignLeft);
  bars->attachAxis(y);
  line->attachAxis(y);
}

}  // namespace fathom::views
