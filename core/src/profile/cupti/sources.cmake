# SPDX-License-Identifier: Apache-2.0
# core/profile/cupti: GPU activity through CUPTI (dlopened) and its trace events. docs/profiler-gpu.md. No LibTorch:
# its sources join core/profile's that skip the precompiled header (profile/sources.cmake includes this file).
#   gpu_activity         the normalized record (GpuActivity) and its names
#   gpu_trace_builder    records -> Kineto-layout trace events, linked to CPU ops and collectives (pure logic)
#   cupti_tracer         the public tracer: options, probe, start/stop/flush/drain, external ids
#   cupti_library        libcupti's entry points (dlopen), clock calibration
#   cuda_driver          libcuda's entry points (dlopen): is there a device, deviceProperties
#   cupti_record_decoder CUPTI activity records -> GpuActivity; buffer walking (names go to profile/interned_names)
#   cupti_buffer_pool    the buffers handed to CUPTI
#   symbol_resolver.h    typed dlsym with a list of what is missing (header only)
list(APPEND _fathom_profile_plain_sources
  ${CMAKE_CURRENT_LIST_DIR}/gpu_activity.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu_trace_builder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cupti_tracer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cupti_library.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_driver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cupti_record_decoder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cupti_buffer_pool.cpp)
