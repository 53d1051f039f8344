# SPDX-License-Identifier: Apache-2.0
# core/profile, trace files (no LibTorch: the sources skip the precompiled header).
set(_fathom_profile_trace_sources)
target_sources(fathom_core PRIVATE ${_fathom_profile_trace_sources})
set_source_files_properties(${_fathom_profile_trace_sources} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
