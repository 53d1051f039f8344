// SPDX-License-Identifier: Apache-2.0
#include "fathom/bigmodel/torch_module_tree.h"

#include "fathom/common/error.h"

#include <ATen/core/Tensor.h>

#include <unordered_map>

namespace fathom::bigmodel {

Dtype dtypeOf(c10::ScalarType type) {
  switch (type) {
  case c10::ScalarType::Double: return Dtype::Float64;
  case c10::ScalarType::Float: return Dtype::Float32;
  case c10::ScalarType::Half: return Dtype::Float16;
  case c10::ScalarType::BFloat16: return Dtype::BFloat16;
  case c10::ScalarType::ComplexDouble: return Dtype::Complex128;
  case c10::ScalarType::ComplexFloat: return Dtype::Complex64;
  case c10::ScalarType::ComplexHalf: return Dtype::Complex32;
  case c10::ScalarType::Long: return Dtype::Int64;
  case c10::ScalarType::Int: return Dtype::Int32;
  case c10::ScalarType::Short: return Dtype::Int16;
  case c10::ScalarType::Char: return Dtype::Int8;
  case c10::ScalarType::Byte: return Dtype::UInt8;
  case c10::ScalarType::Bool: return Dtype::Bool;
  default: break;
  }
  throw ConfigError(detail::concat("device maps: tensors of type ", c10::toString(type),
                                   " have no size in the planning (supported: floating, complex, integer and bool)"));
}

ModuleTree moduleTreeOf(const torch::nn::Module& model) {
  std::unordered_map<const c10::TensorImpl*, std::int64_t> ids;
  const auto describe = [&ids](const std::string& name, const at::Tensor& t) {
    TensorInfo info;
    info.name = name;
    info.shape = t.sizes().vec();
    info.dtype = dtypeOf(t.scalar_type());
    info.tensorId = ids.emplace(t.unsafeGetTensorImpl(), static_cast<std::int64_t>(ids.size())).first->second;
    return info;
  };
  std::vector<ModuleInfo> modules;
  for (const auto& item : model.named_modules(/*name_prefix=*/"", /*include_self=*/true)) {
    const torch::nn::Module& m = *item.value();
    ModuleInfo info;
    info.name = item.key();
    info.className = m.name();
    for (const auto& child : m.named_children()) {
      info.children.push_back(child.key());
    }
    for (const auto& p : m.named_parameters(/*recurse=*/false)) {
      info.parameters.push_back(describe(p.key(), p.value()));
    }
    for (const auto& b : m.named_buffers(/*recurse=*/false)) {
      info.buffers.push_back(describe(b.key(), b.value()));
    }
    modules.push_back(std::move(info));
  }
  return ModuleTree(std::move(modules));
}

}  // namespace fathom::bigmodel
