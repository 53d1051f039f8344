// SPDX-License-Identifier: Apache-2.0
// The `calibration:` section of a hardware file, read and written with yaml-cpp (hardware.cpp's two halves).
#pragma once

#include <fathom/plan/hardware_calibration.h>

#include <yaml-cpp/yaml.h>

#include <string>

namespace fathom::plan::calibration_yaml {

/// Reads and checks every key of a `calibration:` map; ConfigError "<origin>: 'calibration.<key>' ..." on a bad one.
HardwareCalibration parseCalibration(const YAML::Node& node, const std::string& origin);

/// Writes `calibration` as the value of a `calibration:` key (the emitter is inside the profile's map).
void emitCalibration(YAML::Emitter& out, const HardwareCalibration& calibration);

}  // namespace fathom::plan::calibration_yaml
