# gpudoctor — the two commands of the README's quick start:
#   make run    install what the build needs, build, and run `gpudoctor` on this machine
#   make test   install what the tests need, build, and run the whole suite, twice:
#               a normal build and an AddressSanitizer + UndefinedBehaviorSanitizer build
# Other targets: build, asan, fuzz, bench, format, clean. ARGS='...' passes options to run.

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
ARGS       ?=

BUILD_DEPS := cmake make gcc pkg-config libjson-c-dev libpcre2-dev
TEST_DEPS  := $(BUILD_DEPS) libcmocka-dev clang-format
FUZZ_DEPS  := $(BUILD_DEPS) clang libclang-rt-14-dev
BENCH_DEPS := $(BUILD_DEPS) hyperfine python3-torch time valgrind libtree

.PHONY: all deps build run test test-normal test-asan asan fuzz bench format clean

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

test: test-normal test-asan

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

fuzz:
	@scripts/deps.sh $(FUZZ_DEPS)
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGD_TESTS=OFF -DGD_FUZZ=ON
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	scripts/fuzz.sh $(FUZZ_BUILD) $(or $(FUZZ_SECONDS),60)

bench: build
	@scripts/deps.sh $(BENCH_DEPS)
	bench/run.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
