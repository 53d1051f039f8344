# SPDX-License-Identifier: Apache-2.0
# core/io: tensor file formats (safetensors).
target_sources(fathom_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/safetensors.cpp
                                   ${CMAKE_CURRENT_LIST_DIR}/safetensors_header.cpp
                                   ${CMAKE_CURRENT_LIST_DIR}/mapped_safetensors.cpp)
