// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/dtype.h>

#include <array>

namespace fathom::bigmodel {

namespace {

struct DtypeRow {
  Dtype dtype;
  std::string_view name;
  ByteCount bytes;
  bool keepsOwnSize;  ///< str(torch dtype) starts with "torch.uint", "torch.int" or "torch.bool"
  bool custom;
};

// In the enum's order: kRows[static_cast<size_t>(d)].dtype == d (checked by the lookups below).
constexpr std::array kRows{
    DtypeRow{Dtype::Float64, "float64", 8, false, false},
    DtypeRow{Dtype::Float32, "float32", 4, false, false},
    DtypeRow{Dtype::Float16, "float16", 2, false, false},
    DtypeRow{Dtype::BFloat16, "bfloat16", 2, false, false},
    DtypeRow{Dtype::Complex128, "complex128", 16, false, false},
    DtypeRow{Dtype::Complex64, "complex64", 8, false, false},
    DtypeRow{Dtype::Complex32, "complex32", 4, false, false},
    DtypeRow{Dtype::Int64, "int64", 8, true, false},
    DtypeRow{Dtype::Int32, "int32", 4, true, false},
    DtypeRow{Dtype::Int16, "int16", 2, true, false},
    DtypeRow{Dtype::Int8, "int8", 1, true, false},
    DtypeRow{Dtype::UInt64, "uint64", 8, true, false},
    DtypeRow{Dtype::UInt32, "uint32", 4, true, false},
    DtypeRow{Dtype::UInt16, "uint16", 2, true, false},
    DtypeRow{Dtype::UInt8, "uint8", 1, true, false},
    DtypeRow{Dtype::Bool, "bool", 0.125, true, false},
    DtypeRow{Dtype::Float8E4M3Fn, "float8_e4m3fn", 1, false, false},
    DtypeRow{Dtype::Float8E5M2, "float8_e5m2", 1, false, false},
    DtypeRow{Dtype::Int4, "int4", 0.5, false, true},
    DtypeRow{Dtype::Int2, "int2", 0.25, false, true},
    DtypeRow{Dtype::Fp8, "fp8", 1, false, true},
};

constexpr bool rowsInEnumOrder() {
  for (std::size_t i = 0; i < kRows.size(); ++i) {
    if (static_cast<std::size_t>(kRows[i].dtype) != i) {
      return false;
    }
  }
  return true;
}
static_assert(rowsInEnumOrder(), "kRows must list the dtypes in the enum's order");

struct Alias {
  std::string_view name;
  Dtype dtype;
};

constexpr std::array kAliases{
    Alias{"float", Dtype::Float32},    Alias{"double", Dtype::Float64},     Alias{"half", Dtype::Float16},
    Alias{"long", Dtype::Int64},       Alias{"int", Dtype::Int32},          Alias{"short", Dtype::Int16},
    Alias{"cfloat", Dtype::Complex64}, Alias{"cdouble", Dtype::Complex128}, Alias{"chalf", Dtype::Complex32},
};

const DtypeRow& row(Dtype dtype) {
  return kRows[static_cast<std::size_t>(dtype)];
}

}  // namespace

std::string_view dtypeName(Dtype dtype) {
  return row(dtype).name;
}

std::optional<Dtype> dtypeFromName(std::string_view name) {
  if (name.starts_with("torch.")) {
    name.remove_prefix(6);
  }
  for (const DtypeRow& r : kRows) {
    if (r.name == name) {
      return r.dtype;
    }
  }
  for (const Alias& a : kAliases) {
    if (a.name == name) {
      return a.dtype;
    }
  }
  return std::nullopt;
}

std::vector<std::string> dtypeNames() {
  std::vector<std::string> names;
  for (const DtypeRow& r : kRows) {
    names.emplace_back(r.name);
  }
  return names;
}

ByteCount dtypeByteSize(Dtype dtype) {
  return row(dtype).bytes;
}

bool keepsOwnSize(Dtype dtype) {
  return row(dtype).keepsOwnSize;
}

bool isCustomDtype(Dtype dtype) {
  return row(dtype).custom;
}

}  // namespace fathom::bigmodel
