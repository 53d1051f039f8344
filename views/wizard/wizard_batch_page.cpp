// SPDX-License-Identifier: Apache-2.0
#include "wizard/wizard_batch_page.h"

#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace fathom::views {

WizardBatchPage::WizardBatchPage(QWidget* parent) : WizardPage(parent) {
  setObjectName(u"batchPage"_s);
  setTitle(tr("Batch size and accumulation"));
  setSubTitle(tr("What one optimizer step consumes. Gradient accumulation trades time for memory: the same global "
                 "batch from smaller micro-batches."));
  m_microBatch = new QSpinBox(this);
  m_microBatch->setObjectName(u"microBatch"_s);
  m_microBatch->setRange(1, 65536);
  m_accumulation = new QSpinBox(this);
  m_accumulation->setObjectName(u"gradientAccumulation"_s);
  m_accumulation->setRange(1, 65536);
  m_seq = new QSpinBox(this);
  m_seq->setObjectName(u"sequenceLength"_s);
  m_seq->setRange(0, 1 << 20);
  m_seq->setSingleStep(128);
  m_seq->setSpecialValueText(tr("the model's context"));
  m_global = new QLabel(this);
  m_global->setObjectName(u"globalBatch"_s);
  m_global->setWordWrap(true);
  auto* form = new QFormLayout();
  form->addRow(tr("Micro-batch per process:"), m_microBatch);
  form->addRow(tr("Gradient accumulation steps:"), m_accumulation);
  form->addRow(tr("Sequence length (planner):"), m_seq);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_global);
  layout->addStretch(1);
  for (QSpinBox* s : {m_microBatch, m_accumulation, m_seq}) {
    connect(s, &QSpinBox::valueChanged, this, [this] {
      updateGlobalBatch();
      notify();
    });
  }
}

void WizardBatchPage::updateGlobalBatch() {
  m_global->setText(tr("Global batch: %1 × %2 × %3 processes = %4 samples per optimizer step.")
                        .arg(m_microBatch->value())
                        .arg(m_accumulation->value())
                        .arg(m_processes)
                        .arg(qint64(m_microBatch->value()) * m_accumulation->value() * m_processes));
}

void WizardBatchPage::load(const WizardRun& run) {
  m_loading = true;
  m_processes = run.processes();
  m_microBatch->setValue(run.microBatch());
  m_accumulation->setValue(run.gradientAccumulation());
  m_seq->setValue(static_cast<int>(std::min<std::int64_t>(run.spec.fathom.planner.seq.value_or(0), m_seq->maximum())));
  updateGlobalBatch();
  m_loading = false;
}

void WizardBatchPage::store(WizardRun& run) const {
  config::PlannerSpec& q = run.spec.fathom.planner;
  q.microBatch = m_microBatch->value();
  q.gradientAccumulationSteps = m_accumulation->value();
  q.seq = m_seq->value() > 0 ? std::optional<std::int64_t>(m_seq->value()) : std::nullopt;
}

}  // namespace fathom::views
