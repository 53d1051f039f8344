# SPDX-License-Identifier: Apache-2.0
# fathom_trace_generator: realistic multi-rank traces of any size for the timeline's tests and benchmarks
# (trace_generator.h). zlib only, no Fathom code and no Qt, so tests/bench can build it without the test suite.
include_guard(GLOBAL)
find_package(ZLIB REQUIRED)
add_library(fathom_trace_generator STATIC ${CMAKE_CURRENT_LIST_DIR}/trace_generator.cpp
                                          ${CMAKE_CURRENT_LIST_DIR}/trace_generator.h)
target_include_directories(fathom_trace_generator PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(fathom_trace_generator PRIVATE ZLIB::ZLIB Fathom::warnings)
