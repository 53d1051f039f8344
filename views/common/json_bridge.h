// SPDX-License-Identifier: Apache-2.0
// Core writes and reads its values' JSON with nlohmann::json (plan_json.h, prediction_json.h, builtin_model.h); the
// Studio's models and settings hold QJsonObjects. These convert at that boundary, through the JSON text, so what
// crosses is exactly what core wrote.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <QJsonObject>

namespace fathom::views {

/// The object `json` as a QJsonObject (empty when `json` is not an object).
QJsonObject toQJson(const nlohmann::ordered_json& json);
/// The QJsonObject as nlohmann::json.
nlohmann::json fromQJson(const QJsonObject& json);

}  // namespace fathom::views
