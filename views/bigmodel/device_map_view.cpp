// SPDX-License-Identifier: Apache-2.0
#include "bigmodel/device_map_view.h"

#include "bigmodel/device_bars.h"
#include "bigmodel/device_delegate.h"
#include "bigmodel/device_limits_editor.h"
#include "bigmodel/device_map_document.h"
#include "bigmodel/module_tree_model.h"
#include "common/formatting.h"
#include "common/inputs_and_results.h"

#include <fathom/bigmodel/device_load.h>
#include <fathom/common/error.h>

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace fathom::views {

namespace bm = bigmodel;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
const QString kErrorStyle = u"color: #b3261e"_s;

/// What each strategy does, for its tooltip (the names are core's: strategyNames()).
QString strategyHelp(bm::DeviceMapStrategy strategy) {
  switch (strategy) {
  case bm::DeviceMapStrategy::Auto:
    return DeviceMapView::tr("The same as balanced: Accelerate tells the two apart nowhere.");
  case bm::DeviceMapStrategy::Balanced:
    return DeviceMapView::tr(
        "Accelerate's balanced: the GPUs capped at an even share of the model, then filled in order.");
  case bm::DeviceMapStrategy::BalancedLow0:
    return DeviceMapView::tr(
        "As balanced, with GPU 0 kept as empty as the other GPUs allow (room for generate's tensors).");
  case bm::DeviceMapStrategy::Sequential:
    return DeviceMapView::tr(
        "GPU 0 filled first, then GPU 1, …, then the CPU and the disk, within the limits as given.");
  case bm::DeviceMapStrategy::Optimal:
    return DeviceMapView::tr("Fathom's: the smallest largest GPU load, offloading only what the GPUs cannot hold.");
  }
  return {};
}

}  // namespace

DeviceMapView::DeviceMapView(QWidget* parent) : QWidget(parent) {
  setObjectName(u"deviceMapView"_s);
  m_document = new DeviceMapDocument(this);
  m_document->setMaxMemory(
      {{bm::DeviceKey::gpu(0), 16 * kMiB}, {bm::DeviceKey::gpu(1), 16 * kMiB}, {bm::DeviceKey::cpu(), 16 * kMiB}});
  m_treeModel = new ModuleTreeModel(m_document, this);

  QWidget* inputs = buildInputs();  // built in this order, as the results may refer to the inputs
  QWidget* results = buildResults();
  layOutInputsAndResults(this, inputs, results, u"deviceMapInputs"_s);

  connect(m_document, &DeviceMapDocument::modelChanged, this, &DeviceMapView::showModelInputs);
  connect(m_document, &DeviceMapDocument::planChanged, this, &DeviceMapView::showPlan);
  connect(m_document, &DeviceMapDocument::moveRefused, this,
          [this](const QString& why) { showMessage(tr("Move refused: %1").arg(why), true); });
  showPlan();
}

QWidget* DeviceMapView::buildInputs() {
  auto* inputs = new QWidget();
  auto* modelBox = new QGroupBox(tr("Model"), inputs);
  m_model = new QComboBox(modelBox);
  m_model->setObjectName(u"deviceMapModel"_s);
  for (const QString& name : deviceMapBuiltinModels()) {
    m_model->addItem(name, name);  // data: a built-in model's name; an opened file's item holds its path
  }
  m_model->setCurrentIndex(std::max(0, m_model->findData(u"gpt-small"_s)));
  auto* open = new QPushButton(tr("Open Model…"), modelBox);
  open->setObjectName(u"openModuleTree"_s);
  open->setToolTip(tr("A Hugging Face config.json (gpt2, llama, mistral, mixtral), a safetensors checkpoint or its "
                      "index, or a module tree in JSON as `fathom device-map --print_tree` writes it."));
  m_modelSummary = new QLabel(modelBox);
  m_modelSummary->setObjectName(u"deviceMapModelSummary"_s);
  m_modelSummary->setWordWrap(true);
  auto* modelLayout = new QVBoxLayout(modelBox);
  modelLayout->addWidget(m_model);
  modelLayout->addWidget(open);
  modelLayout->addWidget(m_modelSummary);

  auto* devicesBox = new QGroupBox(tr("Devices and limits"), inputs);
  m_limits = new DeviceLimitsEditor(devicesBox);
  m_limits->setMaxMemory(m_document->maxMemory());
  (new QVBoxLayout(devicesBox))->addWidget(m_limits);

  auto* planBox = new QGroupBox(tr("Planning"), inputs);
  m_strategy = new QComboBox(planBox);
  m_strategy->setObjectName(u"deviceMapStrategy"_s);
  for (const std::string& name : bm::strategyNames()) {
    m_strategy->addItem(QString::fromStdString(name), QString::fromStdString(name));
    m_strategy->setItemData(m_strategy->count() - 1, strategyHelp(bm::parseStrategy(name)), Qt::ToolTipRole);
  }
  m_strategy->setCurrentIndex(m_strategy->findData(QString::fromLatin1(strategyName(m_document->strategy()).data())));
  m_dtype = new QComboBox(planBox);
  m_dtype->setObjectName(u"deviceMapDtype"_s);
  m_dtype->addItem(tr("as stored"), QString());
  for (const std::string& name : bm::dtypeNames()) {
    m_dtype->addItem(QString::fromStdString(name), QString::fromStdString(name));
  }
  m_dtype->setToolTip(tr("The dtype the weights are loaded in: floating-point tensors only ever shrink to it."));
  m_noSplit = new QListWidget(planBox);
  m_noSplit->setObjectName(u"noSplitClasses"_s);
  m_noSplit->setToolTip(tr("Modules of the checked classes are never split across devices."));
  m_noSplit->setMinimumHeight(110);
  auto* form = new QFormLayout(planBox);
  form->addRow(tr("Strategy:"), m_strategy);
  form->addRow(tr("Weights dtype:"), m_dtype);
  form->addRow(new QLabel(tr("Keep whole (no split):"), planBox));
  form->addRow(m_noSplit);

  m_reset = new QPushButton(tr("Reset Moves"), inputs);
  m_reset->setObjectName(u"resetMoves"_s);
  m_reset->setToolTip(tr("Forget the modules moved by hand: the strategy's map again."));
  m_export = new QPushButton(tr("Export JSON…"), inputs);
  m_export->setObjectName(u"exportDeviceMap"_s);
  m_export->setToolTip(tr("Hugging Face's device-map JSON, as from_pretrained(device_map=...) and "
                          "accelerate.dispatch_model read it."));
  auto* buttons = new QHBoxLayout();
  buttons->addWidget(m_reset);
  buttons->addWidget(m_export);

  auto* layout = new QVBoxLayout(inputs);
  layout->addWidget(modelBox);
  layout->addWidget(devicesBox);
  layout->addWidget(planBox);
  layout->addLayout(buttons);
  layout->addStretch(1);

  connect(m_model, &QComboBox::activated, this, [this] {
    const QString data = m_model->currentData().toString();
    if (const auto record = m_records.find(data); record != m_records.end()) {
      const std::shared_ptr<const bm::DispatchRecord> keep = record->second;  // openRecord replaces the entry
      openRecord(*keep, m_model->currentText());
      return;
    }
    openModel(deviceMapBuiltinModels().contains(data) ? loadBuiltinModelTree(data) : loadModelTreeFile(data));
  });
  connect(open, &QPushButton::clicked, this, &DeviceMapView::openFileInteractive);
  connect(m_limits, &DeviceLimitsEditor::changed, this, [this] { m_document->setMaxMemory(m_limits->maxMemory()); });
  connect(m_strategy, &QComboBox::currentIndexChanged, this,
          [this] { m_document->setStrategy(bm::parseStrategy(m_strategy->currentData().toString().toStdString())); });
  connect(m_dtype, &QComboBox::currentIndexChanged, this, [this] {
    const QString name = m_dtype->currentData().toString();
    m_document->setDtype(name.isEmpty() ? std::nullopt : bm::dtypeFromName(name.toStdString()));
  });
  connect(m_noSplit, &QListWidget::itemChanged, this, &DeviceMapView::noSplitEdited);
  connect(m_reset, &QPushButton::clicked, m_document, &DeviceMapDocument::clearMoves);
  connect(m_export, &QPushButton::clicked, this, &DeviceMapView::exportInteractive);
  return inputs;
}

QWidget* DeviceMapView::buildResults() {
  auto* results = new QWidget();
  m_status = new QLabel(results);
  m_status->setObjectName(u"deviceMapStatus"_s);
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_bars = new DeviceBars(results);
  m_message = new QLabel(results);
  m_message->setObjectName(u"deviceMapMessage"_s);
  m_message->setWordWrap(true);
  m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_message->hide();
  auto* hint = new QLabel(tr("Drag a module onto a device's bar, or onto a module on another device, or pick its "
                             "device in the Device column. Bold rows were moved by hand."),
                          results);
  hint->setWordWrap(true);
  m_tree = new QTreeView(results);
  m_tree->setObjectName(u"moduleTree"_s);
  m_tree->setModel(m_treeModel);
  m_tree->setItemDelegateForColumn(ModuleTreeModel::DeviceColumn, new DeviceDelegate(m_document, m_tree));
  m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
  m_tree->setDragEnabled(true);
  m_tree->setAcceptDrops(true);
  m_tree->setDropIndicatorShown(true);
  m_tree->setDragDropMode(QAbstractItemView::DragDrop);
  m_tree->setDefaultDropAction(Qt::MoveAction);
  m_tree->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::SelectedClicked |
                          QAbstractItemView::EditKeyPressed);
  m_tree->header()->setStretchLastSection(false);
  m_tree->header()->setSectionResizeMode(ModuleTreeModel::NameColumn, QHeaderView::Stretch);
  for (int c : {ModuleTreeModel::ClassColumn, ModuleTreeModel::SizeColumn, ModuleTreeModel::DeviceColumn}) {
    m_tree->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  }
  connect(m_treeModel, &QAbstractItemModel::modelReset, this, [this] { m_tree->expandToDepth(2); });
  connect(m_bars, &DeviceBars::moduleDropped, this, [this](const QString& module, const bm::DeviceKey& device) {
    m_document->moveModule(module.toStdString(), device);
  });

  auto* layout = new QVBoxLayout(results);
  layout->setContentsMargins(6, 6, 6, 6);
  layout->addWidget(m_status);
  layout->addWidget(m_bars);
  layout->addWidget(m_message);
  layout->addWidget(hint);
  layout->addWidget(m_tree, 1);
  return results;
}

void DeviceMapView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (!m_document->hasModel() && m_message->isHidden()) {
    openBuiltinModel(m_model->currentData().toString());  // built when first shown: the what-if view may never be
  }
}

void DeviceMapView::openBuiltinModel(const QString& name) {
  openModel(loadBuiltinModelTree(name));
}

bool DeviceMapView::openModelFile(const QString& path) {
  const LoadedModelTree model = loadModelTreeFile(path);
  openModel(model);
  return model.ok();
}

void DeviceMapView::openRecord(const bm::DispatchRecord& record, const QString& title) {
  auto shared = std::make_shared<const bm::DispatchRecord>(record);
  LoadedModelTree model;
  model.tree = std::shared_ptr<const bm::ModuleTree>(shared, &shared->tree);
  model.name = title;
  model.path = u"record:"_s + title;  // the model list's key: choosing the item opens the record again
  model.noSplitClasses = record.noSplitClasses;
  m_records[model.path] = shared;

  bm::MaxMemory limits = record.maxMemory;
  if (limits.empty()) {
    // No limits recorded (the program gave the map): each device the map uses, limited to what the map puts there.
    for (const bm::DeviceLoad& load : bm::deviceLoads(record.tree, record.deviceMap, {}).devices) {
      if (load.device != bm::DeviceKey::disk()) {
        limits.push_back({load.device, std::max<bm::ByteCount>(load.load(), 1)});
      }
    }
  }
  m_limits->setMaxMemory(limits);
  m_document->setMaxMemory(limits);  // exact: the editor shows them rounded to its unit
  openModel(model);
  m_model->setItemData(m_model->currentIndex(), QVariant(), Qt::ToolTipRole);

  // The recorded map as moves, parents before children: a later move of a module replaces the earlier ones of it and
  // below it, while the map's own rule is that the most specific entry wins, whatever the order.
  bm::DeviceMap moves = record.deviceMap;
  const auto depth = [](const std::string& name) {
    return name.empty() ? 0 : 1 + std::count(name.begin(), name.end(), '.');
  };
  std::stable_sort(moves.begin(), moves.end(), [&](const bm::DeviceMapEntry& a, const bm::DeviceMapEntry& b) {
    return depth(a.module) < depth(b.module);
  });
  m_recordTitle = title;
  m_recordMoves.clear();
  QStringList refused;
  for (const bm::DeviceMapEntry& e : moves) {
    if (!m_document->moveModule(e.module, e.device)) {
      refused << m_document->moveError();
    }
  }
  m_recordMoves = m_document->moves();
  showPlan();
  if (!refused.isEmpty()) {
    showMessage(tr("Parts of the recorded map could not be shown: %1").arg(refused.join(u"; "_s)), true);
  }
}

bool DeviceMapView::openRecordJson(const QString& json, const QString& title) {
  try {
    openRecord(bm::dispatchRecordFromJson(json.toStdString(), title.toStdString()), title);
    return true;
  } catch (const Error& e) {
    showMessage(QString::fromUtf8(e.what()), true);
    return false;
  }
}

bool DeviceMapView::showsRecordedMap() const {
  return !m_recordTitle.isEmpty() && m_document->hasPlan() && m_document->moves() == m_recordMoves &&
         m_document->model().path == u"record:"_s + m_recordTitle;
}

void DeviceMapView::openModel(const LoadedModelTree& model) {
  if (!model.ok()) {
    showMessage(model.error, true);
    // The combo shows what is open.
    const QString open = m_document->model().path.isEmpty() ? m_document->model().name : m_document->model().path;
    m_model->setCurrentIndex(std::max(0, m_model->findData(open)));
    return;
  }
  const QString key = model.path.isEmpty() ? model.name : model.path;
  if (m_model->findData(key) < 0) {
    m_model->addItem(model.name, key);
    m_model->setItemData(m_model->count() - 1, model.path, Qt::ToolTipRole);
  }
  m_model->setCurrentIndex(m_model->findData(key));
  m_document->setModel(model);
}

void DeviceMapView::showModelInputs() {
  // The classes of the model's modules, in order of first appearance, checked when kept whole.
  const QSignalBlocker block(m_noSplit);
  m_noSplit->clear();
  if (!m_document->hasModel()) {
    return;
  }
  const std::vector<std::string>& noSplit = m_document->noSplitClasses();
  QStringList seen;
  for (const bm::ModuleInfo& m : m_document->model().tree->modules()) {
    const QString name = QString::fromStdString(m.className);
    if (m.name.empty() || seen.contains(name)) {
      continue;
    }
    seen << name;
    auto* item = new QListWidgetItem(name, m_noSplit);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
    const bool kept = std::find(noSplit.begin(), noSplit.end(), m.className) != noSplit.end();
    item->setCheckState(kept ? Qt::Checked : Qt::Unchecked);
  }
  m_modelSummary->setText(tr("%1: %2 modules, %3 as stored.")
                              .arg(m_document->model().name)
                              .arg(m_document->model().tree->modules().size())
                              .arg(format::bytes(bm::computeModuleSizes(*m_document->model().tree)[""])));
}

void DeviceMapView::noSplitEdited() {
  std::vector<std::string> classes;
  for (int i = 0; i < m_noSplit->count(); ++i) {
    if (m_noSplit->item(i)->checkState() == Qt::Checked) {
      classes.push_back(m_noSplit->item(i)->text().toStdString());
    }
  }
  m_document->setNoSplitClasses(classes);
}

void DeviceMapView::showPlan() {
  std::vector<DeviceBars::Bar> bars;
  if (m_document->hasPlan()) {
    for (const bm::DeviceKey& device : m_document->devices()) {
      const bm::DeviceLoad load = m_document->loadOf(device);
      bars.push_back({device, load.bytes, load.reserved, m_document->limitOf(device)});
    }
  }
  m_bars->setBars(std::move(bars));
  m_reset->setEnabled(!m_document->moves().empty());
  m_export->setEnabled(m_document->hasPlan());
  // A new plan replaces the last message (a refused move, a file that did not open, an export): what it says is old.
  if (!m_document->planError().isEmpty()) {
    showMessage(tr("No device map: %1").arg(m_document->planError()), true);
  } else if (!m_document->droppedMoves().isEmpty()) {
    showMessage(tr("Moves no longer applied: %1").arg(m_document->droppedMoves().join(u"; "_s)), true);
  } else {
    showMessage({}, false);
  }
  if (!m_document->hasPlan()) {
    m_status->setText(m_document->hasModel() ? QString() : tr("Open a model to plan its device map."));
    return;
  }
  const bm::DeviceLoads& loads = m_document->loads();
  QString status =
      tr("Strategy %1. Largest GPU load: %2. Offloaded to CPU and disk: %3. Map entries: %4.")
          .arg(m_strategy->currentText(), format::bytes(loads.maxGpuLoad), format::bytes(loads.offloadedBytes))
          .arg(m_document->deviceMap().size());
  if (const auto& gain = m_document->gain(); gain && m_document->moves().empty()) {  // the plans, not the moves
    status += u' ' + tr("Balanced's largest GPU load: %1; optimal's is %2 lower.")
                         .arg(format::bytes(gain->balancedMaxGpuLoad), format::percent(gain->gain));
  }
  if (showsRecordedMap()) {
    status +=
        u' ' + tr("This is the map %1 dispatched with; Reset Moves shows the strategy's plan.").arg(m_recordTitle);
  } else if (!m_document->moves().empty()) {
    status += u' ' + tr("Moved by hand: %1.").arg(m_document->moves().size());
  }
  m_status->setText(status);
}

void DeviceMapView::showMessage(const QString& text, bool error) {
  m_message->setText(text);
  m_message->setStyleSheet(error ? kErrorStyle : QString());
  m_message->setVisible(!text.isEmpty());
}

QString DeviceMapView::message() const {
  return m_message->isHidden() ? QString() : m_message->text();
}

void DeviceMapView::setStrategy(bm::DeviceMapStrategy strategy) {
  m_strategy->setCurrentIndex(m_strategy->findData(QString::fromLatin1(bm::strategyName(strategy).data())));
}

bool DeviceMapView::exportJson(const QString& path, QString* error) const {
  return m_document->exportJson(path, error);
}

void DeviceMapView::openFileInteractive() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open Model"), QString(), deviceMapModelFileFilter());
  if (!path.isEmpty()) {
    openModelFile(path);
  }
}

void DeviceMapView::exportInteractive() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export Device Map"), u"device_map.json"_s, tr("Device map JSON (*.json)"));
  if (path.isEmpty()) {
    return;
  }
  QString error;
  if (exportJson(path, &error)) {
    showMessage(tr("Device map written to %1.").arg(path), false);
  } else {
    QMessageBox::warning(this, tr("Export Device Map"), error);
  }
}

}  // namespace fathom::views
