# Cross-compiling gpudoctor.exe for 64-bit Windows with Debian's mingw-w64
# (gcc-mingw-w64-x86-64). Used by `make windows` (scripts/windows-build.sh):
#   cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake
# Dependencies built for Windows (json-c, cmocka: scripts/windows-deps.sh) are found under
# GD_WIN_PREFIX; tests run under wine (CMAKE_CROSSCOMPILING_EMULATOR) when it is installed.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(GD_MINGW_TRIPLET x86_64-w64-mingw32)

set(CMAKE_C_COMPILER ${GD_MINGW_TRIPLET}-gcc)
set(CMAKE_RC_COMPILER ${GD_MINGW_TRIPLET}-windres)
set(CMAKE_AR ${GD_MINGW_TRIPLET}-ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${GD_MINGW_TRIPLET}-ranlib CACHE FILEPATH "")

set(GD_WIN_PREFIX "" CACHE PATH "Where the Windows builds of json-c and cmocka are installed")
set(CMAKE_FIND_ROOT_PATH /usr/${GD_MINGW_TRIPLET} ${GD_WIN_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config must see only the Windows libraries, never the host's .pc files.
if(GD_WIN_PREFIX)
  set(ENV{PKG_CONFIG_LIBDIR} "${GD_WIN_PREFIX}/lib/pkgconfig")
  set(ENV{PKG_CONFIG_PATH} "")
  set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
endif()

# Windows programs run under wine from CTest, in a wine prefix of the build's own; without wine
# tests/wine-run.sh exits 77 and they show as skipped.
set(CMAKE_CROSSCOMPILING_EMULATOR sh ${CMAKE_CURRENT_LIST_DIR}/../tests/wine-run.sh
                                  ${CMAKE_BINARY_DIR}/wineprefix)
