// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/bigmodel/device_key.h>

#include <QColor>
#include <QString>

namespace fathom::views {

/// How the Studio shows a device of a device map (the devices themselves are core's, bigmodel/device_key.h).
/// Translated name: "GPU 0", "CPU", "Disk", "MPS".
QString deviceLabel(const bigmodel::DeviceKey& device);
/// A colour per device: GPUs from the Okabe–Ito palette (distinguishable for the common colour-vision deficiencies;
/// repeating past seven GPUs), CPU grey-blue, disk brown.
QColor deviceColor(const bigmodel::DeviceKey& device);
/// deviceColor() lightened for a row's background, where text must stay readable.
QColor deviceTint(const bigmodel::DeviceKey& device);

}  // namespace fathom::views
