# SPDX-License-Identifier: Apache-2.0
# views/charts: Qt Charts views of plan comparisons (memory, communication, scaling) on one ChartView base
# (hover, PNG/SVG export), and the stacked memory bar.
target_sources(fathom_views PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/chart_view.h ${CMAKE_CURRENT_LIST_DIR}/chart_view.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm_chart.h ${CMAKE_CURRENT_LIST_DIR}/comm_chart.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_bar.h ${CMAKE_CURRENT_LIST_DIR}/memory_bar.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_chart.h ${CMAKE_CURRENT_LIST_DIR}/memory_chart.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scaling_chart.h ${CMAKE_CURRENT_LIST_DIR}/scaling_chart.cpp)
