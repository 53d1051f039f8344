// SPDX-License-Identifier: Apache-2.0
// The tensor dtypes a module tree names and what one element of each costs, as Accelerate counts it
// (accelerate/utils/modeling.py dtype_byte_size): the bit width in the dtype's name divided by 8, bool 1/8 byte, the
// CustomDtype values int4 1/2 and int2 1/4. Defined once here: every size in core/bigmodel comes from this table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::bigmodel {

/// Bytes, as Accelerate counts them. A double, not an integer: bool (1/8), int4 (1/2) and int2 (1/4) make sizes
/// fractional, and Accelerate then computes in Python floats. Every multiple of 1/8 below 2^50 bytes is exact in a
/// double, so sums and comparisons give Accelerate's results exactly for any real model.
using ByteCount = double;

enum class Dtype {
  Float64,
  Float32,
  Float16,
  BFloat16,
  Complex128,
  Complex64,
  Complex32,
  Int64,
  Int32,
  Int16,
  Int8,
  UInt64,
  UInt32,
  UInt16,
  UInt8,
  Bool,
  Float8E4M3Fn,
  Float8E5M2,
  Int4,  ///< Accelerate's CustomDtype.INT4: only as a target dtype (dtype, special_dtypes), never a tensor's own
  Int2,  ///< CustomDtype.INT2, likewise
  Fp8,   ///< CustomDtype.FP8, likewise
};

/// The canonical name: torch's without "torch." ("float32", "bfloat16", "bool"), Accelerate's for the custom ones
/// ("int4", "int2", "fp8").
std::string_view dtypeName(Dtype dtype);

/// The dtype a name stands for: a canonical name, "torch."-prefixed or not, or one of torch's aliases ("float",
/// "half", "double", "long", "int", "short", "cfloat", "cdouble", "chalf"). std::nullopt for anything else.
std::optional<Dtype> dtypeFromName(std::string_view name);

/// Every canonical name, in the enum's order (for messages).
std::vector<std::string> dtypeNames();

/// What one element costs in bytes (see the file comment). float8_e5m2 counts 1 byte: Accelerate's name rule gives
/// it 0 (its name ends in "m2"), a bug we do not copy.
ByteCount dtypeByteSize(Dtype dtype);

/// Whether a target dtype leaves this tensor's size alone: integer and bool tensors are never converted when a model
/// is loaded with a dtype (set_module_tensor_to_device), so compute_module_sizes keeps their own size.
bool keepsOwnSize(Dtype dtype);

/// Whether the dtype is one of Accelerate's CustomDtype values, which no tensor has as its own dtype.
bool isCustomDtype(Dtype dtype);

}  // namespace fathom::bigmodel
