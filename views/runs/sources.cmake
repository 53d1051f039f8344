# SPDX-License-Identifier: Apache-2.0
# views/runs: the workspace's runs: the runs browser and its model, one run's live page (ranks, metrics, log
# models fed by RunDelta, the run monitor's alerts), and the comparison of runs (summary and configuration-diff
# models).
target_sources(fathom_views PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/alerts_model.h ${CMAKE_CURRENT_LIST_DIR}/alerts_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/checkpoints_model.h ${CMAKE_CURRENT_LIST_DIR}/checkpoints_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_diff_model.h ${CMAKE_CURRENT_LIST_DIR}/config_diff_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/event_log_model.h ${CMAKE_CURRENT_LIST_DIR}/event_log_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_group_proxy.h ${CMAKE_CURRENT_LIST_DIR}/host_group_proxy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/live_ranks_model.h ${CMAKE_CURRENT_LIST_DIR}/live_ranks_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metric_summary_model.h ${CMAKE_CURRENT_LIST_DIR}/metric_summary_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ranks_model.h ${CMAKE_CURRENT_LIST_DIR}/ranks_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_comparison.h
  ${CMAKE_CURRENT_LIST_DIR}/run_comparison_page.h ${CMAKE_CURRENT_LIST_DIR}/run_comparison_page.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_delta.h
  ${CMAKE_CURRENT_LIST_DIR}/run_details.h
  ${CMAKE_CURRENT_LIST_DIR}/run_details_page.h ${CMAKE_CURRENT_LIST_DIR}/run_details_page.cpp
  ${CMAKE_CURRENT_LIST_DIR}/runs_browser.h ${CMAKE_CURRENT_LIST_DIR}/runs_browser.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_summary_model.h ${CMAKE_CURRENT_LIST_DIR}/run_summary_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/runs_model.h ${CMAKE_CURRENT_LIST_DIR}/runs_model.cpp)
