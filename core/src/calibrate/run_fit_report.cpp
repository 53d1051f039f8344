// SPDX-License-Identifier: Apache-2.0
#include <fathom/calibrate/run_fit_report.h>

#include <fathom/common/error.h>
#include <fathom/common/json_input.h>

#include <nlohmann/json.hpp>

namespace fathom::calibrate {
namespace {

/// Reads the members of one JSON object, naming `origin` and the key in every error.
class Fields {
public:
  Fields(const nlohmann::json& object, std::string origin) : m_object(object), m_origin(std::move(origin)) {
    FATHOM_CHECK(object.is_object(), ConfigError, m_origin, ": expected a JSON object, got ", quotedJson(object));
  }

  const nlohmann::json& at(const char* key) const {
    const auto it = m_object.find(key);
    FATHOM_CHECK(it != m_object.end(), ConfigError, m_origin, ": '", key, "' is missing");
    return *it;
  }
  double number(const char* key) const {
    const nlohmann::json& v = at(key);
    FATHOM_CHECK(v.is_number(), ConfigError, m_origin, ": '", key, "' must be a number, got ", quotedJson(v));
    return v.get<double>();
  }
  template <typename T> T whole(const char* key) const {
    const std::optional<T> v = jsonInteger<T>(at(key));
    FATHOM_CHECK(v.has_value(), ConfigError, m_origin, ": '", key, "' must be a whole number, got ",
                 quotedJson(at(key)));
    return *v;
  }
  std::string text(const char* key) const {
    const nlohmann::json& v = at(key);
    FATHOM_CHECK(v.is_string(), ConfigError, m_origin, ": '", key, "' must be a string, got ", quotedJson(v));
    return v.get<std::string>();
  }
  std::string path(const std::string& key) const { return m_origin + "." + key; }

private:
  const nlohmann::json& m_object;
  std::string m_origin;
};

}  // namespace

RunFitReport makeRunFitReport(const RunFitResult& fit, std::int64_t fitId, const std::string& workspace) {
  const plan::HardwareCalibration& cal = *fit.fitted.calibration;
  RunFitReport r;
  r.run = cal.runFit->run;
  r.runName = cal.runFit->runName;
  r.fitId = fitId;
  r.workspace = workspace;
  r.hardware = fit.fitted.name;
  r.measuredAt = cal.measuredAt;
  r.host = cal.host;
  r.traces = cal.runFit->ranks;
  r.steps = cal.runFit->steps;
  r.classes = fit.classes;
  r.measuredStepS = fit.measuredStepS;
  r.calibratedStepS = fit.predictedStepS;
  r.fittedStepS = fit.fittedStepS;
  return r;
}

nlohmann::ordered_json toJson(const RunFitReport& r) {
  nlohmann::ordered_json out;
  out["run"] = r.run;
  out["run_name"] = r.runName;
  out["fit_id"] = r.fitId;
  out["workspace"] = r.workspace;
  out["hardware"] = {{"name", r.hardware}, {"measured_at", r.measuredAt}, {"host", r.host}};
  out["traces"] = r.traces;
  out["steps"] = r.steps;
  nlohmann::ordered_json classes = nlohmann::ordered_json::array();
  for (const FittedClass& c : r.classes) {
    classes.push_back(
        {{"name", c.name}, {"measured_s", c.measuredS}, {"predicted_s", c.predictedS}, {"factor", c.factor}});
  }
  out["classes"] = std::move(classes);
  out["step_s"] = {{"measured", r.measuredStepS}, {"calibrated", r.calibratedStepS}, {"fitted", r.fittedStepS}};
  return out;
}

RunFitReport runFitReportFromJson(const nlohmann::json& json, const std::string& origin) {
  const Fields f(json, origin);
  RunFitReport r;
  r.run = f.whole<std::int64_t>("run");
  r.runName = f.text("run_name");
  r.fitId = f.whole<std::int64_t>("fit_id");
  r.workspace = f.text("workspace");
  const Fields hw(f.at("hardware"), f.path("hardware"));
  r.hardware = hw.text("name");
  r.measuredAt = hw.text("measured_at");
  r.host = hw.text("host");
  r.traces = f.whole<int>("traces");
  r.steps = f.whole<int>("steps");
  const nlohmann::json& classes = f.at("classes");
  FATHOM_CHECK(classes.is_array(), ConfigError, f.path("classes"), ": must be an array, got ", quotedJson(classes));
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const Fields c(classes[i], f.path("classes[" + std::to_string(i) + "]"));
    r.classes.push_back({c.text("name"), c.number("measured_s"), c.number("predicted_s"), c.number("factor")});
  }
  const Fields step(f.at("step_s"), f.path("step_s"));
  r.measuredStepS = step.number("measured");
  r.calibratedStepS = step.number("calibrated");
  r.fittedStepS = step.number("fitted");
  return r;
}

}  // namespace fathom::calibrate
