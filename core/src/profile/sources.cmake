# SPDX-License-Identifier: Apache-2.0
# core/profile: recording. The Profiler, its schedule and clock, ATen op spans (RecordFunction), Fathom's spans, memory,
# the windows it writes as trace files (through core/trace), and the glue to GPU capture. docs/profiler.md.
# Its GPU side is cupti/ (cupti/sources.cmake). Only the files that include LibTorch keep the precompiled header.
set(_fathom_profile_plain_sources
  ${CMAKE_CURRENT_LIST_DIR}/annotations.cpp
  ${CMAKE_CURRENT_LIST_DIR}/capture_session.cpp
  ${CMAKE_CURRENT_LIST_DIR}/clock.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu_capture.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu_correlation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/live_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_timeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/interned_names.cpp
  ${CMAKE_CURRENT_LIST_DIR}/op_flops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profiler_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/window_events.cpp
  ${CMAKE_CURRENT_LIST_DIR}/window_file.cpp)
include(${CMAKE_CURRENT_LIST_DIR}/cupti/sources.cmake)  # appends the GPU side to the list
target_sources(fathom_core PRIVATE ${_fathom_profile_plain_sources})
set_source_files_properties(${_fathom_profile_plain_sources} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/aten_observer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_reporter.cpp)
# aten_observer.cpp is the one file that includes ATen/record_function.h, whose at::RecordFunction has a member only
# without NDEBUG: LibTorch is built with NDEBUG, so a Debug build of this file would read the objects LibTorch hands
# its callbacks with another layout (UBSan: "load of value 180, which is not a valid value for type 'bool'" in
# inputs()). It is compiled with NDEBUG in every build type, without the precompiled header (compiled without it).
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/aten_observer.cpp PROPERTIES
  COMPILE_DEFINITIONS NDEBUG SKIP_PRECOMPILE_HEADERS ON)
