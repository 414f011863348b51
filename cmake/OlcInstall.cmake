# Installation: headers, both libraries, an exported CMake package and a
# relocatable pkg-config file.
install(TARGETS olc olc_static EXPORT olcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
file(GLOB OLC_PUBLIC_HEADERS ${PROJECT_SOURCE_DIR}/host/include/olc/*.h)
install(FILES ${OLC_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/olc)

set(OLC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/olc)
install(EXPORT olcTargets NAMESPACE olc:: DESTINATION ${OLC_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/olcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/olcConfig.cmake INSTALL_DESTINATION ${OLC_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/olcConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/olcConfig.cmake ${PROJECT_BINARY_DIR}/olcConfigVersion.cmake
  DESTINATION ${OLC_CMAKE_DIR})

# pkg-config: prefix derived from the .pc file's own location.
file(RELATIVE_PATH OLC_PC_TO_PREFIX
  ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
configure_file(${PROJECT_SOURCE_DIR}/cmake/olc.pc.in ${PROJECT_BINARY_DIR}/olc.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/olc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
