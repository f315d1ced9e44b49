# libember: one object library per layer of src/, its sources globbed from the layer's folders in
# cmake/EmberLayers.cmake (the folders of EMBER_FOLDER_CHOICES only when the build chooses them),
# all linked into the one shared library `ember`.
#
# A layer's sources see src/ only through ${PROJECT_BINARY_DIR}/layers/<layer>/, a folder of links
# to the folders the table lets it include, so an include of a layer above is "No such file" at
# compile time. (Includes of the file's own folder resolve next to the file.)
include(${CMAKE_CURRENT_LIST_DIR}/EmberLayers.cmake)

# The folders of EMBER_FOLDER_CHOICES that this build compiles, in the table's order
# (EMBER_CHOSEN_FOLDERS), and all the folders the table names (EMBER_CHOICE_FOLDERS).
set(EMBER_CHOSEN_FOLDERS "")
set(EMBER_CHOICE_FOLDERS "")
foreach(row ${EMBER_FOLDER_CHOICES})
  string(REGEX MATCHALL "[^ ]+" fields "${row}")
  list(POP_FRONT fields variable when_true when_false)
  foreach(folder ${when_true} ${when_false})
    if(folder STREQUAL "-")
      continue()
    endif()
    ember_layer_of(${folder} layer)
    if(NOT layer OR NOT IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/src/${folder})
      message(FATAL_ERROR "EMBER_FOLDER_CHOICES names src/${folder}, which is not a folder of a "
                          "layer of cmake/EmberLayers.cmake")
    endif()
    list(APPEND EMBER_CHOICE_FOLDERS ${folder})
  endforeach()
  if(${variable})
    list(APPEND EMBER_CHOSEN_FOLDERS ${when_true})
  else()
    list(APPEND EMBER_CHOSEN_FOLDERS ${when_false})
  endif()
endforeach()
list(REMOVE_ITEM EMBER_CHOSEN_FOLDERS "-")

# Every folder of src/ with sources is built: a folder of the layer table (cuda_sim: its own
# library) or of EMBER_FOLDER_CHOICES. A new folder that neither lists would otherwise be skipped.
file(GLOB_RECURSE EMBER_ALL_SOURCES RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}/src
  ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cu)
foreach(source ${EMBER_ALL_SOURCES})
  get_filename_component(folder ${source} DIRECTORY)
  ember_layer_folder_of(${source} listed)
  if(NOT folder STREQUAL listed AND NOT folder IN_LIST EMBER_CHOICE_FOLDERS)
    message(FATAL_ERROR "src/${source} is in no folder that cmake/EmberLayers.cmake builds: "
                        "list src/${folder} in a layer (or in EMBER_FOLDER_CHOICES)")
  endif()
endforeach()

# The sources of `layer`: its folders that every build compiles, in one glob (sorted by path),
# then its chosen folders in the order of EMBER_FOLDER_CHOICES. Split in two lists: the sources of
# EMBER_CUDA_HEADER_FOLDERS (out_cuda) and the rest (out_plain).
function(ember_layer_sources layer out_plain out_cuda)
  set(always "")
  foreach(folder ${EMBER_LAYER_${layer}_FOLDERS})
    if(NOT folder IN_LIST EMBER_CHOICE_FOLDERS)
      list(APPEND always src/${folder}/*.cpp src/${folder}/*.cu)
    endif()
  endforeach()
  file(GLOB sources CONFIGURE_DEPENDS ${always})
  foreach(folder ${EMBER_CHOSEN_FOLDERS})
    ember_layer_of(${folder} owner)
    if(owner STREQUAL layer)
      file(GLOB chosen CONFIGURE_DEPENDS src/${folder}/*.cpp src/${folder}/*.cu)
      list(APPEND sources ${chosen})
    endif()
  endforeach()
  set(plain "")
  set(cuda "")
  foreach(source ${sources})
    file(RELATIVE_PATH rel ${CMAKE_CURRENT_SOURCE_DIR}/src ${source})
    get_filename_component(folder ${rel} DIRECTORY)
    if(folder IN_LIST EMBER_CUDA_HEADER_FOLDERS)
      list(APPEND cuda ${source})
    else()
      list(APPEND plain ${source})
    endif()
  endforeach()
  set(${out_plain} ${plain} PARENT_SCOPE)
  set(${out_cuda} ${cuda} PARENT_SCOPE)
endfunction()

# The folder of links that is `layer`'s view of src/ (links left from an older table removed).
function(ember_layer_link_folder layer dir)
  ember_layer_visible_folders(${layer} visible)
  file(MAKE_DIRECTORY ${dir})
  file(GLOB present RELATIVE ${dir} LIST_DIRECTORIES true ${dir}/*)
  foreach(name ${present})
    if(NOT name IN_LIST visible)
      file(REMOVE ${dir}/${name})
    endif()
  endforeach()
  foreach(folder ${visible})
    # A nested folder (cuda_sim/backend) is reached through the include path, not by name.
    if(NOT folder MATCHES "/" AND NOT IS_SYMLINK ${dir}/${folder})
      file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR}/src/${folder} ${dir}/${folder} SYMBOLIC)
    endif()
  endforeach()
endfunction()

# ember_<layer> (and ember_<layer>_cuda for its sources that include CUDA headers), linked into
# `ember`. A layer without sources (kernel_math: headers only) gets neither.
function(ember_add_layer layer)
  ember_layer_sources(${layer} plain cuda)
  if(NOT plain AND NOT cuda)
    return()
  endif()
  set(dir ${PROJECT_BINARY_DIR}/layers/${layer})
  ember_layer_link_folder(${layer} ${dir})
  foreach(part plain cuda)
    if(NOT ${part})
      continue()
    endif()
    set(target ember_${layer})
    if(part STREQUAL "cuda")
      set(target ember_${layer}_cuda)
      if(EMBER_CUDA_SIM)  # .cu files compiled as C++ (cmake/EmberCuda.cmake)
        set(kernels ${cuda})
        list(FILTER kernels INCLUDE REGEX "\\.cu$")
        set_source_files_properties(${kernels} PROPERTIES LANGUAGE CXX
          COMPILE_OPTIONS "${EMBER_SIM_KERNEL_OPTIONS}")
      endif()
    endif()
    add_library(${target} OBJECT ${${part}})
    target_include_directories(${target} PRIVATE ${dir})
    target_link_libraries(${target} PRIVATE ember_build_settings)
    if(part STREQUAL "cuda")
      target_link_libraries(${target} PRIVATE ember_cuda_settings)
    endif()
    set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
    target_link_libraries(ember PRIVATE ${target})
  endforeach()
endfunction()

add_library(ember SHARED)
add_library(Ember::ember ALIAS ember)
target_include_directories(ember PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:include>)
target_link_libraries(ember PRIVATE ember_build_settings ember_cuda_settings)
set_target_properties(ember PROPERTIES CUDA_SEPARABLE_COMPILATION OFF VERSION ${PROJECT_VERSION})

foreach(layer ${EMBER_LAYERS})
  if(NOT EMBER_LAYER_${layer}_OWN_LIBRARY)
    ember_add_layer(${layer})
  endif()
endforeach()
# The CUDA sources of the backends find the build's half (device_launch.cuh, kernel_assert.cuh)
# through the include path.
if(EMBER_CUDA_TARGET_DIR)
  target_include_directories(ember_backends_cuda PRIVATE ${EMBER_CUDA_TARGET_DIR})
endif()
