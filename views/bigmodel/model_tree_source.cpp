// SPDX-License-Identifier: Apache-2.0
#include "bigmodel/model_tree_source.h"

#include "common/builtin_model.h"

#include <fathom/bigmodel/module_tree_json.h>
#include <fathom/common/error.h>

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>

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
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    return failed(name, path, SourceText::tr("Cannot read %1: %2").arg(path, file.errorString()));
  }
  const QByteArray bytes = file.readAll();
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::exception& e) {
    return failed(name, path, SourceText::tr("%1 is not JSON: %2").arg(path, QString::fromStdString(e.what())));
  }
  // Hugging Face config.json files and safetensors indexes are JSON too: they are told apart here, by their keys,
  // when their readers plug in.
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
  return SourceText::tr("Module tree (*.json)");
}

}  // namespace fathom::views
