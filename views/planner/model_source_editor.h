// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "planner/plan_request.h"

#include <QWidget>

#include <map>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;
class QStackedWidget;

namespace fathom::views {

/// Edits a ModelSource: a built-in model with its dimensions, transformer dimensions (with well-known presets),
/// a Hugging Face config.json, or a bare parameter count. Emits changed() on every edit.
class ModelSourceEditor : public QWidget {
  Q_OBJECT

public:
  /// Which sources the editor offers: all four (the what-if view), only the built-in models (the wizard's
  /// `fathom train` choice), or the three that describe a user's own model (the wizard's user-program choice).
  enum class Sources { All, BuiltinOnly, External };

  explicit ModelSourceEditor(Sources sources, QWidget* parent = nullptr);

  ModelSource source() const;
  void setSource(const ModelSource& source);

  /// Well-known dimensions offered as presets: Llama 2 7B/70B, Llama 3 8B, Mistral 7B, GPT-2, GPT-2 XL, BERT base.
  static QList<ModelSource> dimensionPresets();

signals:
  void changed();

private:
  void buildBuiltinPage(QWidget* page);
  void buildDimensionsPage(QWidget* page);
  /// Shows `model`'s dimensions (the preset's where it sets none) and the fields of its family.
  void showBuiltinDimensions(const models::ModelRequest& model);
  /// Shows `dims` in the dimension fields (the caller sets m_updating).
  void showDimensions(const plan::TransformerDims& dims);
  void applyDimensionPreset(int index);
  void emitChanged();

  Sources m_sources;
  bool m_updating = false;
  QComboBox* m_kind = nullptr;
  QStackedWidget* m_pages = nullptr;
  // built-in: one field per dimension of core's description (models::modelDimensions()), grouped by family
  struct DimensionField {
    models::ModelDimension dimension;
    QSpinBox* count = nullptr;           ///< integral dimensions
    QDoubleSpinBox* fraction = nullptr;  ///< fractions (dropout)
  };
  QComboBox* m_builtinName = nullptr;
  std::vector<DimensionField> m_dimensionFields;
  std::map<models::ModelFamily, QWidget*> m_familyFields;
  // dimensions
  QComboBox* m_dimsPreset = nullptr;
  QComboBox* m_arch = nullptr;
  QSpinBox* m_dimLayers = nullptr;
  QSpinBox* m_dimHidden = nullptr;
  QSpinBox* m_dimHeads = nullptr;
  QSpinBox* m_dimKvHeads = nullptr;
  QSpinBox* m_dimFfn = nullptr;
  QSpinBox* m_dimVocab = nullptr;
  QSpinBox* m_dimPositions = nullptr;
  QCheckBox* m_dimTied = nullptr;
  // config.json, parameter count
  QLineEdit* m_hfPath = nullptr;
  QDoubleSpinBox* m_params = nullptr;
};

}  // namespace fathom::views
