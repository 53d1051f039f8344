// SPDX-License-Identifier: Apache-2.0
// A .safetensors file as Fathom loads checkpoints and weights (readSafetensors): the 8-byte header length, the JSON
// header (dtypes, shapes, data_offsets, __metadata__), the data regions' bounds, BOOL bytes.
// Oracle: StorageError is a good answer (the reader "trusts nothing in the file"); anything else escaping (a c10::Error
// from LibTorch, nlohmann's exception), or a sanitizer report, is a finding; a file that loads has tensors whose bytes
// add up to the data section.
#include "fuzz_input.h"

#include <fathom/common/error.h>
#include <fathom/io/safetensors.h>

#include <ATen/core/Tensor.h>

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fathom;
  static fuzz::InputFile file("weights.safetensors");
  try {
    const io::SafetensorsFile loaded = io::readSafetensors(file.write(fuzz::text(data, size)));
    std::uint64_t bytes = 0;
    for (const auto& [name, tensor] : loaded.tensors) {
      bytes += tensor.nbytes();
    }
    if (bytes > size) {
      std::fprintf(stderr, "%llu tensor bytes from a %zu-byte file\n", static_cast<unsigned long long>(bytes), size);
      std::abort();
    }
  } catch (const Error&) {
  }
  return 0;
}
