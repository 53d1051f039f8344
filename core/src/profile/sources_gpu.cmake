# SPDX-License-Identifier: Apache-2.0
# core/profile, GPU side: CUPTI (dlopened) and the CPU <-> GPU linking (no LibTorch: no precompiled header).
set(_fathom_profile_gpu_sources)
target_sources(fathom_core PRIVATE ${_fathom_profile_gpu_sources})
set_source_files_properties(${_fathom_profile_gpu_sources} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
