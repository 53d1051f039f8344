// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fathom::detail {

/// An owned dlopen() handle. Used for CUDA's driver, CUPTI and NCCL, so one binary runs on machines
/// with and without them. Move-only; the library is closed on destruction.
class DynamicLibrary {
public:
  DynamicLibrary() = default;
  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  /// Tries each candidate (a soname for the loader's search path, or an absolute path) in order and keeps
  /// the first that loads. On failure the returned object is not loaded() and error() lists every attempt.
  static DynamicLibrary openFirst(const std::vector<std::string>& candidates);

  bool loaded() const { return m_handle != nullptr; }
  /// The file the loader actually mapped (resolved through dladdr), or the candidate string.
  const std::string& path() const { return m_path; }
  const std::string& error() const { return m_error; }

  /// Resolves a symbol as a function pointer of type Fn; nullptr when absent.
  template <typename Fn> Fn symbol(const char* name) const { return reinterpret_cast<Fn>(rawSymbol(name)); }

private:
  void* rawSymbol(const char* name) const;

  void* m_handle = nullptr;
  std::string m_path;
  std::string m_error;
};

/// Candidate locations for a CUDA library `libname` (e.g. "libcupti.so"): the soname with the given major
/// versions, then $CUDA_HOME, $CUDA_PATH and /usr/local/cuda under lib64/, lib/ and extras/CUPTI/lib64/.
std::vector<std::string> cudaLibraryCandidates(const std::string& libname, const std::vector<std::string>& versions);

}  // namespace fathom::detail
