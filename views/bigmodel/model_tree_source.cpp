// SPDX-License-Identifier: Apache-2.0
#include "bigmodel/model_tree_source.h"

#include "common/builtin_model.h"

#include <fathom/bigmodel/checkpoint_module_tree.h>
#include <fathom/bigmodel/hf_module_tree.h>
#include <fathom/bigmodel/module_tree_json.h>
#include <fathom/common/error.h>
#include <fathom/plan/hf_config.h>

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>

#include <filesystem>

using namespace Qt::StringLiterals;

namespace fathom::views {
namespace {

struct SourceText {
  Q_DECLARE_TR_FUNCTIONS(ModelTreeSource)
};

LoadedModelTree failed(const QString& name, const QString& path, const QString& error) {
  LoadedModelTree out;
  out.name = name;
  out.path = path;
  out.error = error;
  return out;
}

}  // namespace

QStringList deviceMapBuiltinModels() {
  QStringList names;
  for (const models::BuiltinModelInfo& m : models::builtinModels()) {
    if (m.name != "gpt") {
      names << QString::fromLatin1(m.name.data(), qsizetype(m.name.size()));
    }
  }
  return names;
}

LoadedModelTree loadBuiltinModelTree(const QString& name) {
  try {
    models::ModelRequest request;
    request.name = name.toStdString();
    BuiltinModuleTree built = builtinModuleTree(request);
    LoadedModelTree out;
    out.tree = std::make_shared<const bigmodel::ModuleTree>(std::move(built.tree));
    out.name = name;
    out.noSplitClasses = {built.repeatedBlock};
    return out;
  } catch (const Error& e) {
    return failed(name, {}, SourceText::tr("Cannot build %1: %2").arg(name, QString::fromStdString(e.what())));
  }
}

LoadedModelTree loadModelTreeFile(const QString& path) {
  const QString name = QFileInfo(path).fileName();
  const std::filesystem::path file = path.toStdString();
  // A safetensors checkpoint: one file, or (below) its index; its headers only, matched to a config.json beside it.
  const auto checkpoint = [&]() -> LoadedModelTree {
    try {
      bigmodel::CheckpointModel m = bigmodel::readCheckpointModel(file);
      const bigmodel::HfFamily* family = m.config ? bigmodel::hfFamily(m.config->modelType) : nullptr;
      LoadedModelTree out;
      out.tree = std::make_shared<const bigmodel::ModuleTree>(std::move(m.tree));
      out.name = name;
      out.path = path;
      if (family != nullptr) {
        out.noSplitClasses = {std::string(family->noSplit)};
      }
      return out;
    } catch (const Error& e) {
      return failed(name, path,
                    SourceText::tr("%1 is not a readable checkpoint: %2").arg(path, QString::fromStdString(e.what())));
    }
  };
  if (path.endsWith(u".safetensors"_s)) {
    return checkpoint();
  }
  QFile input(path);
  if (!input.open(QIODevice::ReadOnly)) {
    return failed(name, path, SourceText::tr("Cannot read %1: %2").arg(path, input.errorString()));
  }
  const QByteArray bytes = input.readAll();
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::exception& e) {
    return failed(name, path, SourceText::tr("%1 is not JSON: %2").arg(path, QString::fromStdString(e.what())));
  }
  // JSON files are told apart by their keys: a sharded checkpoint's index has "weight_map", a Hugging Face config
  // "model_type"; anything else is read as a module tree.
  if (json.is_object() && json.contains("weight_map")) {
    return checkpoint();
  }
  if (json.is_object() && json.contains("model_type")) {
    try {
      const plan::HfConfig config = plan::readHfConfig(file);
      LoadedModelTree out;
      out.tree = std::make_shared<const bigmodel::ModuleTree>(bigmodel::moduleTreeFromHfConfig(config));
      out.name = name;
      out.path = path;
      out.noSplitClasses = {std::string(bigmodel::hfFamily(config.modelType)->noSplit)};
      return out;
    } catch (const Error& e) {
      return failed(name, path,
                    SourceText::tr("%1 is not a model config this view can build: %2")
                        .arg(path, QString::fromStdString(e.what())));
    }
  }
  try {
    LoadedModelTree out;
    out.tree = std::make_shared<const bigmodel::ModuleTree>(bigmodel::moduleTreeFromJson(json));
    out.name = name;
    out.path = path;
    return out;
  } catch (const Error& e) {
    return failed(name, path,
                  SourceText::tr("%1 is not a module tree: %2").arg(path, QString::fromStdString(e.what())));
  } catch (const nlohmann::json::exception& e) {
    return failed(name, path,
                  SourceText::tr("%1 is not a module tree: %2").arg(path, QString::fromStdString(e.what())));
  }
}

QString deviceMapModelFileFilter() {
  return SourceText::tr("Models (*.json *.safetensors)");
}

}  // namespace fathom::views
