// SPDX-License-Identifier: Apache-2.0
#include "calibrated_rates.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <vector>

namespace fathom::plan::detail {
namespace {

double distance(RankSetting a, RankSetting b) {
  return std::abs(std::log(static_cast<double>(a.processes) / b.processes)) +
         std::abs(std::log(static_cast<double>(a.threads) / b.threads));
}

/// The row of `rows` (each with processes and threads) measured at the setting nearest `wanted` (the first such), or
/// nullptr when there is none.
template <typename Row> const Row* nearestRow(const std::vector<Row>& rows, RankSetting wanted) {
  const Row* best = nullptr;
  double bestDistance = std::numeric_limits<double>::infinity();
  for (const Row& r : rows) {
    const double d = distance({r.processes, r.threads}, wanted);
    if (d < bestDistance) {
      bestDistance = d;
      best = &r;
    }
  }
  return best;
}

/// The fraction of a core each of P processes with T threads gets from `cores` cores (1 when they fit).
double coreShare(RankSetting s, int cores) {
  return std::min(1.0, static_cast<double>(std::max(cores, 1)) / (static_cast<double>(s.processes) * s.threads));
}

}  // namespace

CalibratedRates::CalibratedRates(const HardwareCalibration& calibration, RankSetting setting)
    : m_calibration(calibration), m_setting(setting) {
  if (const MatmulRate* r = nearestRow(calibration.matmul, setting)) {
    m_matmulSetting = {r->processes, r->threads};
  }
}

double CalibratedRates::speedup(RankSetting from) const {
  return coreShare(m_setting, m_calibration.cpuCores) / coreShare(from, m_calibration.cpuCores);
}

double CalibratedRates::matmulFlops(std::string_view dtype, MatmulLayout layout, double k) const {
  auto rows = [&](std::string_view d, MatmulLayout l) {
    std::map<std::int64_t, double> byK;  // the best rate at each inner dimension
    for (const MatmulRate& r : m_calibration.matmul) {
      if (r.dtype == d && r.layout == l && r.processes == m_matmulSetting.processes &&
          r.threads == m_matmulSetting.threads) {
        byK[r.k] = std::max(byK[r.k], r.flops);
      }
    }
    return byK;
  };
  std::map<std::int64_t, double> byK = rows(dtype, layout);
  if (byK.empty() && layout != MatmulLayout::NN) {
    byK = rows(dtype, MatmulLayout::NN);
  }
  if (byK.empty() && (dtype == "fp16" || dtype == "fp8")) {
    return matmulFlops("bf16", layout, k);
  }
  if (byK.empty()) {
    return 0.0;
  }
  double rate = 0.0;
  const auto above = byK.lower_bound(static_cast<std::int64_t>(std::ceil(k)));
  if (above == byK.begin()) {
    rate = above->second;
  } else if (above == byK.end()) {
    rate = std::prev(above)->second;
  } else {
    const auto below = std::prev(above);
    const double x0 = std::log(static_cast<double>(below->first));
    const double x1 = std::log(static_cast<double>(above->first));
    const double t = x1 > x0 ? (std::log(k) - x0) / (x1 - x0) : 0.0;
    rate = below->second + std::clamp(t, 0.0, 1.0) * (above->second - below->second);
  }
  return rate * speedup(m_matmulSetting);
}

double CalibratedRates::secondsPerElement() const {
  const ElementwiseRate* r = nearestRow(m_calibration.elementwise, m_setting);
  return r != nullptr ? r->secondsPerElement / speedup({r->processes, r->threads}) : 0.0;
}

double CalibratedRates::secondsPerCall() const {
  const ElementwiseRate* r = nearestRow(m_calibration.elementwise, m_setting);
  return r != nullptr ? r->secondsPerCall / speedup({r->processes, r->threads}) : 0.0;
}

double CalibratedRates::secondsPerParameter(std::string_view optimizer) const {
  // Adam differs from AdamW by where the decay goes (same passes); SGD with momentum is nearer SGD's few passes.
  const std::string_view name =
      optimizer == "adam" || optimizer == "adamw" || optimizer == "adafactor" ? "adamw" : "sgd";
  std::vector<OptimizerRate> rows;
  std::copy_if(m_calibration.optimizer.begin(), m_calibration.optimizer.end(), std::back_inserter(rows),
               [&](const OptimizerRate& r) { return r.name == name; });
  const OptimizerRate* r = nearestRow(rows, m_setting);
  return r != nullptr ? r->secondsPerParameter / speedup({r->processes, r->threads}) : 0.0;
}

}  // namespace fathom::plan::detail
