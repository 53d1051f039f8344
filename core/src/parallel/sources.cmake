# SPDX-License-Identifier: Apache-2.0
# core/parallel: the Comm layer (every collective, recorded) DDP, FSDP and ZeRO.
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/collective_wavefront.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm_record.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm_recorder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm_work.cpp
  ${CMAKE_CURRENT_LIST_DIR}/data_parallel_engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ddp_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ddp_engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ddp_reducer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/flat_param.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fsdp_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fully_sharded_engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fully_sharded_units.cpp
  ${CMAKE_CURRENT_LIST_DIR}/module_state_sync.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pending_call.cpp
  ${CMAKE_CURRENT_LIST_DIR}/storage_bytes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unit_scope.cpp
  ${CMAKE_CURRENT_LIST_DIR}/zero_bucket_layout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/zero_engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/zero_grad_reducer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/zero_options.cpp)
# The wavefront is free of LibTorch (the telemetry sender reads it): no precompiled header.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/collective_wavefront.cpp PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
