# SPDX-License-Identifier: Apache-2.0
# views/timeline: the trace timeline (issue 19) over core's TimelineIndex: the view that paints it from the index's
# per-pixel queries (TimelineView), the loader that builds the index off the GUI thread (TimelineLoader) and the
# time <-> pixel arithmetic (time_coords.h); selection and analysis: the view's selection (timeline_view_selection.cpp,
# timeline_selection.h), what it draws over its rows (timeline_overlays.h), the slice details and area panels and
# their wiring (timeline_panels.h), with a worker for their slow queries.
target_sources(fathom_views PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/time_coords.h ${CMAKE_CURRENT_LIST_DIR}/time_coords.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_loader.h ${CMAKE_CURRENT_LIST_DIR}/timeline_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_view.h ${CMAKE_CURRENT_LIST_DIR}/timeline_view.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_view_selection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_selection.h ${CMAKE_CURRENT_LIST_DIR}/timeline_selection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_overlays.h ${CMAKE_CURRENT_LIST_DIR}/timeline_overlays.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_worker.h ${CMAKE_CURRENT_LIST_DIR}/timeline_worker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slice_details_panel.h ${CMAKE_CURRENT_LIST_DIR}/slice_details_panel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/area_name_model.h ${CMAKE_CURRENT_LIST_DIR}/area_name_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/area_panel.h ${CMAKE_CURRENT_LIST_DIR}/area_panel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_panels.h ${CMAKE_CURRENT_LIST_DIR}/timeline_panels.cpp)
