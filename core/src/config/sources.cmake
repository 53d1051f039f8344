target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/config_paths.cpp)
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/accelerate_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/basic_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_resolver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_schema.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_value.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_spec.cpp)
