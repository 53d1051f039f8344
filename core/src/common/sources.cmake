target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/build_info.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dynamic_library.cpp
  ${CMAKE_CURRENT_LIST_DIR}/error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/log.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_category.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_metric_keys.cpp)
