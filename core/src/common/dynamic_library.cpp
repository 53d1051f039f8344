// SPDX-License-Identifier: Apache-2.0
#include "common/dynamic_library.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <utility>

namespace fathom::detail {

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : m_handle(std::exchange(other.m_handle, nullptr)), m_path(std::move(other.m_path)),
      m_error(std::move(other.m_error)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (m_handle != nullptr) {
      dlclose(m_handle);
    }
    m_handle = std::exchange(other.m_handle, nullptr);
    m_path = std::move(other.m_path);
    m_error = std::move(other.m_error);
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  if (m_handle != nullptr) {
    dlclose(m_handle);
  }
}

DynamicLibrary DynamicLibrary::openFirst(const std::vector<std::string>& candidates) {
  DynamicLibrary lib;
  for (const auto& candidate : candidates) {
    // RTLD_LOCAL keeps the library's symbols out of the global namespace (CUPTI and NCCL export many).
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      if (!lib.m_error.empty()) {
        lib.m_error += "; ";
      }
      lib.m_error += why != nullptr ? why : candidate + ": unknown dlopen error";
      continue;
    }
    lib.m_handle = handle;
    lib.m_path = candidate;
    link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
        map->l_name[0] != '\0') {
      lib.m_path = map->l_name;
    }
    lib.m_error.clear();
    return lib;
  }
  return lib;
}

void* DynamicLibrary::rawSymbol(const char* name) const {
  if (m_handle == nullptr) {
    return nullptr;
  }
  return dlsym(m_handle, name);
}

std::vector<std::string> cudaLibraryCandidates(const std::string& libname, const std::vector<std::string>& versions) {
  std::vector<std::string> names;
  for (const auto& version : versions) {
    names.push_back(libname + "." + version);
  }
  names.push_back(libname);

  std::vector<std::string> candidates = names;  // the loader's own search path first
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* value = std::getenv(var); value != nullptr && value[0] != '\0') {
      roots.emplace_back(value);
    }
  }
  roots.emplace_back("/usr/local/cuda");
  for (const auto& root : roots) {
    for (const char* sub : {"lib64", "lib", "extras/CUPTI/lib64"}) {
      for (const auto& name : names) {
        candidates.push_back(root + "/" + sub + "/" + name);
      }
    }
  }
  return candidates;
}

}  // namespace fathom::detail
