# Installation: headers, both libraries, an exported CMake package and
# relocatable pkg-config files.
#
# The package has three export sets, so that each target's dependencies are
# looked up only when that target is asked for (cmake/olcConfig.cmake.in):
#   olcPluginApiTargets  olc::plugin_api (plugin-api/CMakeLists.txt): none
#   olcTargets           olc::olc, the shared library: none (all private)
#   olcStaticTargets     olc::olc_static: Threads, inih, OpenSSL libcrypto
install(TARGETS olc EXPORT olcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS olc_static EXPORT olcStaticTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
file(GLOB OLC_PUBLIC_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/host/include/olc/*.h
  ${PROJECT_SOURCE_DIR}/host/include/olc/*.hpp)
install(FILES ${OLC_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/olc)

set(OLC_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/olc)
foreach(set IN ITEMS olcPluginApiTargets olcTargets olcStaticTargets)
  install(EXPORT ${set} NAMESPACE olc:: DESTINATION ${OLC_CMAKE_DIR})
endforeach()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/olcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/olcConfig.cmake INSTALL_DESTINATION ${OLC_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/olcConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/olcConfig.cmake ${PROJECT_BINARY_DIR}/olcConfigVersion.cmake
  DESTINATION ${OLC_CMAKE_DIR})

# pkg-config: prefix derived from the .pc file's own location.  olc.pc is
# the host library; olc-plugin-api.pc only the plugin header (no Requires).
file(RELATIVE_PATH OLC_PC_TO_PREFIX
  ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
# "../../" would make every path "<pcfiledir>/../..//include".
string(REGEX REPLACE "/+$" "" OLC_PC_TO_PREFIX "${OLC_PC_TO_PREFIX}")
foreach(pc IN ITEMS olc olc-plugin-api)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# The plugin author's kit: the template plugin's sources with its standalone
# CMakeLists.txt (find_package(olc COMPONENTS plugin_api)), and the ABI guide.
set(OLC_TEMPLATE_DIR ${PROJECT_SOURCE_DIR}/examples/plugin_template)
if(EXISTS ${OLC_TEMPLATE_DIR}/CMakeLists.txt)
  file(GLOB OLC_TEMPLATE_FILES ${OLC_TEMPLATE_DIR}/*.c ${OLC_TEMPLATE_DIR}/*.h
    ${OLC_TEMPLATE_DIR}/*.ini ${OLC_TEMPLATE_DIR}/*.md ${OLC_TEMPLATE_DIR}/CMakeLists.txt)
  install(FILES ${OLC_TEMPLATE_FILES}
    DESTINATION ${CMAKE_INSTALL_DATADIR}/onnx-light/plugin_template)
  install(FILES ${PROJECT_SOURCE_DIR}/plugin-api/README.md
    DESTINATION ${CMAKE_INSTALL_DATADIR}/onnx-light/plugin_template RENAME PLUGIN-API.md)
endif()

# The guides: README.md and docs/ (README's links into docs/ keep working),
# in share/doc/onnx-light beside the man page's share/man.
set(OLC_DOC_INSTALL_DIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/onnx-light)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md
  DESTINATION ${OLC_DOC_INSTALL_DIR})
file(GLOB OLC_DOC_FILES ${PROJECT_SOURCE_DIR}/docs/*.md ${PROJECT_SOURCE_DIR}/docs/*.png)
install(FILES ${OLC_DOC_FILES} DESTINATION ${OLC_DOC_INSTALL_DIR}/docs)

# The runtime example, a standalone project (its CMakeLists.txt finds the
# installed package when it is not built inside the olc tree).
set(OLC_RUNTIME_EXAMPLE_DIR ${PROJECT_SOURCE_DIR}/examples/runtime_integration)
if(EXISTS ${OLC_RUNTIME_EXAMPLE_DIR}/CMakeLists.txt)
  file(GLOB OLC_RUNTIME_EXAMPLE_FILES ${OLC_RUNTIME_EXAMPLE_DIR}/*.c
    ${OLC_RUNTIME_EXAMPLE_DIR}/*.h ${OLC_RUNTIME_EXAMPLE_DIR}/*.md
    ${OLC_RUNTIME_EXAMPLE_DIR}/CMakeLists.txt)
  install(FILES ${OLC_RUNTIME_EXAMPLE_FILES}
    DESTINATION ${CMAKE_INSTALL_DATADIR}/onnx-light/runtime_integration)
endif()
