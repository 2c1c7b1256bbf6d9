# nvscale — build, test, install.
#
#   make                 build ./nvscale
#   make check           build and run the whole test suite (GPU tests run only where a GPU is)
#   make run             build and run nvscale on this machine (GPUs if present, else the MPI host backend)
#   make deps            install missing build dependencies with apt (Debian/Ubuntu, as root)
#   make install PREFIX=/opt/nvscale
#   make check SAN=address,undefined   the same suite with the C code built under ASan/UBSan (objects in
#                        build/san/; CUDA objects are built without sanitizers); any finding fails the test
#   make fuzz FUZZ_S=N   build the libFuzzer harnesses of fuzz/ with clang and run each N seconds (fuzz/README.md)
#
# Where the libraries are (override on the command line):
#   CUDA_HOME   CUDA toolkit (nvcc, cudart, cuBLAS)             default /usr/local/cuda
#   NCCL_HOME   NCCL headers and library                        default CUDA_HOME if it has nccl.h, else /usr
#   MPI_HOME    MPI installation; empty = ask `mpicc --showme`
#   HWLOC_HOME  hwloc; empty = pkg-config hwloc
#   JANSSON_HOME  jansson (JSON); empty = pkg-config jansson, else .deps/jansson (static, carried to machines
#               that lack it)
#   NVCC_GENCODE  GPU targets: default A100 (sm_80), RTX 3090/A6000 (sm_86), L40 (sm_89), H100/H200 (sm_90),
#               plus compute_90 PTX for newer GPUs

CUDA_HOME ?= /usr/local/cuda
NCCL_HOME ?= $(if $(wildcard $(CUDA_HOME)/include/nccl.h),$(CUDA_HOME),/usr)
MPI_HOME ?=
HWLOC_HOME ?=
JANSSON_HOME ?=
PREFIX ?= /usr/local
NVCC ?= $(CUDA_HOME)/bin/nvcc
CC ?= gcc
NVCC_GENCODE ?= -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_86,code=sm_86 \
                -gencode=arch=compute_89,code=sm_89 -gencode=arch=compute_90,code=sm_90 \
                -gencode=arch=compute_90,code=compute_90

# --- dependency flags -------------------------------------------------------------------------------------
CUDA_LIBDIR := $(firstword $(wildcard $(CUDA_HOME)/lib64 $(CUDA_HOME)/lib))
NCCL_LIBDIR := $(firstword $(wildcard $(NCCL_HOME)/lib64 $(NCCL_HOME)/lib /usr/lib/x86_64-linux-gnu))

ifeq ($(MPI_HOME),)
MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS := $(shell mpicc --showme:link 2>/dev/null)
else
MPI_CFLAGS := -I$(MPI_HOME)/include
MPI_LIBS := -L$(MPI_HOME)/lib -Wl,-rpath,$(MPI_HOME)/lib -lmpi
endif

ifeq ($(HWLOC_HOME),)
HWLOC_CFLAGS := $(shell pkg-config --cflags hwloc 2>/dev/null)
HWLOC_LIBS := $(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc)
else
HWLOC_CFLAGS := -I$(HWLOC_HOME)/include
HWLOC_LIBS := -L$(HWLOC_HOME)/lib -Wl,-rpath,$(HWLOC_HOME)/lib -lhwloc
endif

ifeq ($(JANSSON_HOME),)
ifeq ($(shell pkg-config --exists jansson 2>/dev/null && echo yes),yes)
JANSSON_CFLAGS := $(shell pkg-config --cflags jansson)
JANSSON_LIBS := $(shell pkg-config --libs jansson)
else
JANSSON_HOME := .deps/jansson
endif
endif
ifneq ($(JANSSON_HOME),)
JANSSON_CFLAGS := -I$(JANSSON_HOME)/include
JANSSON_LIBS := $(JANSSON_HOME)/lib/libjansson.a
endif

# CBLAS for the host training step's GEMMs (the MPI host backend on machines without GPUs): OpenBLAS through
# pkg-config when present (tools/install-deps.sh installs libopenblas-dev); without it the host step falls back to
# a plain C loop and says so. BLAS=none forces the fallback.
BLAS ?= $(if $(shell pkg-config --exists openblas 2>/dev/null && echo yes),openblas,none)
ifeq ($(BLAS),openblas)
BLAS_CFLAGS := $(shell pkg-config --cflags openblas) -DNVS_HAVE_OPENBLAS=1
BLAS_LIBS := $(shell pkg-config --libs openblas)
endif

# V=1 prints every compiler command; by default one line per file
V ?= 0
ifeq ($(V),0)
Q = @echo "  CC    $<";
else
Q =
endif

VERSION := 0.1.0
# The commit built: from .nvs-rev when present (written next to a copy of the tree that travels to a GPU machine:
# `git describe --always --dirty > .nvs-rev`; such a copy may carry a stale .git), else from git, else "unknown".
GIT_REV := $(shell cat .nvs-rev 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
GIT_REV := $(GIT_REV)$(shell [ -f .nvs-rev ] || { git rev-parse HEAD >/dev/null 2>&1 && { git diff --quiet HEAD 2>/dev/null || echo -dirty; }; })

# One include root per name: every #include is "<layer>/<file>.h" (src/<layer>/, or the top-level topo/ and
# collectives/ the card names); tests/t/layering.sh checks that includes only go down (src/LAYERS).
CPPFLAGS += -Isrc -I. -D_GNU_SOURCE -DNVS_VERSION='"$(VERSION)"' -DNVS_GIT_REV='"$(GIT_REV)"' \
            -I$(CUDA_HOME)/include -I$(NCCL_HOME)/include $(MPI_CFLAGS) $(HWLOC_CFLAGS) $(JANSSON_CFLAGS) \
            $(BLAS_CFLAGS)
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -Werror -Wno-missing-field-initializers -MMD -MP

# Sanitizers: SAN=address,undefined (any -fsanitize= list). float-cast-overflow is not part of GCC's
# "undefined" group and is added to it; -fno-sanitize-recover makes the first finding fatal (a failed test).
# The C objects of a sanitized build live in build/san/ so that switching flavours rebuilds only what differs;
# build/flavor records the flavour the linked programs (./nvscale, build/tests/*) were built with.
SAN ?=
comma := ,
ifneq ($(SAN),)
SAN_FLAGS := -fsanitize=$(SAN)$(if $(findstring undefined,$(SAN)),$(comma)float-cast-overflow) \
             -fno-sanitize-recover=all -fno-omit-frame-pointer
# The instrumentation changes what GCC 12 can see through, and its flow-sensitive string/array warnings then
# fire on code that is clean without it (test_health.c: "strcmp reading from a region of size 0" after a
# pointer the sanitizer checks): shown, not fatal, in this flavour only; the normal build keeps -Werror for them.
CFLAGS += $(SAN_FLAGS) -Wno-error=stringop-overread -Wno-error=stringop-overflow -Wno-error=array-bounds
OBJDIR := build/san
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap is (GPU machines). The leak
# suppressions name libraries outside nvscale (MPI, hwloc, CUDA) that keep allocations until exit; to be matched,
# their stacks need Open MPI's plug-ins kept loaded and, under mpirun, the slow unwinder (tests/lib.sh's $MPIRUN
# asks for it there only: it makes every malloc slower; src/core/san.h keeps MPI_Init/Finalize out of the report).
SAN_ENV := ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1:strict_string_checks=1 \
           LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 OMPI_MCA_mca_base_component_disable_dlclose=1
else
OBJDIR := build
SAN_ENV :=
endif
FLAVOR := SAN=$(SAN)
$(shell mkdir -p build && { [ "$$(cat build/flavor 2>/dev/null)" = "$(FLAVOR)" ] || echo "$(FLAVOR)" >build/flavor; })
NVCCFLAGS ?= -O3
NVCCFLAGS += $(NVCC_GENCODE) -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings -std=c++17 -MMD -MP
LDLIBS += -L$(NCCL_LIBDIR) -Wl,-rpath,$(NCCL_LIBDIR) -lnccl \
          -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcublas -lcudart \
          $(MPI_LIBS) $(HWLOC_LIBS) $(JANSSON_LIBS) $(BLAS_LIBS) -ldl -lpthread -lm -lstdc++

# --- sources ----------------------------------------------------------------------------------------------
C_SRCS := $(filter-out src/cli/main.c,$(wildcard src/*/*.c src/*/*/*.c topo/*.c collectives/*.c))
CU_SRCS := $(wildcard collectives/*.cu src/*/*.cu topo/*.cu)
OBJS := $(C_SRCS:%.c=$(OBJDIR)/%.o) $(CU_SRCS:%.cu=build/%.cu.o)
TEST_SRCS := $(wildcard tests/unit/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=build/tests/%)

.PHONY: all check run deps install clean test-bins hostbw devcopy biasgrad viewbench lnbench cpuprobe contend topo-scale fuzz fuzz-bins FORCE
all: nvscale

FORCE:
# the revision is compiled into version.o: rebuild it every time so that it is never stale
$(OBJDIR)/src/core/version.o: FORCE

nvscale: $(OBJDIR)/src/cli/main.o $(OBJDIR)/libnvscale.a build/flavor
	@echo "  LD    $@"
	$(if $(filter 0,$(V)),@)$(CC) $(CFLAGS) -o $@ $(filter-out build/flavor,$^) $(LDLIBS)

$(OBJDIR)/libnvscale.a: $(OBJS)
	@rm -f $@
	@echo "  AR    $@"; ar rcs $@ $^

$(OBJDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

build/%.cu.o: %.cu
	@mkdir -p $(dir $@)
	$(Q)$(NVCC) $(filter-out -DNVS_GIT_REV%,$(CPPFLAGS)) $(NVCCFLAGS) -c $< -o $@

build/tests/%: tests/unit/%.c $(OBJDIR)/libnvscale.a tests/unit/t.h build/flavor
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(OBJDIR)/libnvscale.a $(LDLIBS)

test-bins: $(TEST_BINS)

# optional: host memory bandwidth (STREAM-like copy, pthreads), for `nvscale model --calibrate --host-mem-gbps`
hostbw: build/hostbw
build/hostbw: tools/hostbw.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c11 -Wall -Wextra -Werror -pthread -o $@ $<

# optional: device copy bandwidth of the training step's layout copies beside cudaMemcpy (a GPU benchmark)
devcopy: build/devcopy
build/devcopy: tools/devcopy.c $(OBJDIR)/libnvscale.a build/flavor
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(OBJDIR)/libnvscale.a $(LDLIBS)

# optional: the bias gradient's reduction as PyTorch launches it beside cuBLAS's (a GPU benchmark)
biasgrad: build/biasgrad
build/biasgrad: tools/biasgrad.c $(OBJDIR)/libnvscale.a build/flavor
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(OBJDIR)/libnvscale.a $(LDLIBS)

# optional: the copy through a permuted view as PyTorch launches it beside a contiguous copy (a GPU benchmark)
viewbench: build/viewbench
build/viewbench: tools/viewbench.c $(OBJDIR)/libnvscale.a build/flavor
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(OBJDIR)/libnvscale.a $(LDLIBS)

# optional: LayerNorm's three kernels in PyTorch's launch shapes, each timed alone (a GPU benchmark;
# tools/device/ln_torch.py times PyTorch's on the same shapes)
lnbench: build/lnbench
build/lnbench: tools/lnbench.c $(OBJDIR)/libnvscale.a build/flavor
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(OBJDIR)/libnvscale.a $(LDLIBS)

# optional: how the topology's merge, JSON and subsets scale with hosts (a CPU benchmark; results/cpu-topo-scale/)
topo-scale: build/topo_scale
build/topo_scale: tools/topo_scale.c $(OBJDIR)/libnvscale.a build/flavor
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(OBJDIR)/libnvscale.a $(LDLIBS)

# optional: a GEMM beside a few resident CTAs that spin or copy (the interference's mechanism; a GPU benchmark)
contend: build/contend
build/tools/contend_kernels.cu.o: tools/contend_kernels.cu tools/contend_kernels.h
	@mkdir -p $(dir $@)
	$(Q)$(NVCC) $(NVCCFLAGS) -c $< -o $@
build/contend: tools/contend.c tools/contend_kernels.h build/tools/contend_kernels.cu.o build/flavor
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Itools -o $@ $< build/tools/contend_kernels.cu.o $(LDLIBS)

# optional: the host CPU's speed at nvscale's unit of framework host work, sample by sample (issue 9's noise)
cpuprobe: build/cpuprobe
build/cpuprobe: tools/cpuprobe.c src/core/cpu_work.c src/core/cpu_work.h src/core/clock.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -Isrc -o $@ tools/cpuprobe.c src/core/cpu_work.c
build/libcpuprobe.so: tools/cpuprobe.c src/core/cpu_work.c src/core/cpu_work.h src/core/clock.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -DCPUPROBE_LIB -fPIC -shared -Isrc -o $@ tools/cpuprobe.c \
	    src/core/cpu_work.c

check: nvscale $(TEST_BINS)
	$(SAN_ENV) tests/run.sh

# --- fuzzing (fuzz/README.md) ------------------------------------------------------------------------------
# Every parser under libFuzzer: the C sources built again with clang (-fsanitize=fuzzer-no-link plus ASan and
# UBSan, float-cast-overflow included) into build/fuzz/, one program per fuzz/fuzz_*.c; the CUDA objects are
# the normal build's. `make fuzz FUZZ_S=N` runs each N seconds (fuzz/run.sh), new inputs in build/fuzz/corpus/.
FUZZ_CC ?= clang
FUZZ_S ?= 60
FUZZ_SAN := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
FUZZ_CFLAGS := -O1 -g -std=c11 -Wall -Wextra -Wno-missing-field-initializers -fno-omit-frame-pointer $(FUZZ_SAN)
FUZZ_SRCS := $(wildcard fuzz/fuzz_*.c)
FUZZ_BINS := $(FUZZ_SRCS:fuzz/%.c=build/fuzz/%)
FUZZ_OBJS := $(C_SRCS:%.c=build/fuzz/obj/%.o) $(CU_SRCS:%.cu=build/%.cu.o)

build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  FUZZCC $<"; $(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

build/fuzz/libnvscale.a: $(FUZZ_OBJS)
	@rm -f $@
	@echo "  AR    $@"; ar rcs $@ $^

build/fuzz/%: fuzz/%.c fuzz/fuzz.h build/fuzz/libnvscale.a
	@mkdir -p $(dir $@)
	@echo "  FUZZLD $@"; $(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< build/fuzz/libnvscale.a \
	    $(LDLIBS)

fuzz-bins: $(FUZZ_BINS)

fuzz: fuzz-bins
	fuzz/run.sh $(FUZZ_S)

# With GPUs: one process drives them all. Without: two MPI ranks on the host backend, so that the answer shows
# N = 1 and 2 (as root, Open MPI needs to be told that is fine).
run: nvscale
	@if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then ./nvscale; \
	else mpirun $$( [ "$$(id -u)" = 0 ] && echo --allow-run-as-root ) --oversubscribe -np 2 ./nvscale; fi

deps:
	tools/install-deps.sh

install: nvscale
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/doc/nvscale
	install -m 755 nvscale $(DESTDIR)$(PREFIX)/bin/nvscale
	install -m 644 README.md $(DESTDIR)$(PREFIX)/share/doc/nvscale/README.md

clean:
	rm -rf build nvscale

-include $(OBJS:.o=.d) $(OBJDIR)/src/cli/main.d $(TEST_BINS:%=%.d) $(wildcard build/fuzz/obj/*/*.d build/fuzz/obj/*/*/*.d)
