// SPDX-License-Identifier: Apache-2.0
#include "calibrated_rates.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

namespace fathom::plan::detail {
namespace {

double distance(RankSetting a, RankSetting b) {
  return std::abs(std::log(static_cast<double>(a.processes) / b.processes)) +
         std::abs(std::log(static_cast<double>(a.threads) / b.threads));
}

/// The measured setting nearest to `wanted` among the rows of `rows` (each with processes and threads).
template <typename Row> RankSetting nearestSetting(const std::vector<Row>& rows, RankSetting wanted) {
  RankSetting best = wanted;
  double bestDistance = std::numeric_limits<double>::infinity();
  for (const Row& r : rows) {
    const RankSetting s{r.processes, r.threads};
    const double d = distance(s, wanted);
    if (d < bestDistance) {
      bestDistance = d;
      best = s;
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
    : m_calibration(calibration), m_setting(setting), m_matmulSetting(nearestSetting(calibration.matmul, setting)) {}

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
  const RankSetting s = nearestSetting(m_calibration.elementwise, m_setting);
  for (const ElementwiseRate& r : m_calibration.elementwise) {
    if (r.processes == s.processes && r.threads == s.threads) {
      return r.secondsPerElement / speedup(s);
    }
  }
  return 0.0;
}

double CalibratedRates::secondsPerCall() const {
  const RankSetting s = nearestSetting(m_calibration.elementwise, m_setting);
  for (const ElementwiseRate& r : m_calibration.elementwise) {
    if (r.processes == s.processes && r.threads == s.threads) {
      return r.secondsPerCall / speedup(s);
    }
  }
  return 0.0;
}

double CalibratedRates::secondsPerParameter(std::string_view optimizer) const {
  // Adam differs from AdamW by where the decay goes (same passes); SGD with momentum is nearer SGD's few passes.
  const std::string_view name =
      optimizer == "adam" || optimizer == "adamw" || optimizer == "adafactor" ? "adamw" : "sgd";
  std::vector<OptimizerRate> rows;
  for (const OptimizerRate& r : m_calibration.optimizer) {
    if (r.name == name) {
      rows.push_back(r);
    }
  }
  const RankSetting s = nearestSetting(rows, m_setting);
  for (const OptimizerRate& r : rows) {
    if (r.processes == s.processes && r.threads == s.threads) {
      return r.secondsPerParameter / speedup(s);
    }
  }
  return 0.0;
}

}  // namespace fathom::plan::detail
