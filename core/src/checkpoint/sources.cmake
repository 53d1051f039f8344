# SPDX-License-Identifier: Apache-2.0
# core/checkpoint: save_state / load_state's files: folders, manifest, atomic publishing, optimizer/RNG states.
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/checkpoint_folder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/checkpoint_staging.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shard_index.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_state.cpp)
