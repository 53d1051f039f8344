// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

namespace fathom::views {

/// TensorBoard's scalar smoothing (tensorboard/webapp/widgets/line_chart_v2/lib/data_transformer.ts,
/// classicSmoothing), one point at a time: an exponential moving average debiased like Adam's moments:
///   last = last * w + (1 - w) * y;  n += 1;  smoothed = last / (1 - w^n)   (w = 1: no debiasing)
/// A non-finite y passes through unchanged and does not advance the average; a series whose values are all equal
/// is left as it is (TensorBoard's isConstant), which add() keeps until a different value arrives.
class EmaSmoother {
public:
  explicit EmaSmoother(double weight = 0) : m_weight(weight) {}

  double weight() const { return m_weight; }
  /// The smoothed value of the next point.
  double add(double y);

  /// The whole series at once (what TensorBoard computes for a finished series).
  static std::vector<double> smooth(const std::vector<double>& values, double weight);

private:
  double m_weight = 0;
  double m_last = 0;
  double m_debias = 1;  ///< w^n, kept as a product rather than pow() per point
  bool m_constant = true;
  bool m_any = false;
  double m_first = 0;
};

}  // namespace fathom::views
