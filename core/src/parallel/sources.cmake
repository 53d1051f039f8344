# SPDX-License-Identifier: Apache-2.0
# core/parallel: the Comm layer (every collective, recorded), later DDP/FSDP/ZeRO.
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/comm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm_record.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm_recorder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pending_call.cpp)
