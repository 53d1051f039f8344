// SPDX-License-Identifier: Apache-2.0
#include "planner/what_if_view.h"

#include "bigmodel/device_map_view.h"
#include "charts/comm_chart.h"
#include "charts/memory_chart.h"
#include "charts/scaling_chart.h"
#include "common/formatting.h"
#include "common/inputs_and_results.h"
#include "common/wrapping_column.h"
#include "planner/collectives_model.h"
#include "planner/hardware_editor.h"
#include "planner/model_source_editor.h"
#include "planner/plan_search_model.h"
#include "planner/strategy_comparison_model.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <array>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

QTableView* table(QAbstractItemModel* model, QWidget* parent, const QString& name) {
  auto* view = new QTableView(parent);
  view->setObjectName(name);
  view->setModel(model);
  view->verticalHeader()->hide();
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setAlternatingRowColors(true);
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view->horizontalHeader()->setStretchLastSection(true);
  return view;
}

}  // namespace

WhatIfView::WhatIfView(QWidget* parent) : QWidget(parent) {
  setObjectName(u"whatIfView"_s);
  m_debounce.setSingleShot(true);
  m_debounce.setInterval(150);
  connect(&m_debounce, &QTimer::timeout, this, [this] { emit requestChanged(request()); });

  QWidget* inputs = buildInputs();  // built in this order, as the results may refer to the inputs
  QWidget* results = buildResults();
  m_inputs = layOutInputsAndResults(this, inputs, results, u"whatIfInputs"_s);
}

QWidget* WhatIfView::buildInputs() {
  auto* inputs = new QWidget();
  auto* modelBox = new QGroupBox(tr("Model"), inputs);
  m_model = new ModelSourceEditor(ModelSourceEditor::Sources::All, modelBox);
  (new QVBoxLayout(modelBox))->addWidget(m_model);
  ModelSource initial = ModelSourceEditor::dimensionPresets().front();  // Llama 2 7B: the classic "does it fit?"
  m_model->setSource(initial);

  auto* hardwareBox = new QGroupBox(tr("Hardware"), inputs);
  m_hardware = new HardwareEditor(hardwareBox);
  (new QVBoxLayout(hardwareBox))->addWidget(m_hardware);

  auto* planBox = new QGroupBox(tr("Training"), inputs);
  planBox->setObjectName(u"trainingGroup"_s);
  m_gpus = new QSpinBox(planBox);
  m_gpus->setObjectName(u"gpuCount"_s);
  m_gpus->setRange(1, 1024);
  m_gpus->setValue(8);
  m_precision = new QComboBox(planBox);
  m_precision->setObjectName(u"precision"_s);
  m_precision->addItem(tr("bf16 (fp32 master copy)"), u"bf16"_s);
  m_precision->addItem(tr("fp16 (fp32 master copy)"), u"fp16"_s);
  m_precision->addItem(tr("fp8 (fp32 master copy)"), u"fp8"_s);
  m_precision->addItem(tr("fp32"), u"fp32"_s);
  m_microBatch = new QSpinBox(planBox);
  m_microBatch->setObjectName(u"microBatch"_s);
  m_microBatch->setRange(1, 4096);
  m_accumulation = new QSpinBox(planBox);
  m_accumulation->setObjectName(u"accumulation"_s);
  m_accumulation->setRange(1, 4096);
  m_seq = new QSpinBox(planBox);
  m_seq->setObjectName(u"sequenceLength"_s);
  m_seq->setRange(0, 1 << 20);
  m_seq->setSingleStep(256);
  m_seq->setSpecialValueText(tr("model default"));
  m_seq->setValue(4096);
  m_optimizer = new QComboBox(planBox);
  m_optimizer->setObjectName(u"optimizer"_s);
  for (const char* o : {"adamw", "adam", "sgd", "sgd-momentum", "adafactor"}) {
    m_optimizer->addItem(QString::fromLatin1(o), QString::fromLatin1(o));
  }
  m_recompute = new QComboBox(planBox);
  m_recompute->setObjectName(u"recompute"_s);
  m_recompute->addItem(tr("none"), u"none"_s);
  m_recompute->addItem(tr("selective"), u"selective"_s);
  m_recompute->addItem(tr("full"), u"full"_s);
  m_offload = new QCheckBox(tr("Offload optimizer states to the CPU"), planBox);
  m_offload->setObjectName(u"offloadOptimizer"_s);
  m_flash = new QCheckBox(tr("Flash attention"), planBox);
  m_flash->setObjectName(u"flashAttention"_s);
  m_current = new QComboBox(planBox);
  m_current->setObjectName(u"currentStrategy"_s);
  for (const plan::Plan& p : comparedPlans({})) {
    m_current->addItem(strategyName(p));
  }
  m_current->setCurrentIndex(1);  // FSDP full shard: the usual answer when DDP does not fit
  auto* form = new QFormLayout(planBox);
  form->addRow(tr("GPUs:"), m_gpus);
  form->addRow(tr("Precision:"), m_precision);
  form->addRow(tr("Micro-batch per GPU:"), m_microBatch);
  form->addRow(tr("Gradient accumulation:"), m_accumulation);
  form->addRow(tr("Sequence length:"), m_seq);
  form->addRow(tr("Optimizer:"), m_optimizer);
  form->addRow(tr("Recomputation:"), m_recompute);
  form->addRow(m_offload);
  form->addRow(m_flash);
  form->addRow(tr("Details for:"), m_current);

  m_status = new QLabel(inputs);
  m_status->setObjectName(u"whatIfStatus"_s);
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_save = new QPushButton(tr("Save to Workspace"), inputs);
  m_save->setObjectName(u"saveComparison"_s);
  m_save->setEnabled(false);
  m_export = new QPushButton(tr("Export"), inputs);
  m_export->setObjectName(u"exportComparison"_s);
  m_export->setEnabled(false);
  auto* exportMenu = new QMenu(m_export);
  exportMenu->addAction(tr("Charts as PNG or SVG…"), this, &WhatIfView::exportImageInteractive);
  exportMenu->addAction(tr("Comparison as CSV…"), this, &WhatIfView::exportCsvInteractive);
  m_export->setMenu(exportMenu);
  connect(m_save, &QPushButton::clicked, this, [this] {
    if (m_comparison) {
      emit saveRequested(*m_comparison);
    }
  });

  auto* buttons = new QHBoxLayout();
  buttons->addWidget(m_save);
  buttons->addWidget(m_export);
  auto* layout = new QVBoxLayout(inputs);
  layout->addWidget(modelBox);
  layout->addWidget(hardwareBox);
  layout->addWidget(planBox);
  layout->addLayout(buttons);
  layout->addWidget(m_status);
  layout->addStretch(1);

  connect(m_model, &ModelSourceEditor::changed, this, &WhatIfView::scheduleRequest);
  connect(m_hardware, &HardwareEditor::changed, this, &WhatIfView::scheduleRequest);
  for (QSpinBox* s : {m_gpus, m_microBatch, m_accumulation, m_seq}) {
    connect(s, &QSpinBox::valueChanged, this, &WhatIfView::scheduleRequest);
  }
  for (QComboBox* c : {m_precision, m_optimizer, m_recompute, m_current}) {
    connect(c, &QComboBox::currentIndexChanged, this, &WhatIfView::scheduleRequest);
  }
  for (QCheckBox* c : {m_offload, m_flash}) {
    connect(c, &QCheckBox::toggled, this, &WhatIfView::scheduleRequest);
  }
  return inputs;
}

QWidget* WhatIfView::buildResults() {
  // Two pages of charts (memory; time and communication), then the numbers behind them as tables.
  auto* tabs = new QTabWidget();
  tabs->setObjectName(u"whatIfTabs"_s);
  // Each page stacks its two charts: wide charts keep eight strategy names and eleven GPU counts readable.
  auto pair = [tabs](QWidget* top, QWidget* bottom) {
    auto* page = new QWidget(tabs);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addWidget(top, 1);
    layout->addWidget(bottom, 1);
    return page;
  };
  m_memoryChart = new MemoryChart();
  m_memoryScaling = new ScalingChart(ScalingChart::Quantity::MemoryPerGpu);
  m_commChart = new CommChart();
  m_timeScaling = new ScalingChart(ScalingChart::Quantity::StepTime);
  tabs->addTab(pair(m_memoryChart, m_memoryScaling), tr("Memory"));
  tabs->addTab(pair(m_commChart, m_timeScaling), tr("Time and communication"));

  m_strategiesModel = new StrategyComparisonModel(this);
  m_collectivesModel = new CollectivesModel(this);
  m_searchModel = new PlanSearchModel(this);
  tabs->addTab(table(m_strategiesModel, tabs, u"strategiesTable"_s), tr("Strategies"));
  auto* collectivesPage = new QWidget(tabs);
  m_collectivesTitle = new QLabel(collectivesPage);
  auto* collectivesLayout = new QVBoxLayout(collectivesPage);
  collectivesLayout->setContentsMargins(4, 4, 4, 4);
  collectivesLayout->addWidget(m_collectivesTitle);
  collectivesLayout->addWidget(table(m_collectivesModel, collectivesPage, u"collectivesTable"_s));
  tabs->addTab(collectivesPage, tr("Collectives"));
  // Twelve columns share the width left beside the inputs and the docks: the strategy names (the only long texts)
  // take what the numbers leave and wrap, so every column stays in view.
  QTableView* search = table(m_searchModel, tabs, u"searchTable"_s);
  WrappingColumn::install(search, PlanSearchModel::StrategyColumn);
  tabs->addTab(search, tr("Top plans"));
  // Inference of a model too large for one GPU: where each module goes. It has inputs of its own, so the training
  // inputs step aside while it is shown.
  m_deviceMap = new DeviceMapView(tabs);
  const int deviceMapTab = tabs->addTab(m_deviceMap, tr("Device map"));
  tabs->setTabToolTip(deviceMapTab, tr("Inference / big model: where each module of a model goes across GPUs, CPU and "
                                       "disk (Accelerate's device maps)."));
  connect(tabs, &QTabWidget::currentChanged, this,
          [this, tabs] { m_inputs->setVisible(tabs->currentWidget() != m_deviceMap); });
  m_tabs = tabs;
  return tabs;
}

void WhatIfView::showDeviceMap() {
  m_tabs->setCurrentWidget(m_deviceMap);
}

void WhatIfView::scheduleRequest() {
  if (!m_updating) {
    m_debounce.start();
  }
}

PlanRequest WhatIfView::request() const {
  PlanRequest r;
  r.model = m_model->source();
  r.hardware = m_hardware->choice();
  const plan::Plan current = comparedPlans({})[static_cast<std::size_t>(std::max(0, m_current->currentIndex()))];
  r.plan.strategy = current.strategy;
  r.plan.fsdpSharding = current.fsdpSharding;
  r.plan.numGpus = m_gpus->value();
  r.plan.precision = plan::parsePrecision(m_precision->currentData().toString().toStdString());
  r.plan.microBatch = m_microBatch->value();
  r.plan.gradAccum = m_accumulation->value();
  r.plan.seqLen = m_seq->value();
  r.plan.optimizer = plan::parseOptimizer(m_optimizer->currentData().toString().toStdString());
  r.plan.recompute = plan::parseRecompute(m_recompute->currentData().toString().toStdString());
  r.plan.offloadOptimizer = m_offload->isChecked();
  r.plan.flashAttention = m_flash->isChecked();
  return r;
}

void WhatIfView::setRequest(const PlanRequest& r) {
  m_updating = true;
  m_model->setSource(r.model);
  m_hardware->setChoice(r.hardware);
  m_gpus->setValue(r.plan.numGpus);
  m_precision->setCurrentIndex(
      std::max(0, m_precision->findData(QString::fromLatin1(plan::toString(r.plan.precision).data()))));
  m_microBatch->setValue(r.plan.microBatch);
  m_accumulation->setValue(r.plan.gradAccum);
  m_seq->setValue(static_cast<int>(r.plan.seqLen));
  m_optimizer->setCurrentIndex(
      std::max(0, m_optimizer->findData(QString::fromLatin1(plan::toString(r.plan.optimizer).data()))));
  m_recompute->setCurrentIndex(
      std::max(0, m_recompute->findData(QString::fromLatin1(plan::toString(r.plan.recompute).data()))));
  m_offload->setChecked(r.plan.offloadOptimizer);
  m_flash->setChecked(r.plan.flashAttention);
  const auto plans = comparedPlans({});
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (plans[i].strategy == r.plan.strategy &&
        (r.plan.strategy != plan::Strategy::Fsdp || plans[i].fsdpSharding == r.plan.fsdpSharding)) {
      m_current->setCurrentIndex(static_cast<int>(i));
    }
  }
  m_updating = false;
  m_debounce.stop();
  emit requestChanged(request());
}

void WhatIfView::setComparison(const PlanComparison& c) {
  if (c.request.toJson() != request().toJson()) {
    return;  // computed for inputs the user has changed since
  }
  m_comparison = c;
  m_memoryChart->setComparison(c);
  m_memoryScaling->setComparison(c);
  m_commChart->setComparison(c);
  m_timeScaling->setComparison(c);
  m_strategiesModel->setComparison(c);
  m_searchModel->setOutcome(c.search);
  showCurrentStrategy();
  int fitting = 0;
  for (const PlanEvaluation& e : c.strategies) {
    fitting += e.ok() && e.prediction->fits ? 1 : 0;
  }
  m_status->setText(
      tr("%1: %2 parameters on %3. %4 of %5 strategies fit; %6 plans searched in %7.")
          .arg(QString::fromStdString(c.model.name), format::parameters(double(c.model.totalParams)),
               QString::fromStdString(c.hardware.description.empty() ? c.hardware.name : c.hardware.description))
          .arg(fitting)
          .arg(c.strategies.size())
          .arg(c.search.evaluated)
          .arg(format::duration(c.elapsedMs / 1e3)));
  m_status->setStyleSheet(QString());
  m_save->setEnabled(true);
  m_export->setEnabled(true);
}

void WhatIfView::showCurrentStrategy() {
  const PlanEvaluation* current = m_comparison ? m_comparison->current() : nullptr;
  if (current == nullptr || !current->ok()) {
    m_collectivesModel->setCollectives({});
    m_collectivesTitle->setText(current != nullptr ? current->error : QString());
    return;
  }
  m_collectivesModel->setCollectives(current->prediction->communication.collectives);
  m_collectivesTitle->setText(
      tr("%1: %2 sent per GPU per optimizer step")
          .arg(strategyName(current->plan), format::bytes(current->prediction->communication.bytesPerRankPerStep)));
}

void WhatIfView::setError(const QString& message) {
  m_status->setText(message);
  m_status->setStyleSheet(u"color: #b3261e"_s);
  m_save->setEnabled(false);
}

bool WhatIfView::exportImage(const QString& path, QString* error) const {
  // The four charts in a 2 × 2 grid, each at a size that reads well on paper and on screen.
  const QSizeF cell(900, 560);
  const QSize size(int(cell.width() * 2), int(cell.height() * 2));
  const std::array<ChartView*, 4> charts{m_memoryChart, m_memoryScaling, m_commChart, m_timeScaling};
  auto draw = [&](QPainter& painter) {
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    for (std::size_t i = 0; i < charts.size(); ++i) {
      const QPointF origin((i % 2) * cell.width(), double(i / 2) * cell.height());
      charts[i]->renderTo(&painter, QRectF(origin, cell));
    }
  };
  if (path.endsWith(u".svg"_s, Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(tr("Fathom what-if comparison"));
    QPainter painter;
    if (!painter.begin(&svg)) {
      *error = tr("Cannot write %1.").arg(path);
      return false;
    }
    draw(painter);
    painter.end();
    return QFileInfo(path).size() > 0;
  }
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  draw(painter);
  painter.end();
  if (!image.save(path, "PNG")) {
    *error = tr("Cannot write %1.").arg(path);
    return false;
  }
  return true;
}

bool WhatIfView::exportCsv(const QString& path, QString* error) const {
  if (!m_comparison) {
    *error = tr("Nothing to export yet.");
    return false;
  }
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
    *error = tr("Cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  file.write(comparisonCsv(*m_comparison).toUtf8());
  return true;
}

void WhatIfView::exportImageInteractive() {
  QString selected;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export Charts"), u"comparison.png"_s,
                                                    tr("PNG image (*.png);;SVG drawing (*.svg)"), &selected);
  if (path.isEmpty()) {
    return;
  }
  QString error;
  if (!exportImage(path, &error)) {
    QMessageBox::warning(this, tr("Export Charts"), error);
  }
}

void WhatIfView::exportCsvInteractive() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export Comparison"), u"comparison.csv"_s, tr("CSV table (*.csv)"));
  if (path.isEmpty()) {
    return;
  }
  QString error;
  if (!exportCsv(path, &error)) {
    QMessageBox::warning(this, tr("Export Comparison"), error);
  }
}

}  // namespace fathom::views
