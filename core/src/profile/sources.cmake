# SPDX-License-Identifier: Apache-2.0
# core/profile: the profiler. Three parts, each listing its own sources:
#   sources_cpu.cmake    the Profiler (schedule, ATen op spans, Fathom's spans, memory timeline)
#   sources_trace.cmake  Chrome/Kineto trace files: streaming writer, reader, merge, validate, summary
#   sources_gpu.cmake    CUPTI through dlopen: activity buffers, record decoding, CPU <-> GPU linking
include(${CMAKE_CURRENT_LIST_DIR}/sources_cpu.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/sources_trace.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/sources_gpu.cmake)
