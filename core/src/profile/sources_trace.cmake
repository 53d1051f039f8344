# SPDX-License-Identifier: Apache-2.0
# core/profile, trace files (no LibTorch: the sources skip the precompiled header). docs/traces.md.
#   trace_json, trace_file_sink, chrome_trace_writer   writing (text rules, atomic gzip files, the Kineto layout)
#   trace_input, trace_reader, trace_event_view         reading (gunzip, the chunked scanner, one event's members)
#   trace_merge, trace_validator, trace_summary         tools over files (slice_timeline, intervals: their helpers)
set(_fathom_profile_trace_sources
  ${CMAKE_CURRENT_LIST_DIR}/trace_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_file_sink.cpp
  ${CMAKE_CURRENT_LIST_DIR}/chrome_trace_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_input.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_event_view.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_merge.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_validator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json_strict.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slice_timeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/intervals.cpp)
target_sources(fathom_core PRIVATE ${_fathom_profile_trace_sources})
set_source_files_properties(${_fathom_profile_trace_sources} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
