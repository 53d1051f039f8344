// SPDX-License-Identifier: Apache-2.0
#include "planner/model_source_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

QSpinBox* spin(int minimum, int maximum, QWidget* parent, const QString& name) {
  auto* s = new QSpinBox(parent);
  s->setRange(minimum, maximum);
  s->setObjectName(name);
  s->setAccelerated(true);
  return s;
}

ModelSource dims(const QString& name, plan::Arch arch, int layers, int hidden, int heads, int kvHeads, int ffn,
                 int vocab, int positions, bool tied) {
  ModelSource s;
  s.kind = ModelSource::Kind::Dimensions;
  s.dimsName = name;
  s.dims.arch = arch;
  s.dims.layers = layers;
  s.dims.hidden = hidden;
  s.dims.heads = heads;
  s.dims.kvHeads = kvHeads;
  s.dims.ffnHidden = ffn;
  s.dims.vocab = vocab;
  s.dims.maxPositions = positions;
  s.dims.tiedEmbeddings = tied;
  return s;
}

const plan::Arch kArchs[] = {plan::Arch::Gpt, plan::Arch::Llama, plan::Arch::Bert, plan::Arch::T5};

/// The label of a built-in model's dimension field (translated; the flag in parentheses, as the CLI spells it).
QString dimensionLabel(models::ModelDimension dimension) {
  switch (dimension) {
  case models::ModelDimension::Hidden: return ModelSourceEditor::tr("Width (hidden):");
  case models::ModelDimension::Layers: return ModelSourceEditor::tr("Blocks (layers):");
  case models::ModelDimension::NLayer: return ModelSourceEditor::tr("Layers (n_layer):");
  case models::ModelDimension::NHead: return ModelSourceEditor::tr("Heads (n_head):");
  case models::ModelDimension::NEmbd: return ModelSourceEditor::tr("Width (n_embd):");
  case models::ModelDimension::BlockSize: return ModelSourceEditor::tr("Context (block_size):");
  case models::ModelDimension::VocabSize: return ModelSourceEditor::tr("Vocabulary (vocab_size):");
  case models::ModelDimension::Dropout: return ModelSourceEditor::tr("Dropout (dropout):");
  }
  return {};
}

}  // namespace

QList<ModelSource> ModelSourceEditor::dimensionPresets() {
  using plan::Arch;
  return {dims(u"Llama 2 7B"_s, Arch::Llama, 32, 4096, 32, 32, 11008, 32000, 0, false),
          dims(u"Llama 2 70B"_s, Arch::Llama, 80, 8192, 64, 8, 28672, 32000, 0, false),
          dims(u"Llama 3 8B"_s, Arch::Llama, 32, 4096, 32, 8, 14336, 128256, 0, false),
          dims(u"Mistral 7B"_s, Arch::Llama, 32, 4096, 32, 8, 14336, 32000, 0, false),
          dims(u"GPT-2 (124M)"_s, Arch::Gpt, 12, 768, 12, 0, 0, 50257, 1024, true),
          dims(u"GPT-2 XL (1.5B)"_s, Arch::Gpt, 48, 1600, 25, 0, 0, 50257, 1024, true),
          dims(u"BERT base"_s, Arch::Bert, 12, 768, 12, 0, 0, 30522, 512, true)};
}

ModelSourceEditor::ModelSourceEditor(Sources sources, QWidget* parent) : QWidget(parent), m_sources(sources) {
  setObjectName(u"modelSourceEditor"_s);
  const bool withBuiltin = sources != Sources::External;
  const bool withExternal = sources != Sources::BuiltinOnly;
  m_kind = new QComboBox(this);
  m_kind->setObjectName(u"modelKind"_s);
  if (withBuiltin) {
    m_kind->addItem(tr("Built-in model"), int(ModelSource::Kind::Builtin));
  }
  if (withExternal) {
    m_kind->addItem(tr("Transformer dimensions"), int(ModelSource::Kind::Dimensions));
    m_kind->addItem(tr("Hugging Face config.json"), int(ModelSource::Kind::HfConfig));
    m_kind->addItem(tr("Parameter count"), int(ModelSource::Kind::Parameters));
  }
  m_kind->setVisible(m_kind->count() > 1);

  m_pages = new QStackedWidget(this);
  auto* builtinPage = new QWidget(m_pages);
  auto* dimsPage = new QWidget(m_pages);
  auto* hfPage = new QWidget(m_pages);
  auto* paramsPage = new QWidget(m_pages);
  buildBuiltinPage(builtinPage);
  buildDimensionsPage(dimsPage);

  m_hfPath = new QLineEdit(hfPage);
  m_hfPath->setObjectName(u"hfConfigPath"_s);
  m_hfPath->setPlaceholderText(tr("config.json, or the folder holding it"));
  auto* browse = new QPushButton(tr("Browse…"), hfPage);
  auto* hfLayout = new QHBoxLayout(hfPage);
  hfLayout->setContentsMargins(0, 0, 0, 0);
  hfLayout->addWidget(m_hfPath, 1);
  hfLayout->addWidget(browse);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getOpenFileName(this, tr("Hugging Face model configuration"), m_hfPath->text(),
                                                      tr("Model configuration (config.json *.json)"));
    if (!file.isEmpty()) {
      m_hfPath->setText(file);
    }
  });
  connect(m_hfPath, &QLineEdit::editingFinished, this, &ModelSourceEditor::emitChanged);

  m_params = new QDoubleSpinBox(paramsPage);
  m_params->setObjectName(u"parameterCount"_s);
  m_params->setRange(0.001, 100000);
  m_params->setDecimals(3);
  m_params->setValue(7.0);
  m_params->setSuffix(tr(" billion"));
  auto* paramsLayout = new QFormLayout(paramsPage);
  paramsLayout->setContentsMargins(0, 0, 0, 0);
  paramsLayout->addRow(tr("Parameters:"), m_params);
  connect(m_params, &QDoubleSpinBox::valueChanged, this, &ModelSourceEditor::emitChanged);

  // Pages in the order of the kinds offered; the others stay hidden (their fields still back source()).
  for (auto [page, offered] : {std::pair{builtinPage, withBuiltin}, std::pair{dimsPage, withExternal},
                               std::pair{hfPage, withExternal}, std::pair{paramsPage, withExternal}}) {
    if (offered) {
      m_pages->addWidget(page);
    } else {
      page->hide();
    }
  }

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_kind);
  layout->addWidget(m_pages);
  connect(m_kind, &QComboBox::currentIndexChanged, this, [this](int index) {
    m_pages->setCurrentIndex(index);
    emitChanged();
  });
  applyDimensionPreset(0);
}

void ModelSourceEditor::buildBuiltinPage(QWidget* page) {
  m_builtinName = new QComboBox(page);
  m_builtinName->setObjectName(u"builtinModel"_s);
  for (const models::BuiltinModelInfo& m : models::builtinModels()) {
    m_builtinName->addItem(QString::fromUtf8(m.name.data(), static_cast<qsizetype>(m.name.size())));
    m_builtinName->setItemData(m_builtinName->count() - 1,
                               QString::fromUtf8(m.help.data(), static_cast<qsizetype>(m.help.size())),
                               Qt::ToolTipRole);
  }
  m_builtinName->setCurrentText(u"gpt-tiny"_s);

  auto* layout = new QFormLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addRow(tr("Model:"), m_builtinName);
  for (const models::ModelDimensionInfo& d : models::modelDimensions()) {
    QWidget*& fields = m_familyFields[d.family];
    if (fields == nullptr) {
      fields = new QWidget(page);
      auto* form = new QFormLayout(fields);
      form->setContentsMargins(0, 0, 0, 0);
      layout->addRow(fields);
    }
    const QString name = u"dimension_"_s + QString::fromUtf8(d.flag.data(), static_cast<qsizetype>(d.flag.size()));
    const QString help = QString::fromStdString(models::dimensionHelp(d.dimension));
    DimensionField field{d.dimension};
    QWidget* editor = nullptr;
    if (d.integral) {
      field.count = spin(static_cast<int>(d.minimum), static_cast<int>(d.maximum), fields, name);
      connect(field.count, &QSpinBox::valueChanged, this, &ModelSourceEditor::emitChanged);
      editor = field.count;
    } else {
      field.fraction = new QDoubleSpinBox(fields);
      field.fraction->setObjectName(name);
      field.fraction->setRange(d.minimum, 0.99);  // a fraction of [minimum, 1)
      field.fraction->setSingleStep(0.05);
      field.fraction->setDecimals(2);
      connect(field.fraction, &QDoubleSpinBox::valueChanged, this, &ModelSourceEditor::emitChanged);
      editor = field.fraction;
    }
    editor->setToolTip(help);
    static_cast<QFormLayout*>(fields->layout())->addRow(dimensionLabel(d.dimension), editor);
    m_dimensionFields.push_back(field);
  }
  connect(m_builtinName, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    showBuiltinDimensions(models::ModelRequest{.name = name.toStdString()});
    emitChanged();
  });
  showBuiltinDimensions(models::ModelRequest{.name = m_builtinName->currentText().toStdString()});
}

void ModelSourceEditor::showBuiltinDimensions(const models::ModelRequest& model) {
  const bool old = m_updating;
  m_updating = true;
  const models::ModelFamily family = model.info().family;
  for (const auto& [f, fields] : m_familyFields) {
    fields->setVisible(f == family);
  }
  for (const DimensionField& field : m_dimensionFields) {
    if (models::dimensionInfo(field.dimension).family != family) {
      continue;
    }
    const double value = model.value(field.dimension);
    if (field.count != nullptr) {
      field.count->setValue(static_cast<int>(value));
    } else {
      field.fraction->setValue(value);
    }
  }
  m_updating = old;
}

void ModelSourceEditor::showDimensions(const plan::TransformerDims& d) {
  m_arch->setCurrentIndex(
      static_cast<int>(std::find(std::begin(kArchs), std::end(kArchs), d.arch) - std::begin(kArchs)));
  m_dimLayers->setValue(int(d.layers));
  m_dimHidden->setValue(int(d.hidden));
  m_dimHeads->setValue(int(d.heads));
  m_dimKvHeads->setValue(int(d.kvHeads));
  m_dimFfn->setValue(int(d.ffnHidden));
  m_dimVocab->setValue(int(d.vocab));
  m_dimPositions->setValue(int(d.maxPositions));
  m_dimTied->setChecked(d.tiedEmbeddings);
}

void ModelSourceEditor::buildDimensionsPage(QWidget* page) {
  m_dimsPreset = new QComboBox(page);
  m_dimsPreset->setObjectName(u"dimensionPreset"_s);
  for (const ModelSource& p : dimensionPresets()) {
    m_dimsPreset->addItem(p.dimsName);
  }
  m_dimsPreset->addItem(tr("Custom"));
  m_arch = new QComboBox(page);
  m_arch->setObjectName(u"arch"_s);
  m_arch->addItem(tr("GPT (GPT-2 style)"));
  m_arch->addItem(tr("Llama (RoPE, SwiGLU, GQA)"));
  m_arch->addItem(tr("BERT encoder"));
  m_arch->addItem(tr("T5 encoder-decoder"));
  m_dimLayers = spin(1, 4096, page, u"layers"_s);
  m_dimHidden = spin(1, 1 << 20, page, u"hidden"_s);
  m_dimHeads = spin(1, 4096, page, u"heads"_s);
  m_dimKvHeads = spin(0, 4096, page, u"kvHeads"_s);
  m_dimKvHeads->setSpecialValueText(tr("as heads"));
  m_dimFfn = spin(0, 1 << 22, page, u"ffnHidden"_s);
  m_dimFfn->setSpecialValueText(tr("derived"));
  m_dimVocab = spin(1, 1 << 22, page, u"vocab"_s);
  m_dimPositions = spin(0, 1 << 22, page, u"maxPositions"_s);
  m_dimPositions->setSpecialValueText(tr("default"));
  m_dimTied = new QCheckBox(tr("Output layer shares the input embedding"), page);
  m_dimTied->setObjectName(u"tiedEmbeddings"_s);

  auto* layout = new QFormLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addRow(tr("Preset:"), m_dimsPreset);
  layout->addRow(tr("Family:"), m_arch);
  layout->addRow(tr("Layers:"), m_dimLayers);
  layout->addRow(tr("Hidden size:"), m_dimHidden);
  layout->addRow(tr("Attention heads:"), m_dimHeads);
  layout->addRow(tr("Key/value heads:"), m_dimKvHeads);
  layout->addRow(tr("MLP width:"), m_dimFfn);
  layout->addRow(tr("Vocabulary:"), m_dimVocab);
  layout->addRow(tr("Positions:"), m_dimPositions);
  layout->addRow(m_dimTied);
  connect(m_dimsPreset, &QComboBox::activated, this, [this](int index) {
    applyDimensionPreset(index);
    emitChanged();
  });
  auto edited = [this] {
    if (!m_updating) {
      m_dimsPreset->setCurrentIndex(m_dimsPreset->count() - 1);  // "Custom"
      emitChanged();
    }
  };
  connect(m_arch, &QComboBox::currentIndexChanged, this, edited);
  for (QSpinBox* s : {m_dimLayers, m_dimHidden, m_dimHeads, m_dimKvHeads, m_dimFfn, m_dimVocab, m_dimPositions}) {
    connect(s, &QSpinBox::valueChanged, this, edited);
  }
  connect(m_dimTied, &QCheckBox::toggled, this, edited);
}

void ModelSourceEditor::applyDimensionPreset(int index) {
  const QList<ModelSource> presets = dimensionPresets();
  if (index < 0 || index >= presets.size()) {
    return;
  }
  const bool old = m_updating;
  m_updating = true;
  m_dimsPreset->setCurrentIndex(index);
  showDimensions(presets.at(index).dims);
  m_updating = old;
}

void ModelSourceEditor::emitChanged() {
  if (!m_updating) {
    emit changed();
  }
}

ModelSource ModelSourceEditor::source() const {
  ModelSource s;
  s.kind = static_cast<ModelSource::Kind>(m_kind->currentData().toInt());
  s.builtin = models::ModelRequest{.name = m_builtinName->currentText().toStdString()};
  const models::ModelFamily family = s.builtin.info().family;
  for (const DimensionField& field : m_dimensionFields) {
    if (models::dimensionInfo(field.dimension).family == family) {
      s.builtin.set(field.dimension, field.count != nullptr ? field.count->value() : field.fraction->value());
    }
  }
  // Only dimensions that differ from the preset are given (so `--model gpt-small` stays that).
  s.builtin = s.builtin.withoutPresetValues();

  const int preset_ = m_dimsPreset->currentIndex();
  s.dimsName = preset_ < m_dimsPreset->count() - 1 ? m_dimsPreset->currentText() : QString();
  s.dims.arch = kArchs[std::clamp(m_arch->currentIndex(), 0, 3)];
  s.dims.layers = m_dimLayers->value();
  s.dims.hidden = m_dimHidden->value();
  s.dims.heads = m_dimHeads->value();
  s.dims.kvHeads = m_dimKvHeads->value();
  s.dims.ffnHidden = m_dimFfn->value();
  s.dims.vocab = m_dimVocab->value();
  s.dims.maxPositions = m_dimPositions->value();
  s.dims.tiedEmbeddings = m_dimTied->isChecked();
  s.hfConfigPath = m_hfPath->text().trimmed();
  s.parameters = m_params->value() * 1e9;
  return s;
}

void ModelSourceEditor::setSource(const ModelSource& s) {
  const bool old = m_updating;
  m_updating = true;
  const int kind = m_kind->findData(int(s.kind));
  m_kind->setCurrentIndex(kind >= 0 ? kind : 0);
  m_pages->setCurrentIndex(m_kind->currentIndex());
  if (s.kind == ModelSource::Kind::Builtin) {
    m_builtinName->setCurrentText(QString::fromStdString(s.builtin.name));
    showBuiltinDimensions(s.builtin);
  }
  if (s.kind == ModelSource::Kind::Dimensions) {
    const int preset = m_dimsPreset->findText(s.dimsName);
    m_dimsPreset->setCurrentIndex(preset >= 0 ? preset : m_dimsPreset->count() - 1);
    showDimensions(s.dims);
  }
  if (s.kind == ModelSource::Kind::HfConfig) {
    m_hfPath->setText(s.hfConfigPath);
  }
  if (s.kind == ModelSource::Kind::Parameters && s.parameters > 0) {
    m_params->setValue(s.parameters / 1e9);
  }
  m_updating = old;
}

}  // namespace fathom::views
