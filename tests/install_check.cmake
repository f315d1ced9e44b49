# CTest's install_runs_from_any_prefix: installs the build into a temporary prefix, moves the whole
# prefix elsewhere, and runs the installed tools from there. They must find libember through their
# RPATH ($ORIGIN/../lib), with no LD_LIBRARY_PATH and no build tree.
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DLIBDIR=lib -P install_check.cmake
file(REMOVE_RECURSE "${WORK_DIR}")
set(first "${WORK_DIR}/first-prefix")
set(moved "${WORK_DIR}/moved-prefix")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${first}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}):\n${out}\n${err}")
endif()
file(RENAME "${first}" "${moved}")
set(ENV{LD_LIBRARY_PATH} "")
foreach(tool ember-train ember-run)
  execute_process(COMMAND "${moved}/bin/${tool}" --help
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${moved}/bin/${tool} --help exited with ${rc}:\n${out}\n${err}")
  endif()
  if(NOT out MATCHES "-h, --help")
    message(FATAL_ERROR "${tool} --help printed no usage listing --help:\n${out}")
  endif()
  message(STATUS "${tool} --help from the moved prefix: ok")
  set(tool_help_${tool} "${out}")
endforeach()
# Every flag ember-run parses is listed (ember-train's are checked by test_train_args).
foreach(flag --nproc-per-node --nnodes --node-rank --master-addr --master-port --standalone
             --stop-timeout)
  if(NOT tool_help_ember-run MATCHES "  ${flag} ")
    message(FATAL_ERROR "ember-run --help does not list ${flag}:\n${tool_help_ember-run}")
  endif()
endforeach()
# ember-info loads libember and prints the build; it must start too.
execute_process(COMMAND "${moved}/bin/ember-info" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${moved}/bin/ember-info exited with ${rc}:\n${out}\n${err}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
