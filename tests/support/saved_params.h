// SPDX-License-Identifier: Apache-2.0
// The parameters a `fathom train --save_final FILE` run wrote, and how far two such sets are apart: what the CLI
// training tests compare (tst_train_cli, tst_train_checkpoint_cli).
#pragma once

#include <fathom/io/safetensors.h>

#include <ATen/ATen.h>
#include <QString>

#include <algorithm>
#include <limits>
#include <map>
#include <string>

namespace fathom::test {

/// Parameters by name.
using Params = std::map<std::string, at::Tensor>;

/// Every tensor of the safetensors file `file`, by name.
inline Params readParams(const QString& file) {
  Params params;
  for (auto& [key, value] : fathom::io::readSafetensors(file.toStdString()).tensors)
    params[key] = value;
  return params;
}

/// Largest absolute difference over every parameter; +inf when the names or shapes differ, or `a` is empty.
inline double maxAbsDiff(const Params& a, const Params& b) {
  if (a.size() != b.size() || a.empty())
    return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (const auto& [key, value] : a) {
    auto it = b.find(key);
    if (it == b.end() || it->second.sizes() != value.sizes())
      return std::numeric_limits<double>::infinity();
    worst = std::max(worst, (value - it->second).abs().max().item<double>());
  }
  return worst;
}

}  // namespace fathom::test
