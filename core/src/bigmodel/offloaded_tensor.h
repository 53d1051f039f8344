// SPDX-License-Identifier: Apache-2.0
// One tensor of a dispatched model that lives off its execution device: in host memory (a "cpu" module computing on a
// GPU) or in the offload file (a "disk" module). Its units load it before their forward and release it after.
#pragma once

#include <fathom/io/mapped_safetensors.h>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace fathom::bigmodel {

/// Invariant: between loads the tensor's storage holds no memory (runtime::releaseStorage) while its shape, dtype,
/// device (the execution device) and identity stay, so every module holding it sees the data whenever a unit has
/// loaded it. Loads are counted: a tied tensor two nested units hold is loaded once and released by the last.
class OffloadedTensor {
public:
  /// A tensor whose data stays in `home` (host memory, pinned when the execution device is a GPU).
  static std::shared_ptr<OffloadedTensor> inHostMemory(std::string name, at::Tensor tensor, at::Tensor home,
                                                       c10::Device execution);
  /// A tensor whose data is `key` in `file`.
  static std::shared_ptr<OffloadedTensor> onDisk(std::string name, at::Tensor tensor,
                                                 std::shared_ptr<const io::MappedSafetensors> file, std::string key,
                                                 c10::Device execution);

  const std::string& name() const { return m_name; }
  const at::Tensor& tensor() const { return m_tensor; }
  std::int64_t bytes() const { return m_bytes; }

  /// Gives the tensor its data on the execution device (on the CPU from disk: the mapped pages themselves, when
  /// aligned for the dtype).
  void acquire();
  /// Undoes one acquire(); the last one frees the data (and drops the file's pages).
  void release();
  /// Puts the data back into the tensor for good, on the CPU (the dispatch ends).
  void restoreToCpu();

private:
  OffloadedTensor(std::string name, at::Tensor tensor, c10::Device execution);
  void detachFromData();  ///< the tensor moves to the execution device, its storage released

  std::string m_name;
  at::Tensor m_tensor;
  c10::Device m_execution;
  std::int64_t m_bytes = 0;
  at::Tensor m_home;                                    ///< host memory, or undefined
  std::shared_ptr<const io::MappedSafetensors> m_file;  ///< the offload file, or null
  std::string m_key;
  std::mutex m_mutex;
  int m_loads = 0;
};

}  // namespace fathom::bigmodel
