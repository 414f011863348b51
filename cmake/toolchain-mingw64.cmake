# Cross-compiling for 64-bit Windows with Debian's mingw-w64
# (apt-get install gcc-mingw-w64-x86-64):
#   cmake -S . -B build-mingw -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-mingw64.cmake \
#         -DOLC_WITHOUT_CONFIG=ON [-DBUILD_TESTING=ON]
# OLC_WITHOUT_CONFIG builds every module but config (inih has
# no mingw build here), the static library and the plugins as .dll files;
# BUILD_TESTING adds the programs of tests/windows.  OLC_STORE_ONLY builds
# the store alone (util, record, format, persist, store).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(OLC_MINGW_PREFIX x86_64-w64-mingw32 CACHE STRING "mingw-w64 target triplet")
find_program(CMAKE_C_COMPILER NAMES ${OLC_MINGW_PREFIX}-gcc-posix ${OLC_MINGW_PREFIX}-gcc
  REQUIRED)
find_program(CMAKE_RC_COMPILER NAMES ${OLC_MINGW_PREFIX}-windres)
find_program(CMAKE_AR NAMES ${OLC_MINGW_PREFIX}-ar)
find_program(CMAKE_RANLIB NAMES ${OLC_MINGW_PREFIX}-ranlib)

set(CMAKE_FIND_ROOT_PATH /usr/${OLC_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Windows 7 API level (SRW locks, InitOnce, GetTickCount64,
# GetFinalPathNameByHandleW); a static libgcc so the .exe runs on its own.
add_compile_definitions(_WIN32_WINNT=0x0601)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc")
