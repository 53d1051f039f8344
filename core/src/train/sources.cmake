# SPDX-License-Identifier: Apache-2.0
# core/train: fathom::Accelerator and what it prepares (optimizers, schedulers, data loaders).
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/accelerated_optimizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accelerated_scheduler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accelerator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accelerator_checkpoint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accelerator_collectives.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accelerator_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accelerator_profile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accelerator_reshard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accelerator_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accelerator_workspace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/data_loader_shard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/find_executable_batch_size.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gradient_state.cpp)
