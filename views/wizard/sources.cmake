# SPDX-License-Identifier: Apache-2.0
# views/wizard: the configuration wizard, its pages and the value they edit (WizardRun: core's config::RunSpec and
# the wizard's own choices).
target_sources(fathom_views PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/config_wizard.h ${CMAKE_CURRENT_LIST_DIR}/config_wizard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vocabulary_combo.h
  ${CMAKE_CURRENT_LIST_DIR}/wizard_batch_page.h ${CMAKE_CURRENT_LIST_DIR}/wizard_batch_page.cpp
  ${CMAKE_CURRENT_LIST_DIR}/wizard_environment_page.h ${CMAKE_CURRENT_LIST_DIR}/wizard_environment_page.cpp
  ${CMAKE_CURRENT_LIST_DIR}/wizard_model_page.h ${CMAKE_CURRENT_LIST_DIR}/wizard_model_page.cpp
  ${CMAKE_CURRENT_LIST_DIR}/wizard_page.h
  ${CMAKE_CURRENT_LIST_DIR}/wizard_paradigm_page.h ${CMAKE_CURRENT_LIST_DIR}/wizard_paradigm_page.cpp
  ${CMAKE_CURRENT_LIST_DIR}/wizard_precision_page.h ${CMAKE_CURRENT_LIST_DIR}/wizard_precision_page.cpp
  ${CMAKE_CURRENT_LIST_DIR}/wizard_review_page.h ${CMAKE_CURRENT_LIST_DIR}/wizard_review_page.cpp
  ${CMAKE_CURRENT_LIST_DIR}/wizard_run.h ${CMAKE_CURRENT_LIST_DIR}/wizard_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/wizard_tools_page.h ${CMAKE_CURRENT_LIST_DIR}/wizard_tools_page.cpp)
