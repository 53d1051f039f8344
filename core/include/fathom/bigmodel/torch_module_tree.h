// SPDX-License-Identifier: Apache-2.0
// The module tree of a live LibTorch module, for planning a device map for it and for dispatching it.
#pragma once

#include <fathom/bigmodel/dtype.h>
#include <fathom/bigmodel/module_tree.h>

#include <c10/core/ScalarType.h>
#include <torch/nn/module.h>

namespace fathom::bigmodel {

/// The tree of `model` as Accelerate reads an nn.Module: its modules in pre-order (named_modules(), the root ""),
/// each one's class as torch::nn::Module::name() ("GptBlock", "torch::nn::LinearImpl"), its children, and its own
/// parameters and buffers (recurse = false) with shape and dtype. A tensor registered in several places (tied) has one
/// tensor id there (the same TensorImpl); LibTorch buffers are all persistent. Reads no tensor data. ConfigError for a
/// tensor of a dtype the tree cannot hold (dtypeOf).
ModuleTree moduleTreeOf(const torch::nn::Module& model);

/// The bigmodel dtype of a LibTorch scalar type. ConfigError naming the type for one the planning has no size for
/// (quantized and bit-packed types).
Dtype dtypeOf(c10::ScalarType type);

}  // namespace fathom::bigmodel
