# SPDX-License-Identifier: Apache-2.0
# core/profile, CPU side: the Profiler, its schedule, ATen op spans (RecordFunction), Fathom's spans and memory.
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/trace_event.cpp)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/trace_event.cpp PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
