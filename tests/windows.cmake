# The tests of the mingw build (docs/windows.md), run under wine by tests/wine-run.sh (CTest's
# CMAKE_CROSSCOMPILING_EMULATOR, from cmake/mingw-w64.cmake); skipped (77) without wine.
#
# wine.prefix creates the build's own wine prefix once, before any test (two wine processes
# creating one prefix at the same time step on each other).
add_test(NAME wine.prefix COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/wine-run.sh
                                  ${CMAKE_BINARY_DIR}/wineprefix --init)
set_tests_properties(wine.prefix PROPERTIES FIXTURES_SETUP wine SKIP_RETURN_CODE 77 TIMEOUT 300)

# The unit tests that cannot run here, each with its reason (shown as skipped in every run). The
# others run, and a case among them that needs what Windows lacks skips itself with the reason
# (tests/unit/testutil.h: no FIFOs, no mode bits, no shell scripts; symlinks where the system
# makes none, as wine 8, which answers CreateSymbolicLinkW with success and makes nothing).
set(GD_WIN_SKIPPED_TESTS imports)
set(GD_WIN_SKIPPED_WHY_imports
    "its fake Python interpreters are shell scripts, and no Windows Python is here to import with")

file(GLOB GD_UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_*.c)
foreach(src IN LISTS GD_UNIT_TESTS)
  get_filename_component(name ${src} NAME_WE)
  string(REPLACE "test_" "" module ${name})
  if(module IN_LIST GD_WIN_SKIPPED_TESTS)
    add_test(NAME unit.${module}
             COMMAND sh -c "echo 'unit.${module} not run for Windows: ${GD_WIN_SKIPPED_WHY_${module}}'; exit 77")
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
# The fake CUDA libraries of test_children's version calls, as DLLs (tests/unit/win_fakes.c):
# built here, since wine has no compiler to build them at test time. gone.dll, which cudart_dep
# needs, is kept apart, so that loading cudart_dep fails as a missing dependency does.
set(GD_WIN_FAKES cudart cudart_err cudnn cudnn_crash cudnn_hang cudnn_nosym cudnn_exit cudnn_abort
                 nccl cublas cudnn_junk)
foreach(fake IN LISTS GD_WIN_FAKES ITEMS gone cudart_dep)
  add_library(winfake_${fake} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/unit/win_fakes.c)
  string(TOUPPER ${fake} upper)
  target_compile_definitions(winfake_${fake} PRIVATE FAKE_${upper})
  set(dir ${CMAKE_BINARY_DIR}/tests/winfakes)
  if(fake STREQUAL "gone")
    set(dir ${CMAKE_BINARY_DIR}/tests/winfakes-apart)
  endif()
  set_target_properties(winfake_${fake} PROPERTIES OUTPUT_NAME ${fake} PREFIX ""
                        RUNTIME_OUTPUT_DIRECTORY ${dir})
  add_dependencies(test_children winfake_${fake})
endforeach()
target_link_libraries(winfake_cudart_dep PRIVATE winfake_gone)

# The fake NVIDIA driver as Windows DLLs, from the sources of the Linux fakes (tests/fakes/README.md):
# nvcuda.dll (fakes/cuda.c) and nvml.dll (fakes/nvml.c) in tests/fakes/win. unit.live finds them
# the Windows way: that directory on PATH, or the paths of the driver facts it records itself.
set(GD_WIN_FAKES_DIR ${CMAKE_BINARY_DIR}/tests/fakes/win)
foreach(fake IN ITEMS cuda:nvcuda nvml:nvml)
  string(REPLACE ":" ";" parts ${fake})
  list(GET parts 0 src)
  list(GET parts 1 dll)
  add_library(winfake_${dll} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/fakes/${src}.c)
  set_target_properties(winfake_${dll} PROPERTIES OUTPUT_NAME ${dll} PREFIX ""
                        RUNTIME_OUTPUT_DIRECTORY ${GD_WIN_FAKES_DIR})
  # NVIDIA's functions with NVIDIA's names, without NVIDIA's headers (as in fakes/CMakeLists.txt).
  target_compile_options(winfake_${dll} PRIVATE -Wno-missing-prototypes -Wno-strict-prototypes)
  add_dependencies(test_live winfake_${dll})
endforeach()
set_tests_properties(unit.live PROPERTIES ENVIRONMENT "FAKE_GPUS=2")

# The end-to-end tests (tests/e2e/CMakeLists.txt), their runner built for Windows too.
add_subdirectory(e2e)
