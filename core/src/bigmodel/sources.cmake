# SPDX-License-Identifier: Apache-2.0
# core/bigmodel: module trees (from JSON, a config.json or a safetensors checkpoint), Accelerate's device-map planning
# (sizes, infer_auto_device_map, balanced memory), device-map strategies by name and Fathom's optimal one.
# Plain C++ on a description of the model, no LibTorch: its sources skip the LibTorch precompiled header.
set(_fathom_bigmodel_sources
  ${CMAKE_CURRENT_LIST_DIR}/balanced_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/checkpoint_module_tree.cpp
  ${CMAKE_CURRENT_LIST_DIR}/checkpoint_tensors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_key.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_load.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_map.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_map_edit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_map_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_map_strategy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dispatch_record.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dtype.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fallback_allocate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hf_module_tree.cpp
  ${CMAKE_CURRENT_LIST_DIR}/infer_device_map.cpp
  ${CMAKE_CURRENT_LIST_DIR}/layer_cuts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/layer_units.cpp
  ${CMAKE_CURRENT_LIST_DIR}/module_sizes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/module_tree.cpp
  ${CMAKE_CURRENT_LIST_DIR}/module_tree_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/optimal_device_map.cpp
  ${CMAKE_CURRENT_LIST_DIR}/planning_queue.cpp)
target_sources(fathom_core PRIVATE ${_fathom_bigmodel_sources})
set_source_files_properties(${_fathom_bigmodel_sources} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)

# What needs LibTorch: trees of live modules and dispatch (with the precompiled LibTorch header).
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/dispatch_unit_hooks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dispatched_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_checkpoint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/offloaded_tensor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/torch_module_tree.cpp)
