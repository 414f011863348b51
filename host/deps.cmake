# Third-party dependencies of the host modules, all from Debian packages.
find_package(PkgConfig REQUIRED)
if(NOT WIN32)
  pkg_check_modules(INIH REQUIRED IMPORTED_TARGET inih)
  set(OLC_CONFIG_LIBS PkgConfig::INIH)
endif()
