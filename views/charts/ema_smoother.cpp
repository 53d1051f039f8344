// SPDX-License-Identifier: Apache-2.0
#include "charts/ema_smoother.h"

#include <cmath>

namespace fathom::views {

double EmaSmoother::add(double y) {
  if (!m_any) {
    m_any = true;
    m_first = y;
  } else if (y != m_first) {
    m_constant = false;
  }
  if (!std::isfinite(y)) {
    return y;
  }
  m_last = m_last * m_weight + (1 - m_weight) * y;
  m_debias *= m_weight;
  if (m_constant) {
    return y;
  }
  return m_weight == 1 ? m_last : m_last / (1 - m_debias);
}

std::vector<double> EmaSmoother::smooth(const std::vector<double>& values, double weight) {
  bool constant = true;
  for (const double v : values) {
    constant = constant && v == values.front();
  }
  std::vector<double> out;
  out.reserve(values.size());
  double last = 0;
  int accumulated = 0;
  for (const double v : values) {
    if (constant || !std::isfinite(v)) {
      out.push_back(v);
      continue;
    }
    last = last * weight + (1 - weight) * v;
    ++accumulated;
    out.push_back(weight == 1 ? last : last / (1 - std::pow(weight, accumulated)));
  }
  return out;
}

}  // namespace fathom::views
