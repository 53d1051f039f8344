# SPDX-License-Identifier: Apache-2.0
# The README's two commands share one build tree (issue 17): `installer/bootstrap.sh run` and `... test` configure
# the same preset, that preset makes warnings errors (what CI must keep), and `.ci/run` is the test command.
# Run by CTest as tst_one_build_tree: cmake -DSOURCE_DIR=<repo> -P check_one_build_tree.cmake
cmake_minimum_required(VERSION 3.25)

file(READ "${SOURCE_DIR}/installer/bootstrap.sh" bootstrap)

# The preset a mode's case branch configures: the text from "  <mode>)" to its ";;".
function(preset_of mode out)
  string(FIND "${bootstrap}" "\n  ${mode})\n" begin)
  if(begin EQUAL -1)
    message(FATAL_ERROR "installer/bootstrap.sh has no '${mode})' branch")
  endif()
  string(SUBSTRING "${bootstrap}" ${begin} -1 branch)
  string(FIND "${branch}" ";;" end)
  string(SUBSTRING "${branch}" 0 ${end} branch)
  string(REGEX MATCHALL "cmake --preset [A-Za-z0-9_-]+" configures "${branch}")
  list(LENGTH configures count)
  if(NOT count EQUAL 1)
    message(FATAL_ERROR "bootstrap.sh ${mode}: expected one 'cmake --preset', found ${count}: ${configures}")
  endif()
  string(REPLACE "cmake --preset " "" preset "${configures}")
  set(${out} "${preset}" PARENT_SCOPE)
endfunction()

preset_of(run run_preset)
preset_of(test test_preset)
if(NOT run_preset STREQUAL test_preset)
  message(FATAL_ERROR "bootstrap.sh run configures preset '${run_preset}' but test configures '${test_preset}': "
                      "two build trees, so running both compiles Fathom twice")
endif()

file(READ "${SOURCE_DIR}/CMakePresets.json" presets)
string(JSON count LENGTH "${presets}" configurePresets)
math(EXPR last "${count} - 1")
set(werror "")
foreach(i RANGE ${last})
  string(JSON name GET "${presets}" configurePresets ${i} name)
  if(name STREQUAL run_preset)
    string(JSON werror ERROR_VARIABLE missing GET "${presets}" configurePresets ${i} cacheVariables
           FATHOM_WARNINGS_AS_ERRORS)
  endif()
endforeach()
if(NOT werror STREQUAL "ON")
  message(FATAL_ERROR "preset '${run_preset}' does not set FATHOM_WARNINGS_AS_ERRORS=ON: CI would let warnings pass")
endif()

file(READ "${SOURCE_DIR}/.ci/run" ci)
if(NOT ci MATCHES "\ninstaller/bootstrap.sh test\n")
  message(FATAL_ERROR ".ci/run does not run 'installer/bootstrap.sh test'")
endif()
message(STATUS "one build tree: both README commands configure preset '${run_preset}' (warnings are errors)")
