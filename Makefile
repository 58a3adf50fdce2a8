# gpudoctor — the two commands of the README's quick start:
#   make run    install what the build needs, build, and run `gpudoctor` on this machine
#   make test   install what the tests need, build, and run the whole suite, twice:
#               a normal build and an AddressSanitizer + UndefinedBehaviorSanitizer build;
#               then the Windows build's tests under wine (test-windows)
#   make windows  cross-build build-win/gpudoctor.exe for 64-bit Windows with mingw-w64
#               (docs/windows.md); make test-windows runs its tests under wine
# Other targets: build, asan, fuzz, bench, format, clean. ARGS='...' passes options to run.

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
WIN_BUILD  ?= build-win
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
ARGS       ?=

BUILD_DEPS := cmake make gcc pkg-config libjson-c-dev libpcre2-dev
TEST_DEPS  := $(BUILD_DEPS) libcmocka-dev clang-format
FUZZ_DEPS  := $(BUILD_DEPS) clang libclang-rt-14-dev
# json-c and cmocka for Windows are built from Debian's source packages (scripts/windows-deps.sh).
WIN_DEPS   := cmake make pkg-config gcc-mingw-w64-x86-64 xz-utils
WIN_TEST_DEPS := $(WIN_DEPS) wine wine64
BENCH_DEPS := $(BUILD_DEPS) hyperfine python3-torch time valgrind libtree

.PHONY: all deps build run test test-normal test-asan asan windows test-windows fuzz bench format \
        clean

all: build

deps:
	@scripts/deps.sh $(BUILD_DEPS)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# Exit status 1 means "an error finding", a valid answer; only 2 (usage or internal error) fails.
run: build
	@./$(BUILD)/gpudoctor $(ARGS); s=$$?; [ $$s -le 1 ] || exit $$s

test: test-normal test-asan test-windows

test-normal:
	@scripts/deps.sh $(TEST_DEPS)
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGD_TESTS=ON
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan asan:
	@scripts/deps.sh $(TEST_DEPS)
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGD_TESTS=ON -DGD_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS)

# One command for the Windows release artifact: $(WIN_BUILD)/gpudoctor.exe (static json-c, no DLL
# beyond Windows' own).
windows:
	@scripts/deps.sh $(WIN_DEPS)
	scripts/windows-deps.sh $(WIN_BUILD)/deps/prefix
	cmake -S . -B $(WIN_BUILD) -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake \
	  -DGD_WIN_PREFIX=$(CURDIR)/$(WIN_BUILD)/deps/prefix -DCMAKE_BUILD_TYPE=Release
	cmake --build $(WIN_BUILD) -j $(JOBS) --target gpudoctor
	@echo "gpudoctor: built $(WIN_BUILD)/gpudoctor.exe"

# The mingw build's unit and end-to-end tests and fuzz-corpus replays, run under wine from
# CTest (skipped without wine); the build of `make windows` with GD_TESTS on.
test-windows:
	@scripts/deps.sh $(WIN_TEST_DEPS)
	scripts/windows-deps.sh $(WIN_BUILD)/deps/prefix
	cmake -S . -B $(WIN_BUILD) -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64.cmake \
	  -DGD_WIN_PREFIX=$(CURDIR)/$(WIN_BUILD)/deps/prefix -DCMAKE_BUILD_TYPE=Release -DGD_TESTS=ON
	cmake --build $(WIN_BUILD) -j $(JOBS)
	cd $(WIN_BUILD) && ctest --output-on-failure -j $(JOBS)

fuzz:
	@scripts/deps.sh $(FUZZ_DEPS)
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGD_TESTS=OFF -DGD_FUZZ=ON
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	scripts/fuzz.sh $(FUZZ_BUILD) $(or $(FUZZ_SECONDS),60)

bench: build
	@scripts/deps.sh $(BENCH_DEPS)
	bench/run.sh $(BUILD)

# The sources, not the fixtures (tests/fixtures holds headers as vendors write them, and paths
# with spaces: Program Files).
format:
	git ls-files -z -- '*.c' '*.h' ':!:tests/fixtures/' | xargs -0 clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(WIN_BUILD)
