# SPDX-License-Identifier: Apache-2.0
# Compiler settings shared by every Fathom target: warnings (as an interface target), sanitizers, ccache.

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()

# ccache when present. PCH files are only cacheable with these sloppiness settings (ccache manual,
# "Precompiled headers"); passing them through the launcher keeps the user's ccache.conf untouched. The base
# directory makes the cache keys of files under the source tree relative to the build directory, so two build
# directories at the same depth (build/default and the CLI-only build tests/app/tst_cli_only_build makes beside it) share
# every object whose flags agree.
find_program(FATHOM_CCACHE ccache)
if(FATHOM_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      "${CMAKE_COMMAND};-E;env;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;CCACHE_CPP2=1;CCACHE_BASEDIR=${PROJECT_SOURCE_DIR};${FATHOM_CCACHE}")
  message(STATUS "Fathom: using ccache (${FATHOM_CCACHE})")
endif()

option(FATHOM_WARNINGS_AS_ERRORS "Treat compiler warnings in Fathom's own code as errors" OFF)
set(FATHOM_SANITIZE "" CACHE STRING "Sanitizers to build with, e.g. address;undefined")

add_library(fathom_warnings INTERFACE)
add_library(Fathom::warnings ALIAS fathom_warnings)
target_compile_options(fathom_warnings INTERFACE -Wall -Wextra -Wnon-virtual-dtor -Woverloaded-virtual
                                                 -Wno-unused-parameter
                                                 # designated initializers omit defaulted members by design
                                                 -Wno-missing-field-initializers)
if(FATHOM_WARNINGS_AS_ERRORS)
  target_compile_options(fathom_warnings INTERFACE -Werror)
endif()

# Debug builds keep Qt 6's inline functions out of line (QByteArray::append(const char*), ...), and the linker exports
# an executable's copy whenever a library of the process refers to the same name. Debian's LibTorch loads OpenCV's
# highgui and with it Qt 5, whose static initializers then ran Qt 6 code under Qt 5's names: the asan suite's Qt
# tests died at start (SEGV in QByteArray::insert called from libQt5Widgets' init). So Debug executables export
# nothing (cmake/executable_exports.map). Release inlines those functions; its executables export a few dozen names.
add_link_options(
  "$<$<AND:$<CONFIG:Debug>,$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>>:LINKER:--version-script=${PROJECT_SOURCE_DIR}/cmake/executable_exports.map>")

if(FATHOM_SANITIZE)
  list(JOIN FATHOM_SANITIZE "," _fathom_san)
  add_compile_options(-fsanitize=${_fathom_san} -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=${_fathom_san})
endif()

# fathom_core's precompiled header is built with -fPIC (the library is position independent). GCC refuses a PCH
# built with other -fpic/-fpie settings, and executables default to -fPIE, so a target that reuses the header
# (REUSE_FROM fathom_core) compiles with -fPIC too. Qt builds add -fPIC anyway; CLI-only and GPU builds need this.
function(fathom_match_pch_flags target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -fPIC)
  endif()
endfunction()
