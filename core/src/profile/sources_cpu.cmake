# SPDX-License-Identifier: Apache-2.0
# core/profile, CPU side: the Profiler, its schedule, ATen op spans (RecordFunction), Fathom's spans and memory.
# Only the files that include LibTorch keep the precompiled header.
set(_fathom_profile_cpu_plain_sources
  ${CMAKE_CURRENT_LIST_DIR}/annotations.cpp
  ${CMAKE_CURRENT_LIST_DIR}/capture_session.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu_capture.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu_correlation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/live_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_timeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/op_flops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profiler_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_event.cpp
  ${CMAKE_CURRENT_LIST_DIR}/window_events.cpp
  ${CMAKE_CURRENT_LIST_DIR}/window_file.cpp)
target_sources(fathom_core PRIVATE ${_fathom_profile_cpu_plain_sources})
set_source_files_properties(${_fathom_profile_cpu_plain_sources} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/aten_observer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_reporter.cpp)
