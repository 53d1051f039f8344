target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/autocast_guard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/grad_scaler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mixed_precision.cpp)
