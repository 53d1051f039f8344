# SPDX-License-Identifier: Apache-2.0
# core/io: tensor file formats (safetensors). The index of sharded checkpoints is plain JSON: no LibTorch header.
target_sources(fathom_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/safetensors.cpp
                                   ${CMAKE_CURRENT_LIST_DIR}/safetensors_header.cpp
                                   ${CMAKE_CURRENT_LIST_DIR}/safetensors_index.cpp
                                   ${CMAKE_CURRENT_LIST_DIR}/mapped_safetensors.cpp)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/safetensors_index.cpp PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
