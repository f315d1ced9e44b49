# `cmake --install`: libember (and libember_cuda_sim on SIM builds), include/ember, and the package
# that find_package(Ember) reads (Ember::ember).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS ember EXPORT EmberTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(EMBER_CUDA_SIM)
  install(TARGETS ember_cuda_sim EXPORT EmberTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(DIRECTORY include/ember DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT EmberTargets NAMESPACE Ember:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Ember)
configure_package_config_file(cmake/EmberConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/EmberConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Ember)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/EmberConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/EmberConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/EmberConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Ember)
