// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>

namespace fathom {

/// Facts fixed when this binary was built. The git revision is refreshed on every build; everything else
/// at configure time.
struct BuildInfo {
  std::string version;      ///< Fathom's semantic version, e.g. "0.1.0".
  std::string gitRevision;  ///< Short commit hash, "-dirty" suffixed for uncommitted changes; "unknown" outside git.
  std::string buildType;    ///< CMAKE_BUILD_TYPE, e.g. "Release".
  std::string compiler;     ///< e.g. "GNU 12.2.0".
  std::string qtVersion;    ///< Qt version the Studio in this build uses; empty for a CLI-only build.
  bool cudaPathsCompiled = false;  ///< FATHOM_WITH_CUDA resolved ON: CUPTI/NCCL code paths compiled in.
  std::string libtorchVersion;     ///< LibTorch version the core was compiled against, e.g. "1.13.0".
};

/// The build facts of this binary.
const BuildInfo& buildInfo();

namespace detail {
// Defined in generated sources (cmake/FathomBuildInfo.cmake).
extern const char* const kVersion;
extern const char* const kGitRevision;
extern const char* const kBuildType;
extern const char* const kCompiler;
extern const char* const kQtVersion;
extern const bool kCudaPathsCompiled;
}  // namespace detail

}  // namespace fathom
