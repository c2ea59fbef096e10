# rdmacap: one place for flags. Each module folder is a library; harness/main.c and
# agents/main.c are the two programs; tests/test_*.c are unit tests linking the libs.
#
#   make              build/rdmacap, build/rdmacap-agent
#   make check        unit tests (also under ASan+UBSan) + every suite, TAP on stdout
#   make fuzz         libFuzzer targets of the record parsers (clang), build/fuzz/
#   make demo         rxe up (host or VM): ramps, and a limit with its cause moved by its knob
#   make bench        rdmacap next to perftest, cmtime and sockperf (bench/run)
#   make designs      rc, rc shared CQ + SRQ, rc --qp-share, ud side by side (bench/designs)
#   make ceilings     the ceiling of each server design in the VM (bench/ceilings;
#                     CEIL_MEM=9G, hours under TCG; not in check)
#   make deps         install the host's Debian packages, fetch the VM kernels, build siw,
#                     unpack the guest's programs (vm/fetch-userland)
#   make vm-userland  the programs only the VM runs (sshd, munge, Slurm, Open MPI), under build/vm
#   make vm-kernel    fetch the rxe-capable kernel for vm/run
#   make vm-siw       fetch bookworm's LTS kernel and build Soft-iWARP for it (vm/build-siw)
#   make vm-check     only the rxe suites, inside the VM
#   make vm-lts-check only the LTS kernel's suites (rxe host topology, siw), in its VM
#   make vm-limits-ud the ud address-handle limit (--ah cache at 16,500 and 33,000; --ah peer moves it), in the VM
#   make soak         random designs under random --fault, ASan+UBSan build: 100 on rxe
#                     (sid boot), then 10 on siw (LTS boot), one seed (docs/faults.md)
#   make install PREFIX=/usr/local   also the man pages and bash completion
#   make rerun R=NAME run docs/results/NAME/run again into build/results/NAME, under the
#                     VM lock (the committed folder is left as it is)
#   make results      re-render docs/results/*/ (report.md, report.svg) from their run.json,
#                     docs/figures.md from the table of figures and README.md's table of
#                     options from rdmacap run --help (docs/options; tests/docs.t checks all)

CC      ?= gcc
PREFIX  ?= /usr/local
MANDIR  ?= $(PREFIX)/share/man
BASHCOMPDIR ?= /usr/share/bash-completion/completions
O       ?= build
SAN     ?=
PKGS    := libibverbs librdmacm openssl libmnl jansson libfabric

CFLAGS  ?= -O2 -g
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
# Messages are cut to fixed buffers on purpose: a truncated diagnostic beats a
# heap allocation on every error path, so gcc's truncation guesses stay quiet.
# -iquote .: the project's headers are "quoted" from the root, and the folder
# rdma/ never shadows the system's <rdma/...> (tests/includes.t).
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -D_GNU_SOURCE -iquote . \
           -DRDMACAP_VERSION='"$(VERSION)"' \
           $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -libverbs -lrdmacm -lssl -lcrypto -lmnl -ljansson -lfabric) -lm -lpthread
ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

MODS        := common tap netns rdma harness agents
# a module's library takes its subfolders too (agents/tcp, agents/rc, ...)
lib_srcs     = $(filter-out $(1)/main.c,$(wildcard $(1)/*.c $(1)/*/*.c))
HDRS        := $(wildcard */*.h */*/*.h)
lib_objs     = $(patsubst %.c,$(O)/obj/%.o,$(call lib_srcs,$(1)))
LIB_common  := $(O)/lib/libcommon.a
LIB_tap     := $(O)/lib/libtap.a
LIB_netns   := $(O)/lib/libnetns.a
LIB_rdma    := $(O)/lib/librdma.a
LIB_harness := $(O)/lib/libharness.a
LIB_agents  := $(O)/lib/libagents.a
HLIBS       := $(LIB_harness) $(LIB_netns) $(LIB_rdma) $(LIB_tap) $(LIB_common)
ALIBS       := $(LIB_agents) $(LIB_rdma) $(LIB_common)
TESTS       := $(patsubst tests/%.c,$(O)/tests/%,$(wildcard tests/test_*.c))

.PHONY: all check unit suites san fuzz demo bench designs ceilings vm-limits-ud deps setup vm-userland vm-kernel vm-siw vm-check vm-lts-check soak install clean format results rerun
all: $(O)/rdmacap $(O)/rdmacap-agent $(TESTS) $(O)/rdmacap.1 $(O)/rdmacap-agent.1 \
     $(O)/rdmacap.bash

# The version (the commit, and -dirty) is compiled into main.c and usage.c, and a
# result's JSON names it: rebuild them whenever it changes, not only when they do.
$(shell mkdir -p $(O) && { echo '$(VERSION)' | cmp -s - $(O)/version || echo '$(VERSION)' >$(O)/version; })
$(O)/obj/harness/main.o $(O)/obj/harness/cli/usage.o: $(O)/version

$(O)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

define lib_rule
$$(LIB_$(1)): $$(call lib_objs,$(1))
	@mkdir -p $$(dir $$@)
	rm -f $$@
	$$(AR) rcs $$@ $$^
endef
$(foreach m,$(MODS),$(eval $(call lib_rule,$(m))))

$(O)/rdmacap: $(O)/obj/harness/main.o $(HLIBS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/rdmacap-agent: $(O)/obj/agents/main.o $(ALIBS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The man pages and the completion are printed by the programs from their option
# tables (help2man reads --help), so they cannot drift from what is parsed; the
# sections --help has not (EXIT STATUS, ENVIRONMENT, FILES, SEE ALSO) come from
# man/*.h2m, help2man's include files.
H2M = command -v help2man >/dev/null || { echo "make: help2man not found (tests/deps)" >&2; \
	exit 1; }; help2man -N --no-discard-stderr
$(O)/rdmacap.1: $(O)/rdmacap man/rdmacap.h2m
	$(H2M) -i man/rdmacap.h2m -h --help-all -n "find how many RDMA connections a host sustains, and why it stops" \
		-o $@ $<

$(O)/rdmacap-agent.1: $(O)/rdmacap-agent man/rdmacap-agent.h2m
	$(H2M) -i man/rdmacap-agent.h2m --version-string=$(VERSION) \
		-n "one process of rdmacap's load: a server, or a group of clients" -o $@ $<

$(O)/rdmacap.bash: $(O)/rdmacap
	$< --bash-completion >$@

$(O)/tests/%: tests/%.c $(wildcard tests/*.h) $(HLIBS) $(ALIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_harness) $(LIB_netns) $(LIB_agents) $(LIB_rdma) $(LIB_tap) $(LIB_common) $(LDLIBS)

san:
	$(MAKE) O=build/san SAN=1 all

# libFuzzer needs clang; without it `make fuzz` says so and the fuzz tests skip.
FUZZ_CC     ?= clang
FUZZ_CFLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -iquote . -Wall -Wextra -Werror \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_proto  := common/proto.c
FUZZ_oob    := agents/oob/oob.c
FUZZ_report := harness/report/report.c harness/report/rephosts.c harness/report/repsvg.c \
               harness/figures/fig.c harness/figures/figjson.c common/opt.c tap/tap.c
FUZZ_LIBS_report := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson) -lm
FUZZ_NAMES  := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
fuzz:
	@if command -v $(FUZZ_CC) >/dev/null; then \
		$(MAKE) --no-print-directory $(FUZZ_NAMES:%=$(O)/fuzz/fuzz_%); \
	else echo "fuzz: $(FUZZ_CC) not found (tests/deps installs it)" >&2; fi

.SECONDEXPANSION:
$(O)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(HDRS) $$(FUZZ_$$*)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_$*) $(FUZZ_LIBS_$*)

# Unit tests run from both builds; suites run the plain build (ASan's shadow memory
# would distort the memory-per-connection figures they report).
unit:
	@$(MAKE) --no-print-directory all san fuzz 1>&2
	@tests/run-unit $(O)/tests build/san/tests

# The README's two commands are the whole set-up on a fresh machine: check and demo
# first install what is missing (Debian packages, the VM kernels, siw), a quick no-op
# when everything is there. A VM kernel that cannot be fetched (no mirror) or a siw
# that cannot be built is not fatal here: tests/check then SKIPs what needs it, saying
# why, and the demo fails.
setup:
	@tests/deps 1>&2
	@vm/fetch-kernel >/dev/null || echo "make: the rxe VM kernel could not be fetched (vm/fetch-kernel)" >&2
	@vm/fetch-userland >/dev/null || echo "make: the guest's programs could not be fetched (vm/fetch-userland)" >&2
	@vm/build-siw >/dev/null || echo "make: no LTS VM kernel with siw (vm/build-siw)" >&2

# stdout of `make check` is the TAP stream alone: the build talks on stderr.
# tests/hoststate snaps the host first (and starts its canary sshd): tests/check's
# last result compares the host after the set-up and every suite against it.
check:
	@vm/fetch-userland >/dev/null || echo "make: the guest's programs could not be fetched (vm/fetch-userland)" >&2
	@tests/hoststate snap $(O)/hoststate 1>&2
	@$(MAKE) --no-print-directory setup
	@$(MAKE) --no-print-directory all san fuzz 1>&2
	@CHECK_HOSTSTATE=$(O)/hoststate tests/check

demo: setup
	@$(MAKE) --no-print-directory all 1>&2
	@suites/demo

# Side by side with the reference tools, same topology, same boot: bench/run.
bench: setup
	@$(MAKE) --no-print-directory all 1>&2
	@bench/run

# The server designs side by side, one VM boot, one table and chart: bench/designs.
designs:
	@$(MAKE) --no-print-directory all 1>&2
	@bench/designs

# not in check: `rdmacap limit` per design in one VM boot of CEIL_MEM (bench/ceilings)
ceilings:
	@$(MAKE) --no-print-directory all 1>&2
	@bench/ceilings

# The rxe suites alone (suites/vm/*), in one VM boot: what `make check` runs there.
vm-check:
	@$(MAKE) --no-print-directory all 1>&2
	@vm/run --share "$(CURDIR)" -- suites/vm/run-in-vm

# The LTS kernel's suites alone (suites/vm-lts/*), in one boot of it: make check's vm-lts.
vm-lts-check:
	@$(MAKE) --no-print-directory all 1>&2
	@vm/run --kernel build/vm/kernel/bookworm --share "$(CURDIR)" \
		--env CHECK_VM_SUITES_DIR="$(CURDIR)/suites/vm-lts" -- suites/vm/run-in-vm

# not in check: an hour or more under TCG (docs/designs.md, "UD address-handle policies")
vm-limits-ud:
	@$(MAKE) --no-print-directory all 1>&2
	@vm/run --mem 6G --timeout 9000 --share "$(CURDIR)" -- suites/vm-long/limits-ud.sh

# not in check: ~21 s per point under TCG (--hosts with mpirun 70-120 s), 100 points
# (SOAK_POINTS) in about 35-40 min; 5400 s leaves room for a slow host. Then the LTS
# boot's SOAK_SIW_POINTS (10) siw points, 2-9 s each (1800 s: all 10 at the 120 s
# bound); a count of 0 leaves its boot out. Both boots draw from one SOAK_SEED
# (docs/faults.md).
soak:
	@$(MAKE) --no-print-directory all san 1>&2
	@seed=$${SOAK_SEED:-$$(date +%s)}; rc=0; \
	if [ "$${SOAK_POINTS:-100}" != 0 ]; then \
		vm/run --mem 4G --timeout 5400 --share "$(CURDIR)" --env SOAK_SEED=$$seed \
			--env SOAK_POINTS --env SOAK_BOUND --env SOAK_LAUNCHER --env SOAK_TRANSPORT \
			-- suites/soak/faults-soak.sh rxe || rc=1; \
	fi; \
	if [ "$${SOAK_SIW_POINTS:-10}" != 0 ]; then \
		vm/run --kernel build/vm/kernel/bookworm --mem 4G --timeout 1800 --share "$(CURDIR)" \
			--env SOAK_SEED=$$seed --env SOAK_SIW_POINTS --env SOAK_BOUND \
			-- suites/soak/faults-soak.sh siw || rc=1; \
	fi; \
	exit $$rc

# Published results, the figures' reference and README's options are rendered from
# committed data and the option tables only.
results: $(O)/rdmacap
	$(O)/rdmacap report --figures >docs/figures.md
	RDMACAP=$(O)/rdmacap docs/results/render
	RDMACAP=$(O)/rdmacap docs/options >$(O)/README.md
	mv $(O)/README.md README.md

# One published result run again: its run into build/results/R, under the VM lock
# every VM user of the host takes; R is checked before anything is built.
rerun:
	@case "$(R)" in ''|.*|*/*) false ;; esac && [ -x "docs/results/$(R)/run" ] || \
		{ echo "usage: make rerun R=NAME, NAME a folder of docs/results/:" \
			$$(cd docs/results && ls -d */ | tr -d /) >&2; exit 2; }
	@$(MAKE) --no-print-directory all 1>&2
	rm -rf "$(O)/results/$(R)"
	flock /tmp/rdmacap-vm.lock "docs/results/$(R)/run" "$(O)/results/$(R)"
	@echo "rerun: the new figures are in $(O)/results/$(R); the committed ones in docs/results/$(R)"
	@if [ -f "$(O)/results/$(R)/run.json" ]; then \
		$(O)/rdmacap report --baseline "docs/results/$(R)/run.json" --md "$(O)/results/$(R)/compare.md" \
			"$(O)/results/$(R)/run.json" && echo "rerun: side by side: $(O)/results/$(R)/compare.md"; fi

# Says what goes where: the host's packages (installed), the guest's (unpacked).
deps:
	@echo "deps: installed on this host (tests/deps --list):" $$(tests/deps --list)
	@echo "deps: unpacked under build/vm for the guest only (vm/fetch-userland --list):" \
		$$(vm/fetch-userland --list)
	tests/deps
	$(MAKE) vm-kernel vm-siw vm-userland

vm-userland:
	vm/fetch-userland

vm-kernel:
	vm/fetch-kernel

vm-siw:
	vm/build-siw

install: all
	install -D -m 0755 $(O)/rdmacap $(DESTDIR)$(PREFIX)/bin/rdmacap
	install -D -m 0755 $(O)/rdmacap-agent $(DESTDIR)$(PREFIX)/bin/rdmacap-agent
	install -D -m 0644 $(O)/rdmacap.1 $(DESTDIR)$(MANDIR)/man1/rdmacap.1
	install -D -m 0644 $(O)/rdmacap-agent.1 $(DESTDIR)$(MANDIR)/man1/rdmacap-agent.1
	install -D -m 0644 $(O)/rdmacap.bash $(DESTDIR)$(BASHCOMPDIR)/rdmacap

format:
	clang-format -i $(wildcard */*.c */*/*.c) $(HDRS)

clean:
	rm -rf build
