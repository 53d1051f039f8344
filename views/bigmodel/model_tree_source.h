// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/bigmodel/module_tree.h>

#include <QString>

#include <memory>
#include <string>
#include <vector>

namespace fathom::views {

/// A model opened in the device-map view: its module tree (core's description of the modules, without weights), what
/// to call it, and the classes kept whole unless the user says otherwise.
struct LoadedModelTree {
  std::shared_ptr<const bigmodel::ModuleTree> tree;  ///< null when it could not be opened (see error)
  QString name;                                      ///< "gpt-small", "llama-7b.json"
  QString path;                                      ///< the file it came from; empty for a built-in model
  /// The no-split classes it proposes: a built-in model's repeated block (`fathom device-map --model`'s default).
  std::vector<std::string> noSplitClasses;
  QString error;  ///< why it could not be opened, naming the model or file; empty on success

  bool ok() const { return tree != nullptr; }
};

/// The built-in models the view offers (core's list, models/builtin_model.h, less `gpt`: gpt-tiny's shape, whose
/// dimensions this view does not edit).
QStringList deviceMapBuiltinModels();

/// A built-in model's tree (builtinModuleTree: the LibTorch module built on the CPU and read; tens of milliseconds for
/// gpt-small), its repeated block kept whole.
LoadedModelTree loadBuiltinModelTree(const QString& name);

/// The one place a model file becomes a module tree, told apart by name and content: a `.safetensors` checkpoint or a
/// sharded index (`weight_map`: bigmodel::readCheckpointModel, headers only, matched to a config.json beside it), a
/// Hugging Face config.json (`model_type`: moduleTreeFromHfConfig), else a module tree in JSON (moduleTreeFromJson,
/// the form `fathom device-map --print_tree` writes). A Hugging Face family's decoder block is proposed as no-split.
/// The error names the file and says what is wrong with it.
LoadedModelTree loadModelTreeFile(const QString& path);

/// The file dialog's filter for loadModelTreeFile: JSON files and safetensors checkpoints.
QString deviceMapModelFileFilter();

}  // namespace fathom::views
