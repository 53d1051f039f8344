// SPDX-License-Identifier: Apache-2.0
// The state behind runtime::AsyncWork, shared by process_group.cpp (which fills it) and async_work.cpp.
#pragma once

#include <fathom/runtime/async_work.h>

#include "runtime/torch_compat.h"

#include <ATen/core/Tensor.h>

#include <functional>
#include <string>
#include <vector>

namespace fathom::runtime {

struct AsyncWork::Impl {
  c10::intrusive_ptr<c10d::Work> work;
  at::Tensor tensor;         ///< the result tensor, for post-processing
  std::int64_t divisor = 1;  ///< > 1: divide `tensor` by it after the wait (ReduceOp::Avg on a SUM-only backend)
  std::string where;         ///< "rank 1/2 (gloo, store 127.0.0.1:29500)", for error messages
  const char* what = "";     ///< the operation, e.g. "all_reduce"
  /// Runs after a successful wait (and the division): moves the result from a backend-side buffer into the
  /// caller's tensor (all_gather into a temporary, reduce_scatter emulated by all_reduce + slice). May be empty.
  std::function<void()> complete;
  /// Tensors the backend reads or writes until the wait (a contiguous copy of the input, a temporary): held
  /// here so they outlive the call whatever the caller keeps.
  std::vector<at::Tensor> keepAlive;
};

}  // namespace fathom::runtime
