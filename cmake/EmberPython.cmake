# The Python bindings (python/, docs/python.md): built when Python's headers and nanobind are
# found, for Debian's /usr/bin/python3 by default (the one with numpy and PyTorch 1.13), not the
# first python3 on PATH. Sets EMBER_PYTHON and EMBER_PYTHON_INSTALL_DIR.
if(NOT DEFINED Python_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the bindings are built for")
endif()
find_package(Python 3.8 COMPONENTS Interpreter Development.Module QUIET)
set(EMBER_PYTHON_DEFAULT OFF)
if(Python_FOUND)
  execute_process(COMMAND ${Python_EXECUTABLE} -m nanobind --cmake_dir
    OUTPUT_VARIABLE EMBER_NANOBIND_DIR OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  find_package(nanobind 2 CONFIG QUIET HINTS ${EMBER_NANOBIND_DIR})
  if(nanobind_FOUND AND (EMBER_SANITIZE OR EMBER_TSAN))
    # An ASan-instrumented extension cannot be loaded into the uninstrumented interpreter.
    message(STATUS "Ember Python bindings: off by default under a sanitizer")
  elseif(nanobind_FOUND)
    set(EMBER_PYTHON_DEFAULT ON)
  else()
    message(STATUS "Ember Python bindings: nanobind not found (scripts/install-deps installs it)")
  endif()
else()
  message(STATUS "Ember Python bindings: Python 3 development files not found (apt-get install python3-dev)")
endif()
option(EMBER_PYTHON "Build the Python package ember (python/)" ${EMBER_PYTHON_DEFAULT})
if(EMBER_PYTHON)
  if(NOT nanobind_FOUND)
    message(FATAL_ERROR "EMBER_PYTHON=ON needs Python 3 development files and nanobind 2")
  endif()
  # Where the package goes under the prefix: the interpreter's own site directory, relative to its
  # prefix (Debian: lib/python3/dist-packages, on the path when the prefix is /usr).
  execute_process(COMMAND ${Python_EXECUTABLE} -c
    "import os, sys, sysconfig; print(os.path.relpath(sysconfig.get_path('platlib', 'deb_system' if 'deb_system' in sysconfig.get_scheme_names() else None), sys.prefix))"
    OUTPUT_VARIABLE EMBER_PY_SITE OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(EMBER_PYTHON_INSTALL_DIR ${EMBER_PY_SITE} CACHE STRING
    "Where cmake --install puts the Python package, relative to the prefix")
  message(STATUS "Ember Python bindings: ON (${Python_EXECUTABLE}, nanobind ${nanobind_VERSION}, installs to PREFIX/${EMBER_PYTHON_INSTALL_DIR})")
else()
  message(STATUS "Ember Python bindings: OFF")
endif()
