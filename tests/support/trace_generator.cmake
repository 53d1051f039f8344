# SPDX-License-Identifier: Apache-2.0
# fathom_trace_generator: realistic multi-rank traces of any size for the timeline's tests and benchmarks
# (trace_generator.h). zlib only, no Fathom code and no Qt, so tests/bench can build it without the test suite.
include_guard(GLOBAL)
find_package(ZLIB REQUIRED)
add_library(fathom_trace_generator STATIC ${CMAKE_CURRENT_LIST_DIR}/trace_generator.cpp
                                          ${CMAKE_CURRENT_LIST_DIR}/trace_generator.h)
target_include_directories(fathom_trace_generator PUBLIC ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(fathom_trace_generator PRIVATE ZLIB::ZLIB Fathom::warnings)

# make_trace OUT.json[.gz] [--events N] [--ranks R] [--seed S]: such a trace as a file, for benchmarks, for trying the
# timeline on big inputs and for tests/studio/screenshots.sh (a 4-rank GPU trace with flows). Built with the tests and
# with the benchmarks, into build/<preset>/bench.
add_executable(make_trace ${CMAKE_CURRENT_LIST_DIR}/make_trace.cpp)
target_link_libraries(make_trace PRIVATE fathom_trace_generator Fathom::warnings)
set_target_properties(make_trace PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bench")
