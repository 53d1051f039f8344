target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/allocation_tracker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/async_work.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_probe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/environment.cpp
  ${CMAKE_CURRENT_LIST_DIR}/environment_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_group.cpp
  ${CMAKE_CURRENT_LIST_DIR}/system_info.cpp)
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/free_port.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/self_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/storage_memory.cpp)
