# SPDX-License-Identifier: Apache-2.0
# core/parallel: the Comm layer (every collective, recorded) and DDP; later FSDP/ZeRO.
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/comm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm_record.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm_recorder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm_work.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ddp_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ddp_reducer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pending_call.cpp)
