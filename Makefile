# SPDX-License-Identifier: Apache-2.0
# Builds ebprof: BPF objects (clang, CO-RE against the running kernel's BTF), their
# skeletons (bpftool), protobuf-c code from proto/, and the userspace binary.
# Everything generated goes under build/.

BUILD ?= build
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
PROTOC_C ?= protoc-c
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux

PKGS := libbpf libelf libdw zlib libprotobuf-c
# Headers only: the agent loads libcurl (and libcrypto) with dlopen (src/export/curl_lib.c),
# so record's start-up does not map their 30 dependent libraries.
DLOPEN_PKGS := libcurl
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	  -D_GNU_SOURCE -Isrc -Ibpf -I$(BUILD)/bpf -I$(BUILD)/gen \
	  $(shell pkg-config --cflags $(PKGS) $(DLOPEN_PKGS) 2>/dev/null)
LDLIBS += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -liberty -lpthread -lm -ldl

BPF_SRCS := $(wildcard bpf/*.bpf.c)
SKELS := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.skel.h,$(BPF_SRCS))
# BPF objects that only tests load (the loader's cost ranking, failure handling).
TEST_BPF_SRCS := $(wildcard tests/bpf/*.bpf.c)
TEST_SKELS := $(patsubst tests/bpf/%.bpf.c,$(BUILD)/bpf/%.skel.h,$(TEST_BPF_SRCS))
# Nested .proto files (OTLP's opentelemetry/proto/...) generate into the same tree
# under build/gen, so their generated #includes resolve with -I$(BUILD)/gen.
PROTOS := $(shell find proto -name '*.proto' | sort)
PROTO_SRCS := $(patsubst proto/%.proto,$(BUILD)/gen/%.pb-c.c,$(PROTOS))
PROTO_HDRS := $(PROTO_SRCS:.c=.h)

# The preloaded allocation sampler is a library of its own, never part of ebprof.
PRELOAD_SRCS := src/alloc/preload.c
PRELOAD_LIB := $(BUILD)/libebprof-alloc.so
SRCS := $(filter-out $(PRELOAD_SRCS),$(shell find src -name '*.c' | sort))
OBJS := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRCS)) \
	$(patsubst $(BUILD)/gen/%.c,$(BUILD)/obj/gen/%.o,$(PROTO_SRCS))
LIB_OBJS := $(filter-out $(BUILD)/obj/cli/main.o,$(OBJS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
# Drivers that shell tests run against real servers (tests/otlp): not unit tests, so not
# named test_*, which tests/run.sh runs on their own.
OTLP_TEST_BINS := $(patsubst tests/otlp/%.c,$(BUILD)/tests/%,$(wildcard tests/otlp/*.c))
WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(filter-out %_plugin.c,$(wildcard tests/workloads/*.c))) \
	$(patsubst tests/workloads/%_plugin.c,$(BUILD)/workloads/lib%_plugin.so,$(wildcard tests/workloads/*_plugin.c)) \
	$(patsubst tests/workloads/%.cc,$(BUILD)/workloads/%,$(wildcard tests/workloads/*.cc)) \
	$(if $(shell command -v rustc),$(patsubst tests/workloads/%.rs,$(BUILD)/workloads/%,$(wildcard tests/workloads/*.rs)))

.SECONDARY:
.PHONY: all deps test-deps run test unit check-format format clean
all: $(BUILD)/ebprof $(PRELOAD_LIB)

deps:
	@scripts/install-deps.sh build
test-deps:
	@scripts/install-deps.sh test

# The README's first command: build (installing what is missing) and record 10 s.
run: deps
	$(MAKE) all
	$(BUILD)/ebprof record -d 10 -o ebprof-out

# The README's second command: the whole suite.
test: test-deps
	$(MAKE) all unit-bins workloads
	tests/run.sh

$(BUILD)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

# libbpf's usdt.bpf.h includes <linux/errno.h>, whose asm/ part lives in the multiarch
# directory that -target bpf does not search.
# BPF_EXTRA: extra defines for experimental builds.
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BUILD) -Ibpf \
	      -idirafter /usr/include/$(shell $(CC) -dumpmachine 2>/dev/null) $(BPF_EXTRA)
$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(BUILD)/vmlinux.h $(wildcard bpf/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@
$(BUILD)/bpf/%.bpf.o: tests/bpf/%.bpf.c $(BUILD)/vmlinux.h $(wildcard bpf/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: proto/%.proto
	@mkdir -p $(@D)
	$(PROTOC_C) --proto_path=proto --c_out=$(BUILD)/gen $<

# A generated file includes the headers of the .proto files it imports.
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.o: src/%.c $(SKELS) $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/ebprof: $(OBJS)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# libebprof-alloc.so runs inside other programs: position-independent, only the
# allocator's names and the markers exported, static TLS, every symbol bound at load so
# no lazy binding runs inside malloc (and calls go straight through the GOT), and no
# builtin knowledge of the functions it defines.
PRELOAD_CFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -Isrc \
	-fPIC -fno-plt -fvisibility=hidden -ftls-model=initial-exec -fno-builtin
$(PRELOAD_LIB): $(PRELOAD_SRCS) src/alloc/abi.h
	@mkdir -p $(@D)
	$(CC) $(PRELOAD_CFLAGS) -shared -Wl,-z,now -o $@ $(PRELOAD_SRCS) -lm

unit-bins: $(UNIT_BINS) $(OTLP_TEST_BINS)
$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) tests/unit/harness.h $(TEST_SKELS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit $< $(LIB_OBJS) -o $@ $(LDLIBS)

# The preload test interposes the library's markers: they must be in its dynamic symbols.
$(BUILD)/tests/test_alloc_preload: LDLIBS += -rdynamic -lm
$(BUILD)/tests/test_alloc_preload: $(PRELOAD_LIB)

$(BUILD)/tests/otlp_%: tests/otlp/otlp_%.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(LDLIBS)

# Workloads carry their own flags in a first-line comment: "// cflags: ...".
workloads: $(WORKLOADS)
WL_FLAGS = $$(sed -n '1,5s|^// cflags: ||p' $<)
WL_LIBS = $$(sed -n '1,5s|^// ldflags: ||p' $<)
$(BUILD)/workloads/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(WL_FLAGS) $< -o $@ $(WL_LIBS)
$(BUILD)/workloads/lib%.so: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(WL_FLAGS) $< -o $@ $(WL_LIBS)
$(BUILD)/workloads/%: tests/workloads/%.cc
	@mkdir -p $(@D)
	$(CXX) $(WL_FLAGS) $< -o $@ $(WL_LIBS)
$(BUILD)/workloads/%: tests/workloads/%.rs
	@mkdir -p $(@D)
	rustc $(WL_FLAGS) $< -o $@

FORMATTED = $(SRCS) $(PRELOAD_SRCS) $(wildcard bpf/*.c bpf/*.h src/*/*.h tests/unit/*.[ch] \
	tests/fuzz/*.c tests/otlp/*.c)
check-format:
	@clang-format --dry-run --Werror $(FORMATTED)

format:
	clang-format -i $(FORMATTED)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
