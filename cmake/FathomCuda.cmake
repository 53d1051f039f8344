# SPDX-License-Identifier: Apache-2.0
# FATHOM_WITH_CUDA=AUTO|ON|OFF. With it, the CUPTI and NCCL code paths are compiled against the toolkit's
# headers; their libraries are dlopened at run time, so the same binary runs on machines without CUDA.
# Code tests the macro FATHOM_WITH_CUDA from <fathom_features.h> (generated, core-private), never a -D flag:
# a -D on fathom_core alone would make its precompiled header unusable for the targets that reuse it.

set(FATHOM_WITH_CUDA "AUTO" CACHE STRING "Compile the CUPTI/NCCL code paths (AUTO: when the CUDA headers exist)")
set_property(CACHE FATHOM_WITH_CUDA PROPERTY STRINGS AUTO ON OFF)

set(_fathom_cuda_hints "$ENV{CUDA_HOME}" "$ENV{CUDA_PATH}" "${CUDAToolkit_ROOT}" /usr/local/cuda)
find_path(FATHOM_CUPTI_INCLUDE_DIR cupti.h HINTS ${_fathom_cuda_hints}
          PATH_SUFFIXES include extras/CUPTI/include targets/x86_64-linux/include)
find_path(FATHOM_CUDA_INCLUDE_DIR cuda.h HINTS ${_fathom_cuda_hints} PATH_SUFFIXES include)
find_path(FATHOM_NCCL_INCLUDE_DIR nccl.h HINTS ${_fathom_cuda_hints} PATH_SUFFIXES include)

set(FATHOM_WITH_CUDA_RESOLVED OFF)
if(FATHOM_CUPTI_INCLUDE_DIR AND FATHOM_CUDA_INCLUDE_DIR AND FATHOM_NCCL_INCLUDE_DIR)
  if(NOT FATHOM_WITH_CUDA STREQUAL "OFF")
    set(FATHOM_WITH_CUDA_RESOLVED ON)
  endif()
elseif(FATHOM_WITH_CUDA STREQUAL "ON")
  message(FATAL_ERROR "FATHOM_WITH_CUDA=ON but cupti.h/cuda.h/nccl.h were not found "
                      "(searched CUDA_HOME, CUDA_PATH, CUDAToolkit_ROOT, /usr/local/cuda)")
endif()

add_library(fathom_cuda_headers INTERFACE)
add_library(Fathom::cuda_headers ALIAS fathom_cuda_headers)
if(FATHOM_WITH_CUDA_RESOLVED)
  target_include_directories(fathom_cuda_headers SYSTEM INTERFACE
    ${FATHOM_CUDA_INCLUDE_DIR} ${FATHOM_CUPTI_INCLUDE_DIR} ${FATHOM_NCCL_INCLUDE_DIR})
  message(STATUS "Fathom: CUDA code paths ON (headers in ${FATHOM_CUDA_INCLUDE_DIR}; libraries dlopened)")
else()
  message(STATUS "Fathom: CUDA code paths OFF")
endif()
