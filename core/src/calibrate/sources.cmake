# SPDX-License-Identifier: Apache-2.0
# core/calibrate: `fathom calibrate`, measuring this machine into a hardware profile (matmul rates by processes and
# threads, memory bandwidth, collective alpha/beta over real process groups). The fit is plain arithmetic and skips
# the LibTorch precompiled header.
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/alpha_beta_fit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/calibrate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/calibration_task.cpp
  ${CMAKE_CURRENT_LIST_DIR}/calibration_worker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measure.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_fit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_fit_report.cpp)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/alpha_beta_fit.cpp ${CMAKE_CURRENT_LIST_DIR}/run_fit.cpp ${CMAKE_CURRENT_LIST_DIR}/run_fit_report.cpp PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
