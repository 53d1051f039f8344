# SPDX-License-Identifier: Apache-2.0
# LibTorch: Debian's 1.13 here, PyTorch 2.x's on GPU machines (pass -DCMAKE_PREFIX_PATH=$(python3 -c
# 'import torch; print(torch.utils.cmake_prefix_path)')). Version differences live in
# core/src/runtime/torch_compat.h, never in CMake.

find_package(Torch REQUIRED)
if(NOT Torch_VERSION AND TORCH_VERSION)
  set(Torch_VERSION "${TORCH_VERSION}")
endif()

# One interface target for everything that compiles against LibTorch. TorchConfig puts its flags on the
# `torch` imported target (e.g. -D_GLIBCXX_USE_CXX11_ABI); TORCH_LIBRARIES adds the CUDA bits on 2.x.
add_library(fathom_torch INTERFACE)
add_library(Fathom::torch ALIAS fathom_torch)
target_link_libraries(fathom_torch INTERFACE ${TORCH_LIBRARIES})
target_include_directories(fathom_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})

# c10d's Gloo backend: Debian's build exports USE_C10D_GLOO on the torch_cpu target; a 2.x wheel compiles
# it in without exporting the definition, so we define it when the header and its gloo headers exist.
include(CheckIncludeFileCXX)
set(CMAKE_REQUIRED_INCLUDES ${TORCH_INCLUDE_DIRS})
set(CMAKE_REQUIRED_FLAGS "-std=c++17")
check_include_file_cxx("gloo/context.h" FATHOM_HAVE_GLOO_HEADERS)
unset(CMAKE_REQUIRED_INCLUDES)
unset(CMAKE_REQUIRED_FLAGS)
if(FATHOM_HAVE_GLOO_HEADERS)
  target_compile_definitions(fathom_torch INTERFACE USE_C10D_GLOO FATHOM_HAVE_GLOO=1)
else()
  message(WARNING "Fathom: gloo headers not found (Debian: libgloo-dev); c10d Gloo groups are disabled")
endif()

# c10d's NCCL backend: only in a CUDA LibTorch (2.x wheels on GPU machines; never Debian's CPU build). Wheels do
# not export USE_C10D_NCCL either; ProcessGroupNCCL.hpp needs nccl.h, found by FathomCuda.cmake or in the
# wheel's nvidia/nccl package next to torch.
set(FATHOM_HAVE_C10D_NCCL OFF)
if(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES)
  find_path(FATHOM_TORCH_NCCL_INCLUDE_DIR nccl.h
            HINTS ${FATHOM_NCCL_INCLUDE_DIR} "${Torch_DIR}/../../../../nvidia/nccl/include")
  find_path(FATHOM_TORCH_PG_NCCL_HEADER torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp HINTS ${TORCH_INCLUDE_DIRS})
  if(FATHOM_TORCH_NCCL_INCLUDE_DIR AND FATHOM_TORCH_PG_NCCL_HEADER)
    target_compile_definitions(fathom_torch INTERFACE USE_C10D_NCCL)
    target_include_directories(fathom_torch SYSTEM INTERFACE ${FATHOM_TORCH_NCCL_INCLUDE_DIR})
    set(FATHOM_HAVE_C10D_NCCL ON)
  endif()
endif()
message(STATUS "Fathom: LibTorch ${Torch_VERSION}, c10d gloo=${FATHOM_HAVE_GLOO_HEADERS} nccl=${FATHOM_HAVE_C10D_NCCL}")
