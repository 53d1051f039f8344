target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/agent_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/child_process.cpp
  ${CMAKE_CURRENT_LIST_DIR}/host_list.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/local_launcher.cpp
  ${CMAKE_CURRENT_LIST_DIR}/multi_node_launcher.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_guardian.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_limits.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rank_output.cpp
  ${CMAKE_CURRENT_LIST_DIR}/remote_agent.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shell_quote.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ssh_transport.cpp
  ${CMAKE_CURRENT_LIST_DIR}/worker_environment.cpp
  ${CMAKE_CURRENT_LIST_DIR}/worker_process.cpp)
