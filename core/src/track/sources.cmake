# SPDX-License-Identifier: Apache-2.0
# core/track: experiment trackers (TensorBoard, MLflow, DVCLive, CSV, JSONL files) and their registry. No
# LibTorch: the sources skip the precompiled header.
set(_fathom_track_sources
  ${CMAKE_CURRENT_LIST_DIR}/crc32c.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dvclive_tracker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mlflow_tracker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/table_trackers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensorboard_tracker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/track_util.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tracker.cpp)
target_sources(fathom_core PRIVATE ${_fathom_track_sources})
set_source_files_properties(${_fathom_track_sources} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
