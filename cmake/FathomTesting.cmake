# SPDX-License-Identifier: Apache-2.0
# fathom_add_test(NAME SOURCES a.cpp ... [LIBS ...] [TORCH] [GUI] [TIMEOUT s] [COST s] [LABELS ...])
# One Qt Test executable per test, registered with CTest. TORCH reuses fathom_core's LibTorch precompiled
# header (a test that includes LibTorch would otherwise spend ~20 s parsing it). GUI tests run on the
# offscreen platform. COST: the test's seconds in a cold CI run (2 cores); CTest starts the costliest first, which
# it cannot learn on a fresh clone (no timing history): without it the longest test started last and ran alone.
# FATHOM_TEST_TIMEOUT_SCALE multiplies every TIMEOUT (and Qt Test's watchdog): the asan preset sets it, since a test
# runs 2-5 times slower under the sanitizers and a per-test TIMEOUT overrides the test preset's own.
set(FATHOM_TEST_TIMEOUT_SCALE 1 CACHE STRING "Multiplier of every test's TIMEOUT (a whole number; 4 under the asan preset)")
if(NOT FATHOM_TEST_TIMEOUT_SCALE MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "FATHOM_TEST_TIMEOUT_SCALE must be a whole number of at least 1, got '${FATHOM_TEST_TIMEOUT_SCALE}'")
endif()

function(fathom_add_test name)
  cmake_parse_arguments(ARG "TORCH;GUI" "TIMEOUT;COST" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE Qt6::Test Fathom::warnings ${ARG_LIBS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  target_compile_definitions(${name} PRIVATE
    FATHOM_SOURCE_DIR="${PROJECT_SOURCE_DIR}" FATHOM_BINARY_DIR="${PROJECT_BINARY_DIR}"
    FATHOM_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests")
  if(ARG_TORCH)
    target_link_libraries(${name} PRIVATE Fathom::torch)
    target_precompile_headers(${name} REUSE_FROM fathom_core)
    fathom_match_pch_flags(${name})
    # AUTOMOC's mocs_compilation.cpp is empty for these tests (each includes its own .moc): loading the LibTorch
    # header for it cost about as much as compiling the test (up to a minute per test on 2 busy cores).
    set_source_files_properties("${CMAKE_CURRENT_BINARY_DIR}/${name}_autogen/mocs_compilation.cpp"
                                PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  math(EXPR ARG_TIMEOUT "${ARG_TIMEOUT} * ${FATHOM_TEST_TIMEOUT_SCALE}")
  add_test(NAME ${name} COMMAND ${name})
  # Qt Test's watchdog kills a test function after 300 s by default; align it with the CTest timeout.
  math(EXPR _watchdog_ms "${ARG_TIMEOUT} * 1000")
  set(_env "QT_QPA_PLATFORM=offscreen" "FATHOM_BIN_DIR=${PROJECT_BINARY_DIR}/bin" "QTEST_FUNCTION_TIMEOUT=${_watchdog_ms}")
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT} ENVIRONMENT "${_env}" LABELS "${ARG_LABELS}")
  if(ARG_COST)
    set_tests_properties(${name} PROPERTIES COST ${ARG_COST})
  endif()
endfunction()
