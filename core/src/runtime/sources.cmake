target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cuda_probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/environment.cpp
  ${CMAKE_CURRENT_LIST_DIR}/environment_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_group.cpp
  ${CMAKE_CURRENT_LIST_DIR}/system_info.cpp)
