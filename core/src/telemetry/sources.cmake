# SPDX-License-Identifier: Apache-2.0
# core/telemetry: live telemetry from the workers to the launcher (wire protocol, collector, sender), the
# launcher's run recorder and the built-in `sqlite` tracker. No LibTorch: the sources skip the precompiled header.
set(_fathom_telemetry_sources
  ${CMAKE_CURRENT_LIST_DIR}/doorman.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch_events.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch_recorder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/protocol.cpp
  ${CMAKE_CURRENT_LIST_DIR}/refusal_log.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_monitor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/socket.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sqlite_tracker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/telemetry_collector.cpp
  ${CMAKE_CURRENT_LIST_DIR}/telemetry_sender.cpp)
target_sources(fathom_core PRIVATE ${_fathom_telemetry_sources})
set_source_files_properties(${_fathom_telemetry_sources} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
