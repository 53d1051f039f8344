// SPDX-License-Identifier: Apache-2.0
#include "planner/planner_panel.h"

#include "charts/memory_bar.h"
#include "common/formatting.h"

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

QLabel* heading(const QString& text, QWidget* parent) {
  auto* label = new QLabel(u"<b>%1</b>"_s.arg(text.toHtmlEscaped()), parent);
  label->setContentsMargins(0, 6, 0, 0);
  return label;
}

QString swatch(const QColor& color) {
  return u"<span style=\"color:%1\">■</span> "_s.arg(color.name());
}

}  // namespace

PlannerPanel::PlannerPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(u"plannerPanel"_s);
  setMinimumWidth(330);
  m_title = new QLabel(u"<b>%1</b>"_s.arg(tr("Planner")), this);
  m_subtitle = new QLabel(this);
  m_subtitle->setObjectName(u"plannerPlan"_s);
  m_subtitle->setWordWrap(true);
  m_busy = new QLabel(tr("Updating…"), this);
  m_busy->setObjectName(u"plannerBusy"_s);
  m_busy->setVisible(false);
  m_empty = new QLabel(this);
  m_empty->setObjectName(u"plannerEmpty"_s);
  m_empty->setWordWrap(true);
  m_empty->setAlignment(Qt::AlignTop | Qt::AlignLeft);

  m_body = new QWidget(this);
  auto* grid = new QGridLayout(m_body);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setHorizontalSpacing(12);
  grid->setVerticalSpacing(2);
  int row = 0;
  grid->addWidget(heading(tr("Memory per GPU"), m_body), row++, 0, 1, 2);
  m_bar = new MemoryBar(m_body);
  grid->addWidget(m_bar, row++, 0, 1, 2);
  for (std::size_t i = 0; i < m_categoryValues.size(); ++i) {
    const MemoryCategory c = plan::kMemoryBreakdownFields[i].category;
    m_categoryNames[i] = new QLabel(swatch(categoryColor(c)) + categoryName(c).toHtmlEscaped(), m_body);
    m_categoryValues[i] = valueLabel(QString::fromStdString(plan::explanationKey(c)));
    grid->addWidget(m_categoryNames[i], row, 0);
    grid->addWidget(m_categoryValues[i], row++, 1);
  }
  m_total = valueLabel(u"plannerTotal"_s);
  grid->addWidget(new QLabel(u"<b>%1</b>"_s.arg(tr("Total")), m_body), row, 0);
  grid->addWidget(m_total, row++, 1);
  grid->addWidget(heading(tr("Communication per step"), m_body), row++, 0, 1, 2);
  m_commBytes = valueLabel(u"plannerCommBytes"_s);
  m_commTime = valueLabel(u"plannerCommTime"_s);
  grid->addWidget(new QLabel(tr("Sent per GPU"), m_body), row, 0);
  grid->addWidget(m_commBytes, row++, 1);
  grid->addWidget(new QLabel(tr("Time (exposed)"), m_body), row, 0);
  grid->addWidget(m_commTime, row++, 1);
  grid->addWidget(heading(tr("Step"), m_body), row++, 0, 1, 2);
  m_stepTime = valueLabel(u"plannerStepTime"_s);
  m_throughput = valueLabel(u"plannerThroughput"_s);
  m_mfu = valueLabel(u"plannerMfu"_s);
  grid->addWidget(new QLabel(tr("Step time"), m_body), row, 0);
  grid->addWidget(m_stepTime, row++, 1);
  grid->addWidget(new QLabel(tr("Throughput"), m_body), row, 0);
  grid->addWidget(m_throughput, row++, 1);
  grid->addWidget(new QLabel(tr("MFU"), m_body), row, 0);
  grid->addWidget(m_mfu, row++, 1);
  grid->setColumnStretch(0, 1);

  m_warning = new QLabel(this);
  m_warning->setObjectName(u"plannerWarning"_s);
  m_warning->setWordWrap(true);
  m_warning->setStyleSheet(u"QLabel { color: #8c1d18; background: #fdecea; border: 1px solid #e6b3ae; "
                           u"border-radius: 3px; padding: 6px; }"_s);
  m_warning->setVisible(false);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_title);
  layout->addWidget(m_subtitle);
  layout->addWidget(m_busy);
  layout->addWidget(m_empty);
  layout->addWidget(m_body);
  layout->addWidget(m_warning);
  layout->addStretch(1);
  clear(tr("The prediction appears here as you edit the configuration."));
}

QLabel* PlannerPanel::valueLabel(const QString& name) {
  auto* label = new QLabel(m_body);
  label->setObjectName(name);
  label->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

void PlannerPanel::setBusy(bool busy) {
  m_busy->setVisible(busy);
}

void PlannerPanel::clear(const QString& message) {
  m_snapshot = {};
  m_subtitle->clear();
  m_empty->setText(message);
  m_empty->setVisible(true);
  m_body->setVisible(false);
  m_warning->setVisible(false);
}

QString PlannerPanel::warning() const {
  return m_warning->isVisible() ? m_warning->text() : QString();
}

void PlannerPanel::setSnapshot(const PlanSnapshot& s) {
  m_snapshot = s;
  m_busy->setVisible(false);
  const plan::Plan& p = s.request.plan;
  if (!s.error.isEmpty()) {
    m_subtitle->clear();
    m_empty->setVisible(false);
    m_body->setVisible(false);
    m_warning->setText(tr("The planner cannot evaluate this configuration: %1").arg(s.error));
    m_warning->setVisible(true);
    return;
  }
  const QString device =
      QString::fromStdString(s.hardware.description.empty() ? s.hardware.name : s.hardware.description);
  m_subtitle->setText(
      tr("%1 (%2 parameters)<br>%3 × %4<br>%5, %6, micro-batch %7 × %8")
          .arg(QString::fromStdString(s.model.name).toHtmlEscaped(), format::parameters(double(s.model.totalParams)))
          .arg(p.numGpus)
          .arg(device.toHtmlEscaped(),
               p.numGpus == 1 && p.strategy == plan::Strategy::Ddp ? tr("one process") : strategyName(p),
               QString::fromLatin1(plan::toString(p.precision).data()))
          .arg(p.microBatch)
          .arg(p.gradAccum));
  const PlanEvaluation& e = s.evaluation;
  if (!e.ok()) {
    m_empty->setVisible(false);
    m_body->setVisible(false);
    m_warning->setText(tr("This plan is not valid: %1").arg(e.error));
    m_warning->setVisible(true);
    return;
  }
  const plan::Prediction& r = *e.prediction;
  std::vector<MemoryBar::Segment> segments;
  for (std::size_t i = 0; i < m_categoryValues.size(); ++i) {
    const MemoryCategory c = plan::kMemoryBreakdownFields[i].category;
    const double bytes = plan::bytesOf(r.memory, c);
    const QString tip = explanation(e, plan::explanationKey(c));
    m_categoryValues[i]->setText(format::bytes(bytes));
    m_categoryValues[i]->setToolTip(tip);
    m_categoryNames[i]->setEnabled(bytes > 0);
    m_categoryValues[i]->setEnabled(bytes > 0);
    segments.push_back(
        {c, bytes, u"<b>%1: %2</b><pre>%3</pre>"_s.arg(categoryName(c), format::bytes(bytes), tip.toHtmlEscaped())});
  }
  m_bar->setSegments(std::move(segments), r.deviceMemoryBytes);
  m_total->setText(tr("%1 of %2").arg(format::bytes(r.memory.total), format::bytes(r.deviceMemoryBytes)));
  m_total->setToolTip(explanation(e, "memory.total"));
  m_total->setStyleSheet(r.fits ? QString() : u"color: #b3261e; font-weight: bold"_s);
  m_commBytes->setText(format::bytes(r.communication.bytesPerRankPerStep));
  m_commBytes->setToolTip(communicationExplanation(e));
  m_commTime->setText(
      tr("%1 (%2)").arg(format::duration(r.communication.timeS), format::duration(r.time.exposedCommS)));
  m_commTime->setToolTip(explanation(e, "time.exposed_comm_s"));
  m_stepTime->setText(format::duration(r.time.stepS));
  m_stepTime->setToolTip(explanation(e, "time.step_s"));
  m_throughput->setText(format::tokensPerSecond(r.time.tokensPerS));
  m_throughput->setToolTip(explanation(e, "time.tokens_per_s"));
  m_mfu->setText(format::percent(r.time.mfu));
  m_mfu->setToolTip(explanation(e, "time.mfu"));
  m_empty->setVisible(false);
  m_body->setVisible(true);
  if (!r.fits) {
    const bool deviceShort = r.memory.total > r.deviceMemoryBytes;
    m_warning->setText(deviceShort
                           ? tr("This plan will not fit: it needs %1 per GPU and the device has %2. Shard with FSDP or "
                                "ZeRO-3, add GPUs, recompute activations or lower the micro-batch.")
                                 .arg(format::bytes(r.memory.total), format::bytes(r.deviceMemoryBytes))
                           : tr("This plan will not fit: the offloaded states need %1 of host memory per node.")
                                 .arg(format::bytes(r.cpuBytesPerNode)));
    m_warning->setVisible(true);
  } else {
    m_warning->setVisible(false);
  }
}

}  // namespace fathom::views
