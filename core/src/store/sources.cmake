# SPDX-License-Identifier: Apache-2.0
# core/store: the SQLite workspace (runs, ranks, metrics, events, artifacts, plans). No LibTorch: its sources skip
# the LibTorch precompiled header.
set(_fathom_store_sources
  ${CMAKE_CURRENT_LIST_DIR}/alert_rows.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_map_rows.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hardware_fit_rows.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metric_key_migration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_identity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/records.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_comparison.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_layout_migration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_alert.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_measurements.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_layout_rows.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_monitor_migration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schema.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sqlite_db.cpp
  ${CMAKE_CURRENT_LIST_DIR}/workspace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/workspace_access.cpp)
target_sources(fathom_core PRIVATE ${_fathom_store_sources})
set_source_files_properties(${_fathom_store_sources} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
