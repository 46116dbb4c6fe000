# SPDX-License-Identifier: Apache-2.0
# Builds ebprof: BPF objects (clang, CO-RE against the running kernel's BTF), their
# skeletons (bpftool), protobuf-c code from proto/, and the userspace binary.
# Everything generated goes under build/ (build-arm64/ for make ARCH=arm64 on x86-64).

CLANG ?= clang
BPFTOOL ?= bpftool
LLVM_STRIP ?= llvm-strip
PROTOC_C ?= protoc-c

# The architecture ebprof is built for and profiles: x86_64 or arm64 (uname -m's aarch64
# too), src/arch/$(ARCH).c and bpf/arch/'s header for it. Another than this machine's is a
# cross build (Debian's aarch64-linux-gnu-gcc and the :arm64 libraries, scripts/install-deps.sh
# cross) into a build folder of its own, build-$(ARCH), against the BTF of Debian's kernel
# for it (scripts/kernels.sh btf).
HOST_ARCH := $(patsubst aarch64,arm64,$(shell uname -m))
ARCH ?= $(HOST_ARCH)
override ARCH := $(patsubst aarch64,arm64,$(ARCH))
ifeq ($(filter x86_64 arm64,$(ARCH)),)
$(error ARCH=$(ARCH) is not supported: ebprof builds for x86_64 and arm64)
endif
# Per architecture: Debian's triplet, its name for the architecture, and the one the
# kernel's headers (and libbpf's bpf_tracing.h) use: __TARGET_ARCH_x86.
TRIPLET_x86_64 := x86_64-linux-gnu
TRIPLET_arm64 := aarch64-linux-gnu
DEB_ARCH_x86_64 := amd64
DEB_ARCH_arm64 := arm64
BPF_TARGET_ARCH_x86_64 := x86
BPF_TARGET_ARCH_arm64 := arm64
TRIPLET := $(TRIPLET_$(ARCH))
ifeq ($(ARCH),$(HOST_ARCH))
BUILD ?= build
CC ?= gcc
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
else
BUILD ?= build-$(ARCH)
ifeq ($(origin CC),default)
CC := $(TRIPLET)-gcc
endif
ifeq ($(origin CXX),default)
CXX := $(TRIPLET)-g++
endif
PKG_CONFIG ?= PKG_CONFIG_LIBDIR=/usr/lib/$(TRIPLET)/pkgconfig:/usr/share/pkgconfig pkg-config
# The kernel whose BTF the cross build's vmlinux.h comes from (scripts/kernels.sh).
CROSS_KERNEL ?= 6.1
VMLINUX_BTF ?= $(BUILD)/vmlinux.btf
endif
PKG_CONFIG ?= pkg-config

PKGS := libbpf libelf libdw zlib libprotobuf-c
# Headers only: the agent loads libcurl (and libcrypto) with dlopen (src/export/curl_lib.c),
# the symbolizer libdebuginfod when DEBUGINFOD_URLS asks for it (src/symbol/debuginfod.c),
# so record's start-up does not map their 30 dependent libraries.
DLOPEN_PKGS := libcurl libdebuginfod
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	  -D_GNU_SOURCE -Isrc -Ibpf -I$(BUILD)/bpf -I$(BUILD)/gen \
	  $(shell $(PKG_CONFIG) --cflags $(PKGS) $(DLOPEN_PKGS) 2>/dev/null)
LDLIBS += $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -liberty -lpthread -lm -ldl

# The core's programs in bpf/, and each runtime's walker in its own folder src/interp/NAME/
# (the runtime's kernel side and userspace side live together; the SPDX line of each file
# says its licence). Skeletons are named by the file: NAME.skel.h.
RUNTIME_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard src/interp/*/*.bpf.c))))
BPF_SRCS := $(wildcard bpf/*.bpf.c $(addsuffix /*.bpf.c,$(RUNTIME_DIRS)))
SKELS := $(addprefix $(BUILD)/bpf/,$(notdir $(BPF_SRCS:.bpf.c=.skel.h)))
# BPF objects that only tests load (the loader's cost ranking, failure handling).
TEST_BPF_SRCS := $(wildcard tests/bpf/*.bpf.c)
TEST_SKELS := $(patsubst tests/bpf/%.bpf.c,$(BUILD)/bpf/%.skel.h,$(TEST_BPF_SRCS))
# Protocol buffers: pprof's profile.proto and google.rpc.Status from proto/, and OTLP's
# official .proto files of one pinned release, fetched into $(BUILD)/proto by
# scripts/otlp-proto.sh. Nested ones (opentelemetry/proto/...) generate into the same
# tree under build/gen, so their generated #includes resolve with -I$(BUILD)/gen.
OTLP_PROTO_DIR := $(BUILD)/proto
OTLP_PROTOS := collector/profiles/v1development/profiles_service \
	profiles/v1development/profiles common/v1/common resource/v1/resource
PROTOS := $(shell find proto -name '*.proto' | sort)
PROTO_SRCS := $(patsubst proto/%.proto,$(BUILD)/gen/%.pb-c.c,$(PROTOS)) \
	$(patsubst %,$(BUILD)/gen/opentelemetry/proto/%.pb-c.c,$(OTLP_PROTOS))
PROTO_HDRS := $(PROTO_SRCS:.c=.h)

# The preloaded allocation sampler is a library of its own, never part of ebprof.
PRELOAD_SRCS := src/preload/preload.c
PRELOAD_LIB := $(BUILD)/libebprof-alloc.so
# Of src/arch/, only ARCH's own file.
OTHER_ARCH_SRCS := $(filter-out src/arch/$(ARCH).c,$(wildcard src/arch/*.c))
SRCS := $(filter-out $(PRELOAD_SRCS) $(OTHER_ARCH_SRCS) %.bpf.c,$(shell find src -name '*.c' | sort))
OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRCS)) \
	$(patsubst $(BUILD)/gen/%.c,$(BUILD)/obj/gen/%.o,$(PROTO_SRCS))
LIB_OBJS := $(filter-out $(BUILD)/obj/cli/main.o,$(OBJS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
# Drivers that shell tests run against real servers (tests/otlp): not unit tests, so not
# named test_*, which tests/run.sh runs on their own.
OTLP_TEST_BINS := $(patsubst tests/otlp/%.c,$(BUILD)/tests/%,$(wildcard tests/otlp/*.c))
# Drivers of tests/kernel/hotspot.sh: ebprof's HotSpot readers run on a live JVM.
HOTSPOT_TEST_BINS := $(patsubst tests/hotspot/%.c,$(BUILD)/tests/%,$(wildcard tests/hotspot/*.c))
# The leak checks of the kernel tests (tests/leaks): the recorder preloaded into ebprof,
# the check, and a BPF user to run beside them.
LEAK_TEST_BINS := $(BUILD)/tests/libbpf_log.so $(BUILD)/tests/bpf_gone $(BUILD)/tests/bpf_churn
WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(filter-out %_plugin.c,$(wildcard tests/workloads/*.c))) \
	$(patsubst tests/workloads/%_plugin.c,$(BUILD)/workloads/lib%_plugin.so,$(wildcard tests/workloads/*_plugin.c)) \
	$(patsubst tests/workloads/%.cc,$(BUILD)/workloads/%,$(wildcard tests/workloads/*.cc)) \
	$(if $(and $(filter $(ARCH),$(HOST_ARCH)),$(shell command -v rustc)),$(patsubst tests/workloads/%.rs,$(BUILD)/workloads/%,$(wildcard tests/workloads/*.rs)))

.SECONDARY:
.PHONY: all deps test-deps run test test-quick test-arm64 test-kernels unit check-format format clean
all: $(BUILD)/ebprof $(PRELOAD_LIB)

deps:
	@scripts/install-deps.sh build
test-deps:
	@scripts/install-deps.sh test

# What needs root runs through sudo when make does not run as root (a fresh Debian's root
# shell has no sudo, and needs none).
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

# The README's first command: build (installing what is missing) and record 10 s.
run: deps
	$(MAKE) all
	$(SUDO) $(BUILD)/ebprof record -d 10 -o ebprof-out

# The README's second command: the whole suite, with the cross build for its arm64 guest
# (scripts/lib.sh: arm64_guest; EBPROF_VM_ARM64=0 leaves both out).
ARM64_GUEST := $(shell . scripts/lib.sh && arm64_guest && echo yes)
test: test-deps
	$(MAKE) all unit-bins workloads
	$(if $(ARM64_GUEST),$(MAKE) ARCH=arm64 all unit-bins workloads)
	$(SUDO) tests/run.sh

# The inner loop, under 5 minutes (tests/README.md): the unit tests, one kernel test per
# area (recording, native unwinding, a runtime, probes, teardown, errors), the format
# check; no kernel matrix, no installs.
QUICK_TESTS := '^unit/' '^kernel/(record_command|unwind|python|probes|teardown|errors)$$' '^format$$'
test-quick:
	$(MAKE) all unit-bins workloads
	$(SUDO) tests/run.sh $(QUICK_TESTS)

# The arm64 guest alone, with more of each test than the suite's batch (tests/README.md:
# its time): the cross build, then the kernel tests' arm64 cases inside Debian's arm64
# kernel under TCG (tests/run.sh: vm-arm64, EBPROF_VM_ARM64=all).
test-arm64: test-deps
	@scripts/install-deps.sh cross
	$(MAKE) all unit-bins workloads
	$(MAKE) ARCH=arm64 all unit-bins workloads
	$(SUDO) env EBPROF_VM_ARM64=all tests/run.sh 'vm-arm64/'

# The kernel tests on the running kernel and inside 5.10, 6.1 and 6.12 (scripts/vm.sh).
test-kernels: test-deps
	$(MAKE) all unit-bins workloads
	$(SUDO) tests/kernels.sh

$(BUILD)/vmlinux.h: $(filter $(BUILD)/%,$(VMLINUX_BTF))
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

# A cross build's kernel BTF: Debian's cloud kernel for ARCH, fetched once (as root).
$(BUILD)/vmlinux.btf:
	@mkdir -p $(@D)
	cp "$$(scripts/kernels.sh btf $(CROSS_KERNEL) $(DEB_ARCH_$(ARCH)))" $@

# libbpf's usdt.bpf.h includes <linux/errno.h>, whose asm/ part lives in the multiarch
# directory that -target bpf does not search.
# BPF_EXTRA: extra defines for experimental builds.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_TARGET_ARCH_$(ARCH)) -I$(BUILD) -Ibpf \
	      -idirafter /usr/include/$(TRIPLET) $(BPF_EXTRA)
# -g is for BTF; the DWARF clang emits beside it is stripped: libbpf reads only BTF, and
# the skeleton would embed (and every start read) 1.5-2x the object for nothing. The
# headers an object includes come from clang's -MMD output (the .d beside it).
define BPF_OBJ_RULE
$$(BUILD)/bpf/%.bpf.o: $(1)/%.bpf.c $$(BUILD)/vmlinux.h
	@mkdir -p $$(@D)
	$$(CLANG) $$(BPF_CFLAGS) -MMD -MP -MF $$(@:.o=.d) -MT $$@ -c $$< -o $$@.tmp
	$$(LLVM_STRIP) -g $$@.tmp -o $$@ && rm -f $$@.tmp
endef
$(foreach d,bpf $(RUNTIME_DIRS),$(eval $(call BPF_OBJ_RULE,$(d))))
$(BUILD)/bpf/%.bpf.o: tests/bpf/%.bpf.c $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -MMD -MP -MF $(@:.o=.d) -c $< -o $@

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: proto/%.proto
	@mkdir -p $(@D)
	$(PROTOC_C) --proto_path=proto --c_out=$(BUILD)/gen $<

$(OTLP_PROTO_DIR)/VERSION: scripts/otlp-proto.sh
	scripts/otlp-proto.sh $(OTLP_PROTO_DIR)
$(BUILD)/gen/opentelemetry/%.pb-c.c $(BUILD)/gen/opentelemetry/%.pb-c.h: $(OTLP_PROTO_DIR)/VERSION
	@mkdir -p $(@D)
	$(PROTOC_C) --proto_path=$(OTLP_PROTO_DIR) --c_out=$(BUILD)/gen \
		$(OTLP_PROTO_DIR)/opentelemetry/$*.proto

# A generated file includes the headers of the .proto files it imports.
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

# Generated headers are order-only: they must exist before the first compile, and after
# it each object depends on exactly the ones it includes (-MMD's .d), so an edit to one
# walker rebuilds the files that include its skeleton, not every object.
GEN_HDRS := $(SKELS) $(PROTO_HDRS) $(BUILD)/gen/flamegraph_js.h $(BUILD)/gen/syscall_names.h
$(BUILD)/obj/%.o: src/%.c | $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# System calls' names by number, from the C library's <sys/syscall.h> for the target
# (the cross compiler's for ARCH=arm64): `ebprof dump` says what a thread waits in. The
# compiler gives each name's number, through the generic table's __NR3264_ aliases too.
$(BUILD)/gen/syscall_names.h: Makefile
	@mkdir -p $(@D)
	{ echo '/* Generated from <sys/syscall.h> by the Makefile. */'; \
	  echo '#include <sys/syscall.h>'; \
	  echo 'static const char *const syscall_names[] = {'; \
	  echo '#include <sys/syscall.h>' | $(CC) -E -dM -x c - | \
	    sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\|__NR3264_[a-z0-9_]*\)$$/\t[__NR_\1] = "\1",/p' | \
	    grep -vE '"(syscalls|arch_specific_syscall)"'; \
	  echo '};'; } > $@.tmp && mv $@.tmp $@

# The flame graph page's viewer is a script file of its own, embedded as a byte array. A
# script inlined in HTML ends at the first "</script" (and "<!--" changes how it parses),
# so the file may contain neither.
$(BUILD)/gen/flamegraph_js.h: src/export/flamegraph.js
	@mkdir -p $(@D)
	@if grep -qiE '</script|<!--' $<; then echo "$<: contains </script or <!--" >&2; exit 1; fi
	{ echo '/* Generated from $< by the Makefile. */'; \
	  echo 'static const char flamegraph_js[] = {'; \
	  od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '0};'; } > $@.tmp && mv $@.tmp $@

$(BUILD)/ebprof: $(OBJS)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# libebprof-alloc.so runs inside other programs: position-independent, only the
# allocator's names and the markers exported, static TLS, every symbol bound at load so
# no lazy binding runs inside malloc (and calls go straight through the GOT), and no
# builtin knowledge of the functions it defines.
PRELOAD_CFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -Isrc \
	-fPIC -fno-plt -fvisibility=hidden -ftls-model=initial-exec -fno-builtin
$(PRELOAD_LIB): $(PRELOAD_SRCS) src/preload/abi.h
	@mkdir -p $(@D)
	$(CC) $(PRELOAD_CFLAGS) -shared -Wl,-z,now -o $@ $(PRELOAD_SRCS) -lm

unit-bins: $(UNIT_BINS) $(OTLP_TEST_BINS) $(HOTSPOT_TEST_BINS) $(LEAK_TEST_BINS)
$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) tests/unit/harness.h $(TEST_SKELS)
	@mkdir -p $(@D) $(BUILD)/obj/tests
	$(CC) $(CFLAGS) -MMD -MP -MF $(BUILD)/obj/tests/$*.d -MT $@ -Itests/unit $< $(LIB_OBJS) \
		-o $@ $(LDLIBS)

# The preload test interposes the library's markers: they must be in its dynamic symbols.
$(BUILD)/tests/test_alloc_preload: LDLIBS += -rdynamic -lm
$(BUILD)/tests/test_alloc_preload: $(PRELOAD_LIB)

# bench/detect.sh's driver: every runtime's detect() on files, as the tracker asks it.
$(BUILD)/bench/detect_cost: bench/detect_cost.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(LDLIBS)

# bench/lines_cost.c's driver, and the same over a symbolizer whose line cache keeps an
# answer for its address alone (-DLINE_SPANS=0), to compare.
$(BUILD)/bench/lines_cost: bench/lines_cost.c tests/unit/native_frames.h $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit $< $(LIB_OBJS) -o $@ $(LDLIBS)
$(BUILD)/bench/lines_cost_per_address: bench/lines_cost.c tests/unit/native_frames.h \
		src/symbol/symbolizer.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DLINE_SPANS=0 -c src/symbol/symbolizer.c -o $(@D)/symbolizer_per_address.o
	$(CC) $(CFLAGS) -Itests/unit $< $(filter-out $(BUILD)/obj/symbol/symbolizer.o,$(LIB_OBJS)) \
		$(@D)/symbolizer_per_address.o -o $@ $(LDLIBS)

$(BUILD)/tests/otlp_%: tests/otlp/otlp_%.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(LDLIBS)
$(BUILD)/tests/hotspot_%: tests/hotspot/hotspot_%.c $(wildcard tests/hotspot/*.h) $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(LDLIBS)

$(BUILD)/tests/libbpf_log.so: tests/leaks/bpf_log.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -Wall -Wextra -fPIC -shared -D_GNU_SOURCE $< -o $@ -ldl
$(BUILD)/tests/bpf_%: tests/leaks/bpf_%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ $(LDLIBS)

# Workloads carry their own flags in a first-line comment: "// cflags: ...".
workloads: $(WORKLOADS)
WL_FLAGS = $$(sed -n '1,5s|^// cflags: ||p' $<)
WL_LIBS = $$(sed -n '1,5s|^// ldflags: ||p' $<)
$(BUILD)/workloads/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(WL_FLAGS) $< -o $@ $(WL_LIBS)
# nofp_maps does nofp_qsort's work, from its source.
$(BUILD)/workloads/nofp_maps: tests/workloads/nofp_qsort.c
$(BUILD)/workloads/lib%.so: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(WL_FLAGS) $< -o $@ $(WL_LIBS)
$(BUILD)/workloads/%: tests/workloads/%.cc
	@mkdir -p $(@D)
	$(CXX) $(WL_FLAGS) $< -o $@ $(WL_LIBS)
$(BUILD)/workloads/%: tests/workloads/%.rs
	@mkdir -p $(@D)
	rustc $(WL_FLAGS) $< -o $@

FORMATTED = $(SRCS) $(PRELOAD_SRCS) $(BPF_SRCS) $(shell find bpf src -name '*.h') \
	$(wildcard tests/unit/*.[ch] tests/fuzz/*.[ch] tests/otlp/*.c tests/hotspot/*.c tests/leaks/*.c)
check-format:
	@clang-format --dry-run --Werror $(FORMATTED)

format:
	clang-format -i $(FORMATTED)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj $(BUILD)/bpf -name '*.d' 2>/dev/null)
