# SPDX-License-Identifier: Apache-2.0
# views/timeline: the trace timeline (issue 19) over core's TimelineIndex: the view that paints it from the index's
# per-pixel queries (TimelineView), the loader that builds the index off the GUI thread (TimelineLoader) and the
# time <-> pixel arithmetic (time_coords.h); a run's Timeline page over its stored traces, live (RunTimelinePage);
# the plan lanes (PlanLanePainter), the step alignment tab (StepAlignmentView, StepAlignmentCanvas) and measured vs
# predicted per step (PlanStepModel);
# selection and analysis: the view's selection (timeline_view_selection.cpp, timeline_selection.h), what it draws over
# its rows (timeline_overlays.h), the slice details and area panels and their wiring (timeline_panels.h), with a worker
# for their slow queries; the rows' arrangement (TimelineLayout), stacked counter charts (counter_stack.h), the search
# bar, the minimap and the page composing them with the panels (TimelinePage).
target_sources(fathom_views PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/time_coords.h ${CMAKE_CURRENT_LIST_DIR}/time_coords.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_loader.h ${CMAKE_CURRENT_LIST_DIR}/timeline_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_view.h ${CMAKE_CURRENT_LIST_DIR}/timeline_view.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_timeline_page.h ${CMAKE_CURRENT_LIST_DIR}/run_timeline_page.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_lane_painter.h ${CMAKE_CURRENT_LIST_DIR}/plan_lane_painter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_step_model.h ${CMAKE_CURRENT_LIST_DIR}/plan_step_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/step_alignment_canvas.h ${CMAKE_CURRENT_LIST_DIR}/step_alignment_canvas.cpp
  ${CMAKE_CURRENT_LIST_DIR}/step_alignment_view.h ${CMAKE_CURRENT_LIST_DIR}/step_alignment_view.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_view_selection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_view_paint.cpp ${CMAKE_CURRENT_LIST_DIR}/timeline_view_input.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_selection.h ${CMAKE_CURRENT_LIST_DIR}/timeline_selection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_overlays.h ${CMAKE_CURRENT_LIST_DIR}/timeline_overlays.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_worker.h ${CMAKE_CURRENT_LIST_DIR}/timeline_worker.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slice_details_panel.h ${CMAKE_CURRENT_LIST_DIR}/slice_details_panel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/area_name_model.h ${CMAKE_CURRENT_LIST_DIR}/area_name_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/area_panel.h ${CMAKE_CURRENT_LIST_DIR}/area_panel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_panels.h ${CMAKE_CURRENT_LIST_DIR}/timeline_panels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_layout.h ${CMAKE_CURRENT_LIST_DIR}/timeline_layout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/counter_stack.h ${CMAKE_CURRENT_LIST_DIR}/counter_stack.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_search_bar.h ${CMAKE_CURRENT_LIST_DIR}/timeline_search_bar.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_minimap.h ${CMAKE_CURRENT_LIST_DIR}/timeline_minimap.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_page.h ${CMAKE_CURRENT_LIST_DIR}/timeline_page.cpp)
# The timeline's exports: a range as a Chrome trace (trace::exportTraceRange), the view as PNG or SVG.
target_sources(fathom_views PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/timeline_export.h ${CMAKE_CURRENT_LIST_DIR}/timeline_export.cpp)
