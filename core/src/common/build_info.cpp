// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/build_info.h>

#include <torch/version.h>

namespace fathom {

const BuildInfo& buildInfo() {
  static const BuildInfo info{
      .version = detail::kVersion,
      .gitRevision = detail::kGitRevision,
      .buildType = detail::kBuildType,
      .compiler = detail::kCompiler,
      .qtVersion = detail::kQtVersion,
      .cudaPathsCompiled = detail::kCudaPathsCompiled,
      .libtorchVersion = TORCH_VERSION,
  };
  return info;
}

}  // namespace fathom
