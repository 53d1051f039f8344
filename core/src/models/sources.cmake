# SPDX-License-Identifier: Apache-2.0
# core/models: the built-in models and datasets `fathom train` builds (LibTorch, so the precompiled header).
target_sources(fathom_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/builtin_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/char_text_dataset.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpt.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpt_block.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpt_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mlp.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_factory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_introspection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/regression_dataset.cpp)
# The source tree's corpus, the last place defaultCorpusPath() looks (FATHOM_CORPUS and the installed copy
# come first).
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/char_text_dataset.cpp PROPERTIES
  COMPILE_DEFINITIONS "FATHOM_CORPUS_DEFAULT=\"${PROJECT_SOURCE_DIR}/resources/corpus/kjv_genesis_exodus.txt\"")
