# The tests of the mingw build (docs/windows.md), run under wine by tests/wine-run.sh (CTest's
# CMAKE_CROSSCOMPILING_EMULATOR, from cmake/mingw-w64.cmake); skipped (77) without wine.
#
# wine.prefix creates the build's own wine prefix once, before any test (two wine processes
# creating one prefix at the same time step on each other).
add_test(NAME wine.prefix COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/wine-run.sh
                                  ${CMAKE_BINARY_DIR}/wineprefix --init)
set_tests_properties(wine.prefix PROPERTIES FIXTURES_SETUP wine SKIP_RETURN_CODE 77 TIMEOUT 300)

# The unit tests that build fixtures with POSIX calls (tests/unit/testutil.h: mkdtemp, symlink,
# mkfifo, nftw; elfbuild.h; fork and rlimits in test_children; POSIX <regex.h> in test_explain,
# which checks every signature against the system's ERE engine) do not build for Windows yet:
# they are registered as skipped, with the reason, so that the gap shows in every run.
set(GD_WIN_POSIX_ONLY_TESTS
    advise check children elf explain explain_join fatbin frameworks glob imports kb kb_compat
    kb_pick ldcache ldconf live loader pyenvs record rules smoke sysroot winload)
set(GD_WIN_POSIX_ONLY_WHY "its fixtures are built with POSIX calls (testutil.h, fork, regex.h)")

file(GLOB GD_UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_*.c)
foreach(src IN LISTS GD_UNIT_TESTS)
  get_filename_component(name ${src} NAME_WE)
  string(REPLACE "test_" "" module ${name})
  if(module IN_LIST GD_WIN_POSIX_ONLY_TESTS)
    add_test(NAME unit.${module}
             COMMAND sh -c "echo 'unit.${module} not built for Windows: ${GD_WIN_POSIX_ONLY_WHY}'; exit 77")
    set_tests_properties(unit.${module} PROPERTIES SKIP_RETURN_CODE 77)
    continue()
  endif()
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE gdlib PkgConfig::CMOCKA)
  target_compile_definitions(${name} PRIVATE
    GD_SOURCE_DIR="${CMAKE_SOURCE_DIR}" GD_BINARY_DIR="${CMAKE_BINARY_DIR}")
  # test_os starts itself again as a child program: it is told its own path.
  set(args)
  if(module STREQUAL "os")
    set(args $<TARGET_FILE:${name}>)
  endif()
  add_test(NAME unit.${module} COMMAND ${name} ${args})
  set_tests_properties(unit.${module} PROPERTIES SKIP_RETURN_CODE 77 FIXTURES_REQUIRED wine)
endforeach()

# The Windows DLL search emulator against wine's own loader: DLL arrangements built with
# mingw-w64 in the prefix's drive C:, loaded by winload_probe and asked of gpudoctor.exe which
# (tests/loader/compare-wine.sh). Skipped (77) without wine.
add_executable(winload_probe ${CMAKE_CURRENT_SOURCE_DIR}/loader/winload-probe.c)
target_compile_options(winload_probe PRIVATE -municode)
target_link_options(winload_probe PRIVATE -municode)
target_link_libraries(winload_probe PRIVATE psapi)
add_test(NAME loader.wine-search
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/loader/compare-wine.sh ${CMAKE_BINARY_DIR}/wineprefix
                 $<TARGET_FILE:gpudoctor> $<TARGET_FILE:winload_probe>)
set_tests_properties(loader.wine-search PROPERTIES SKIP_RETURN_CODE 77 FIXTURES_REQUIRED wine)
