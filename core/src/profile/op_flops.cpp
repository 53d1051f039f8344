// SPDX-License-Identifier: Apache-2.0
#include "profile/op_flops.h"

#include <algorithm>
#include <functional>
#include <numeric>

namespace fathom::profile::detail {

namespace {

double product(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), 1.0, std::multiplies<>());
}

/// Elements of the broadcast of two shapes (element-wise ops), or -1 when they do not broadcast.
double broadcastElements(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.size(), b.size());
  double n = 1;
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return -1;
    n *= static_cast<double>(std::max(da, db));
  }
  return n;
}

double matmul2d(const Shape& a, const Shape& b) {
  if (a.size() != 2 || b.size() != 2 || a[1] != b[0])
    return -1;
  return 2.0 * static_cast<double>(a[0]) * static_cast<double>(a[1]) * static_cast<double>(b[1]);
}

double batchedMatmul(const Shape& a, const Shape& b) {
  if (a.size() != 3 || b.size() != 3 || a[0] != b[0] || a[2] != b[1])
    return -1;
  return 2.0 * static_cast<double>(a[0]) * static_cast<double>(a[1]) * static_cast<double>(a[2]) *
         static_cast<double>(b[2]);
}

}  // namespace

double estimateFlops(std::string_view op, const std::vector<Shape>& shapes) {
  auto input = [&](std::size_t i) -> const Shape* { return i < shapes.size() ? &shapes[i] : nullptr; };
  if (op == "aten::mm" && input(1))
    return matmul2d(*input(0), *input(1));
  if (op == "aten::addmm" && input(2))  // (bias, a, b); the bias add is not counted, as in torch
    return matmul2d(*input(1), *input(2));
  if (op == "aten::bmm" && input(1))
    return batchedMatmul(*input(0), *input(1));
  if (op == "aten::baddbmm" && input(2))
    return batchedMatmul(*input(1), *input(2));
  if ((op == "aten::mul" || op == "aten::add" || op == "aten::sub" || op == "aten::div" || op == "aten::mul_" ||
       op == "aten::add_") &&
      input(0) != nullptr) {
    // A scalar second operand has an empty shape, which broadcasts like one element.
    return input(1) != nullptr ? broadcastElements(*input(0), *input(1)) : product(*input(0));
  }
  return -1;
}

}  // namespace fathom::profile::detail
