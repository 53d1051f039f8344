// SPDX-License-Identifier: Apache-2.0
#include "common/json_bridge.h"

#include <nlohmann/json.hpp>

#include <QJsonDocument>

namespace fathom::views {

QJsonObject toQJson(const nlohmann::ordered_json& json) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(json.dump())).object();
}

nlohmann::json fromQJson(const QJsonObject& json) {
  return nlohmann::json::parse(QJsonDocument(json).toJson(QJsonDocument::Compact).toStdString());
}

}  // namespace fathom::views
