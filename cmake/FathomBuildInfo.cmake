# SPDX-License-Identifier: Apache-2.0
# Build facts for `fathom --version` / `fathom env`. The static part is configured once; the git revision is
# refreshed at every build by a script that rewrites its file only when the revision changes, so a no-change
# rebuild recompiles nothing.

set(FATHOM_GENERATED_DIR "${CMAKE_BINARY_DIR}/generated")
set(FATHOM_BUILD_TYPE "${CMAKE_BUILD_TYPE}")
set(FATHOM_COMPILER "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
if(FATHOM_WITH_CUDA_RESOLVED)
  set(FATHOM_CUDA_PATHS_COMPILED true)
  set(FATHOM_WITH_CUDA_VALUE 1)
else()
  set(FATHOM_CUDA_PATHS_COMPILED false)
  set(FATHOM_WITH_CUDA_VALUE 0)
endif()
configure_file("${CMAKE_CURRENT_LIST_DIR}/fathom_features.h.in" "${FATHOM_GENERATED_DIR}/fathom_features.h" @ONLY)
configure_file("${CMAKE_CURRENT_LIST_DIR}/build_info_static.cpp.in"
               "${FATHOM_GENERATED_DIR}/build_info_static.cpp" @ONLY)

add_custom_target(fathom_git_revision
  COMMAND "${CMAKE_COMMAND}" -DSOURCE_DIR=${CMAKE_SOURCE_DIR}
          -DOUTPUT=${FATHOM_GENERATED_DIR}/build_info_git.cpp -P "${CMAKE_CURRENT_LIST_DIR}/FathomGitRevision.cmake"
  BYPRODUCTS "${FATHOM_GENERATED_DIR}/build_info_git.cpp"
  COMMENT "" VERBATIM)
