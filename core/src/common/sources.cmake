# SPDX-License-Identifier: Apache-2.0
# core/common: fathom_common (no LibTorch; every other library links it). build_info.cpp reads LibTorch's version, so
# it is part of fathom_core.
target_sources(fathom_common PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/atomic_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/clock.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dynamic_library.cpp
  ${CMAKE_CURRENT_LIST_DIR}/error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/log.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_category.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_metric_keys.cpp
  ${CMAKE_CURRENT_LIST_DIR}/output_location.cpp
  ${CMAKE_CURRENT_LIST_DIR}/temporary_folder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/terminal_text.cpp)
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/build_info.cpp)
