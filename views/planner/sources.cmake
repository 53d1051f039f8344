# SPDX-License-Identifier: Apache-2.0
# views/planner: the what-if planner and what feeds it: plan requests and comparisons, the strategy, search, saved-
# plan, collectives and plan-vs-actual models, the hardware and model-source editors, the planner panel.
target_sources(fathom_views PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/collectives_model.h ${CMAKE_CURRENT_LIST_DIR}/collectives_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hardware_editor.h ${CMAKE_CURRENT_LIST_DIR}/hardware_editor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_source_editor.h ${CMAKE_CURRENT_LIST_DIR}/model_source_editor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_comparison.h ${CMAKE_CURRENT_LIST_DIR}/plan_comparison.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_request.h ${CMAKE_CURRENT_LIST_DIR}/plan_request.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_search_model.h ${CMAKE_CURRENT_LIST_DIR}/plan_search_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_vs_actual_model.h ${CMAKE_CURRENT_LIST_DIR}/plan_vs_actual_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/planner_panel.h ${CMAKE_CURRENT_LIST_DIR}/planner_panel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/saved_plans_model.h ${CMAKE_CURRENT_LIST_DIR}/saved_plans_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/strategy_comparison_model.h ${CMAKE_CURRENT_LIST_DIR}/strategy_comparison_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/what_if_view.h ${CMAKE_CURRENT_LIST_DIR}/what_if_view.cpp)
