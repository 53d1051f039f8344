// SPDX-License-Identifier: Apache-2.0
#include "bigmodel/offloaded_tensor.h"

#include "runtime/storage_memory.h"

#include <fathom/common/error.h>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <cstdint>

namespace fathom::bigmodel {

OffloadedTensor::OffloadedTensor(std::string name, at::Tensor tensor, c10::Device execution)
    : m_name(std::move(name)), m_tensor(std::move(tensor)), m_execution(execution),
      m_bytes(static_cast<std::int64_t>(m_tensor.numel()) * static_cast<std::int64_t>(m_tensor.element_size())) {}

void OffloadedTensor::detachFromData() {
  const torch::NoGradGuard noGrad;
  // A fresh, contiguous storage on the execution device, then its memory released: from now on only the loads fill it.
  m_tensor.set_data(at::empty(m_tensor.sizes(), m_tensor.options().device(m_execution)));
  runtime::releaseStorage(m_tensor);
}

std::shared_ptr<OffloadedTensor> OffloadedTensor::inHostMemory(std::string name, at::Tensor tensor, at::Tensor home,
                                                               c10::Device execution) {
  std::shared_ptr<OffloadedTensor> t(new OffloadedTensor(std::move(name), std::move(tensor), execution));
  t->m_home = std::move(home);
  t->detachFromData();
  return t;
}

std::shared_ptr<OffloadedTensor> OffloadedTensor::onDisk(std::string name, at::Tensor tensor,
                                                         std::shared_ptr<const io::MappedSafetensors> file,
                                                         std::string key, c10::Device execution) {
  std::shared_ptr<OffloadedTensor> t(new OffloadedTensor(std::move(name), std::move(tensor), execution));
  t->m_file = std::move(file);
  t->m_key = std::move(key);
  t->detachFromData();
  return t;
}

void OffloadedTensor::acquire() {
  const std::lock_guard lock(m_mutex);
  if (m_loads++ > 0 || m_bytes == 0) {
    return;
  }
  try {
    const torch::NoGradGuard noGrad;
    if (m_file) {
      const std::byte* data = m_file->data(m_key);
      const bool aligned = reinterpret_cast<std::uintptr_t>(data) % m_tensor.element_size() == 0;
      if (m_execution.is_cpu() && aligned) {
        // The mapped pages are the tensor's memory: nothing is copied, and the page cache serves repeated reads.
        runtime::borrowStorage(m_tensor, const_cast<std::byte*>(data), static_cast<std::size_t>(m_bytes));
      } else {
        runtime::allocateStorage(m_tensor, static_cast<std::size_t>(m_bytes));
        m_tensor.copy_(m_file->tensor(m_key));
      }
    } else {
      runtime::allocateStorage(m_tensor, static_cast<std::size_t>(m_bytes));
      // From pinned memory the copy is asynchronous on the current stream, ordered before the kernels that read it.
      m_tensor.copy_(m_home, /*non_blocking=*/m_home.is_pinned());
    }
  } catch (...) {
    --m_loads;
    runtime::releaseStorage(m_tensor);
    throw;
  }
}

void OffloadedTensor::release() {
  const std::lock_guard lock(m_mutex);
  FATHOM_ASSERT(m_loads > 0, "an offloaded tensor is released as often as it was acquired");
  if (--m_loads > 0 || m_bytes == 0) {
    return;
  }
  runtime::releaseStorage(m_tensor);
  if (m_file) {
    m_file->releasePages(m_key);
  }
}

void OffloadedTensor::restoreToCpu() {
  const std::lock_guard lock(m_mutex);
  const torch::NoGradGuard noGrad;
  at::Tensor data = m_file ? m_file->tensor(m_key).clone() : m_home;
  if (m_home.defined() && m_home.is_pinned()) {
    data = m_home.clone();  // pinned memory is scarce; the model keeps ordinary memory
  }
  m_tensor.set_data(data);
  m_loads = 0;
  m_home = at::Tensor();
  if (m_file) {
    m_file->releasePages(m_key);
    m_file.reset();
  }
}

}  // namespace fathom::bigmodel
