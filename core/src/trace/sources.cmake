# SPDX-License-Identifier: Apache-2.0
# core/trace: fathom_trace, Chrome/Kineto trace files (docs/traces.md). Depends on core/common, zlib and nlohmann_json
# only: no LibTorch, nothing from core/profile (tests/core/tst_trace_dependencies).
#   trace_event                                         the vocabulary: categories, phases, events, a file's header
#   trace_file_names                                    the names of a profiled run's files (per rank, merged)
#   trace_json, trace_file_sink, chrome_trace_writer   writing (text rules, atomic gzip files, the Kineto layout)
#   trace_input, trace_reader, trace_event_view         reading (gunzip, the chunked scanner, one event's members)
#   event_fields                                        what every reader accepts of ph, ts and dur (one place)
#   trace_merge, trace_validator, trace_summary         tools over files (slice_timeline, intervals: their helpers)
#   trace_copy                                          a checked copy/conversion (`fathom trace export INPUT -o OUT`)
#   timeline_index, timeline_queries                  the timeline's index and its per-frame queries (timeline_builder,
#                                                       slice_lod: their helpers; trace_summarizer: the summary's code)
#   traces_timeline                                     the timeline of stored traces (one, or several merged; prefixes)
#   trace_range_export                                  a time range (rank, rows) of a trace as a Chrome trace
#   step_alignment                                      ranks' steps and collectives side by side (the timeline)
#   operator_class_times                                a rank's steps by the planner's operator classes (run fits)
#   json_scan.h, json_strict, utf8.h                    JSON text scanning (bracket matching; strict RFC 8259)
target_sources(fathom_trace PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/trace_event.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_file_names.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_file_sink.cpp
  ${CMAKE_CURRENT_LIST_DIR}/chrome_trace_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_input.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_event_view.cpp
  ${CMAKE_CURRENT_LIST_DIR}/event_fields.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_merge.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_copy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_validator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json_strict.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slice_timeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/operator_class_times.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_summarizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/intervals.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_index.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_builder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_queries.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slice_lod.cpp
  ${CMAKE_CURRENT_LIST_DIR}/traces_timeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace_range_export.cpp
  ${CMAKE_CURRENT_LIST_DIR}/step_alignment.cpp)
