# SPDX-License-Identifier: Apache-2.0
# core/plan: the planner (pure functions, no LibTorch). Its sources skip the LibTorch precompiled header, which
# both keeps them fast to compile and proves they do not depend on it.
set(_fathom_plan_sources
  ${CMAKE_CURRENT_LIST_DIR}/calibrated_rates.cpp
  ${CMAKE_CURRENT_LIST_DIR}/calibrated_time.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_metric_keys.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compute_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/exact_layout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hardware.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hardware_calibration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hf_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/load_size.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_vs_actual.cpp
  ${CMAKE_CURRENT_LIST_DIR}/planned_step.cpp
  ${CMAKE_CURRENT_LIST_DIR}/predict.cpp
  ${CMAKE_CURRENT_LIST_DIR}/prediction.cpp
  ${CMAKE_CURRENT_LIST_DIR}/prediction_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/search.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shard_layout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/training_plan.cpp)
target_sources(fathom_core PRIVATE ${_fathom_plan_sources})
set_source_files_properties(${_fathom_plan_sources} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
# Shipped hardware presets; FATHOM_HARDWARE_DIR overrides at run time.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/hardware.cpp PROPERTIES
  COMPILE_DEFINITIONS "FATHOM_HARDWARE_DIR_DEFAULT=\"${PROJECT_SOURCE_DIR}/resources/hardware\"")
