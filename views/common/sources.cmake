# SPDX-License-Identifier: Apache-2.0
# views/common: helpers every subject uses: number formatting, memory categories, the environment table, core's JSON
# as QJsonObject, the built-in models' introspection (the only LibTorch-including source of fathom_views), wheel
# scrolling in forms, a page that scrolls only below its minimum, the planner pages' inputs-and-results layout, a
# table column that wraps to keep the others in view, the pages' sortable tables.
target_sources(fathom_views PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/builtin_model.h ${CMAKE_CURRENT_LIST_DIR}/builtin_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/environment_model.h ${CMAKE_CURRENT_LIST_DIR}/environment_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fit_scroll_area.h ${CMAKE_CURRENT_LIST_DIR}/fit_scroll_area.cpp
  ${CMAKE_CURRENT_LIST_DIR}/formatting.h ${CMAKE_CURRENT_LIST_DIR}/formatting.cpp
  ${CMAKE_CURRENT_LIST_DIR}/inputs_and_results.h ${CMAKE_CURRENT_LIST_DIR}/inputs_and_results.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json_bridge.h ${CMAKE_CURRENT_LIST_DIR}/json_bridge.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_categories.h ${CMAKE_CURRENT_LIST_DIR}/memory_categories.cpp
  ${CMAKE_CURRENT_LIST_DIR}/table_view.h ${CMAKE_CURRENT_LIST_DIR}/table_view.cpp
  ${CMAKE_CURRENT_LIST_DIR}/wheel_scroll_guard.h ${CMAKE_CURRENT_LIST_DIR}/wheel_scroll_guard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/wrapping_column.h ${CMAKE_CURRENT_LIST_DIR}/wrapping_column.cpp)
