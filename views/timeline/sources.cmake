# SPDX-License-Identifier: Apache-2.0
# views/timeline: the trace timeline (issue 19) over core's TimelineIndex: the view that paints it from the index's
# per-pixel queries (TimelineView), the loader that builds the index off the GUI thread (TimelineLoader) and the
# time <-> pixel arithmetic (time_coords.h).
target_sources(fathom_views PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/time_coords.h ${CMAKE_CURRENT_LIST_DIR}/time_coords.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_loader.h ${CMAKE_CURRENT_LIST_DIR}/timeline_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_view.h ${CMAKE_CURRENT_LIST_DIR}/timeline_view.cpp)
