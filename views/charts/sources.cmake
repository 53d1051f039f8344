# SPDX-License-Identifier: Apache-2.0
# views/charts: Qt Charts views of plan comparisons (memory, communication, scaling) on one ChartView base
# (hover, PNG/SVG export), the stacked memory bar, and the metric plot (TensorBoard's scalars: LodSeries
# decimation, EmaSmoother) and a rank's memory over time against its plan (MemoryTimeline) over a MetricSeriesStore.
target_sources(fathom_views PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/chart_view.h ${CMAKE_CURRENT_LIST_DIR}/chart_view.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comm_chart.h ${CMAKE_CURRENT_LIST_DIR}/comm_chart.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ema_smoother.h ${CMAKE_CURRENT_LIST_DIR}/ema_smoother.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lod_series.h ${CMAKE_CURRENT_LIST_DIR}/lod_series.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_bar.h ${CMAKE_CURRENT_LIST_DIR}/memory_bar.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_chart.h ${CMAKE_CURRENT_LIST_DIR}/memory_chart.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_timeline.h ${CMAKE_CURRENT_LIST_DIR}/memory_timeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metric_plot.h ${CMAKE_CURRENT_LIST_DIR}/metric_plot.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metric_plot_panel.h ${CMAKE_CURRENT_LIST_DIR}/metric_plot_panel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metric_series_store.h ${CMAKE_CURRENT_LIST_DIR}/metric_series_store.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scaling_chart.h ${CMAKE_CURRENT_LIST_DIR}/scaling_chart.cpp)
