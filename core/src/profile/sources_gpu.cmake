# SPDX-License-Identifier: Apache-2.0
# core/profile, GPU side: CUPTI (dlopened) and the CPU <-> GPU linking (no LibTorch: no precompiled header).
#   gpu_activity         the normalized record (GpuActivity) and its names
#   gpu_trace_builder    records -> Kineto-layout trace events, linked to CPU ops and collectives (pure logic)
set(_fathom_profile_gpu_sources
  ${CMAKE_CURRENT_LIST_DIR}/gpu_activity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu_trace_builder.cpp)
target_sources(fathom_core PRIVATE ${_fathom_profile_gpu_sources})
set_source_files_properties(${_fathom_profile_gpu_sources} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
