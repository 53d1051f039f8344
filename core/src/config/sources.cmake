target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/config_paths.cpp)
