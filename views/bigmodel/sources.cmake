# SPDX-License-Identifier: Apache-2.0
# views/bigmodel: the device-map view (big-model inference): the document that keeps a model's module tree, the
# planning inputs and core's map with the user's moves; the module tree model, the device bars, the limits editor, the
# Device cell's delegate, the palette of devices, and the one place model files become module trees.
target_sources(fathom_views PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/device_bars.h ${CMAKE_CURRENT_LIST_DIR}/device_bars.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_delegate.h ${CMAKE_CURRENT_LIST_DIR}/device_delegate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_limits_editor.h ${CMAKE_CURRENT_LIST_DIR}/device_limits_editor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_map_document.h ${CMAKE_CURRENT_LIST_DIR}/device_map_document.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_map_view.h ${CMAKE_CURRENT_LIST_DIR}/device_map_view.cpp
  ${CMAKE_CURRENT_LIST_DIR}/device_palette.h ${CMAKE_CURRENT_LIST_DIR}/device_palette.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_tree_source.h ${CMAKE_CURRENT_LIST_DIR}/model_tree_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/module_tree_model.h ${CMAKE_CURRENT_LIST_DIR}/module_tree_model.cpp)
