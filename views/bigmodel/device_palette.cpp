// SPDX-License-Identifier: Apache-2.0
#include "bigmodel/device_palette.h"

#include <QCoreApplication>

#include <array>

namespace fathom::views {
namespace {

struct DeviceText {
  Q_DECLARE_TR_FUNCTIONS(DeviceMap)
};

}  // namespace

QString deviceLabel(const bigmodel::DeviceKey& device) {
  switch (device.kind()) {
  case bigmodel::DeviceKey::Kind::Gpu: return DeviceText::tr("GPU %1").arg(device.index());
  case bigmodel::DeviceKey::Kind::Mps: return DeviceText::tr("MPS");
  case bigmodel::DeviceKey::Kind::Cpu: return DeviceText::tr("CPU");
  case bigmodel::DeviceKey::Kind::Disk: return DeviceText::tr("Disk");
  }
  return QString::fromStdString(device.toString());
}

QColor deviceColor(const bigmodel::DeviceKey& device) {
  // Okabe–Ito without its black and its grey-ish yellow: blue, orange, bluish green, sky blue, vermillion, reddish
  // purple, yellow.
  static constexpr std::array<QRgb, 7> kGpu{0x0072b2, 0xe69f00, 0x009e73, 0x56b4e9, 0xd55e00, 0xcc79a7, 0xf0e442};
  switch (device.kind()) {
  case bigmodel::DeviceKey::Kind::Gpu:
    return QColor::fromRgb(kGpu[static_cast<std::size_t>(device.index()) % kGpu.size()]);
  case bigmodel::DeviceKey::Kind::Mps: return QColor::fromRgb(0x332288);
  case bigmodel::DeviceKey::Kind::Cpu: return QColor::fromRgb(0x7f8c9a);
  case bigmodel::DeviceKey::Kind::Disk: return QColor::fromRgb(0x8c6d46);
  }
  return Qt::gray;
}

QColor deviceTint(const bigmodel::DeviceKey& device) {
  const QColor c = deviceColor(device);
  // 28 % of the colour over white: the hue is plain, black text keeps its contrast.
  constexpr double kShare = 0.28;
  return QColor::fromRgbF(float(1 - kShare + kShare * c.redF()), float(1 - kShare + kShare * c.greenF()),
                          float(1 - kShare + kShare * c.blueF()));
}

}  // namespace fathom::views
