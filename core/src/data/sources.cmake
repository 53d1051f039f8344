# SPDX-License-Identifier: Apache-2.0
# core/data: Accelerate's data-loader sharding as pure index computation (no LibTorch). Its sources skip the
# LibTorch precompiled header, which keeps them fast to compile and proves they do not depend on it.
set(_fathom_data_sources
  ${CMAKE_CURRENT_LIST_DIR}/batch_sampler_shard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/iterable_dataset_shard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/seedable_random_sampler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shard_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shard_plan_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sharding_options.cpp)
target_sources(fathom_core PRIVATE ${_fathom_data_sources})
set_source_files_properties(${_fathom_data_sources} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
# The loader itself uses LibTorch (collating tensors), so it keeps the precompiled header.
target_sources(fathom_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/data_loader.cpp)
# dataset.cpp (collate) uses LibTorch, so it keeps the precompiled header.
target_sources(fathom_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dataset.cpp)
