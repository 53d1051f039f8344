// SPDX-License-Identifier: Apache-2.0
// collate(): torch.utils.data.default_collate for Examples of two tensors, with the shape and dtype checks done
// up front so the error names the example that differs instead of surfacing as an at::stack failure.
#include "fathom/data/dataset.h"

#include "fathom/common/error.h"

#include <ATen/ATen.h>

#include <cstddef>

namespace fathom::data {
namespace {

// Checks that `t` (field `field` of example `index`) matches example 0's tensor `first`.
void checkLike(const at::Tensor& t, const at::Tensor& first, std::size_t index, const char* field) {
  FATHOM_CHECK(t.defined(), ConfigError, "collate: example ", index, " has an undefined ", field);
  FATHOM_CHECK(t.sizes() == first.sizes(), ConfigError, "collate: example ", index, " ", field, " has shape ",
               t.sizes(), " but example 0 has ", first.sizes());
  FATHOM_CHECK(t.scalar_type() == first.scalar_type(), ConfigError, "collate: example ", index, " ", field,
               " has dtype ", t.scalar_type(), " but example 0 has ", first.scalar_type());
  FATHOM_CHECK(t.device() == first.device(), ConfigError, "collate: example ", index, " ", field, " is on ", t.device(),
               " but example 0 is on ", first.device());
}

}  // namespace

Batch collate(const std::vector<Example>& examples, std::vector<std::int64_t> indices) {
  FATHOM_CHECK(!examples.empty(), ConfigError, "collate: cannot collate an empty list of examples");
  FATHOM_CHECK(indices.empty() || indices.size() == examples.size(), ConfigError, "collate: got ", indices.size(),
               " indices for ", examples.size(), " examples (pass none or one per example)");
  const Example& first = examples.front();
  FATHOM_CHECK(first.input.defined(), ConfigError, "collate: example 0 has an undefined input");
  FATHOM_CHECK(first.target.defined(), ConfigError, "collate: example 0 has an undefined target");

  std::vector<at::Tensor> inputs;
  std::vector<at::Tensor> targets;
  inputs.reserve(examples.size());
  targets.reserve(examples.size());
  for (std::size_t i = 0; i < examples.size(); ++i) {
    checkLike(examples[i].input, first.input, i, "input");
    checkLike(examples[i].target, first.target, i, "target");
    inputs.push_back(examples[i].input);
    targets.push_back(examples[i].target);
  }
  // at::stack copies, so the batch never aliases a dataset's storage.
  return Batch{at::stack(inputs), at::stack(targets), std::move(indices)};
}

Batch Dataset::getBatch(const std::vector<std::int64_t>& indices) const {
  std::vector<Example> examples;
  examples.reserve(indices.size());
  for (std::int64_t i : indices)
    examples.push_back(get(i));
  return collate(examples, indices);
}

}  // namespace fathom::data
