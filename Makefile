# pmuharness: `make` builds build/pmuharness.efi; `make test` runs every test;
# `make run` boots it in QEMU+OVMF; `make bench` measures. See README.md and docs/.

# The first goal is `all`, whatever rules the includes and the patterns put
# before it.
.DEFAULT_GOAL := all

BUILD      := build
HOSTB      := $(BUILD)/host
EFI        := $(BUILD)/pmuharness.efi
USBIMG     := $(BUILD)/pmuharness-usb.img

CC         ?= gcc
LD         := ld
OBJCOPY    := objcopy
EFIINC     := /usr/include/efi
EFILIB     := /usr/lib
EFICRT0    := $(EFILIB)/crt0-efi-x86_64.o

# -Werror=unused-result: a dropped driver-op result (PMU_MUST_USE) fails
# the build even where -Werror is overridden.
WARN       := -MMD -MP -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
              -Wno-missing-field-initializers -Werror=unused-result
# Target: freestanding, no SSE anywhere (handlers and firmware state stay safe).
CFLAGS_EFI := -std=c11 -Os -g0 -ffreestanding -fvisibility=hidden -ffunction-sections -fdata-sections -fno-builtin -fpic -fshort-wchar \
              -fno-stack-protector -fno-stack-check -fno-strict-aliasing \
              -mno-red-zone -mgeneral-regs-only -maccumulate-outgoing-args \
              -DGNU_EFI_USE_MS_ABI $(WARN)
EFI_INCS   := -isystem $(EFIINC) -isystem $(EFIINC)/x86_64 -isystem $(EFIINC)/protocol
LDFLAGS_EFI:= -nostdlib -znocombreloc -T linker/pmuharness.lds -shared -Bsymbolic \
              -L$(EFILIB) --no-undefined --gc-sections

# Host: the same freestanding sources under ASan and UBSan.
SAN        := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS_HOST:= -std=c11 -O1 -g -DPMH_HOST $(WARN) $(SAN)
LDFLAGS_HOST := $(SAN)

# What ships: every source of the image is named here, per folder, so a file
# dropped into a folder does not silently ship. Freestanding C11 built for the
# target and for the host (x86/ below is target only, but x86/sample.S and
# x86/workload.S, which host programs link too).
LIB_SRC    := lib/fmt.c lib/str.c
PMU_SRC    := pmu/cpu.c pmu/hypervisor.c pmu/pmu.c pmu/intel_p6.c pmu/intel_arch.c \
              pmu/intel_arch_tables.c pmu/intel_netburst.c pmu/intel_netburst_tables.c \
              pmu/intel_knc.c pmu/amd.c pmu/amd_f15h.c pmu/cache.c pmu/cache_leaf2.c \
              pmu/lbr.c pmu/ds.c pmu/ibs.c pmu/ds_netburst.c pmu/percpu.c
APIC_SRC   := apic/apic.c apic/isr.c apic/pmi.c
EVENTS_SRC := events/events.c events/events_list.c events/workloads.c events/sample_walk.c \
              events/events_spec.c \
              events/events_resolve.c \
              events/amd_k7.c events/amd_k8.c events/amd_zen.c events/intel_p6.c \
              events/intel_arch.c events/intel_skylake.c events/intel_netburst.c events/intel_knc.c \
              events/semantics.c events/amd_k8_sem.c events/intel_skylake_sem.c events/intel_arch_sem.c \
              events/amd_k7_sem.c events/intel_netburst_sem.c events/intel_p6_sem.c \
              events/intel_knc_sem.c events/pagewin.c
# The suite that runs on the machine under test: runner, options, results,
# measurement helpers and one file per check.
SUITE_SRC  := tests/harness.c tests/suite.c tests/suite_tables.c tests/report.c tests/report_json.c tests/report_lava.c tests/screen.c tests/screen_events.c tests/smbios.c tests/options.c tests/options_config.c tests/options_args.c tests/measure.c tests/measure_pmi.c \
              tests/cpu_select.c tests/hv_policy.c tests/lbr_rec.c tests/report_sampling.c tests/ds_area.c \
              tests/cpu_job.c tests/cpu_par.c
CHECK_SRC  := $(addprefix tests/checks/, \
              pmu_probe.c msr_access.c counter_width.c counter_write_semantics.c rdpmc.c \
              count_enable.c count_instructions.c count_branches.c count_cycles.c count_fixed.c \
              count_filters.c event_raw.c overflow_preload.c overflow_status.c overflow_pmi.c \
              overflow_rearm.c overflow_simultaneous.c skid.c arch_status_set.c \
              p6_single_enable.c netburst_cccr_escr.c knc_global_ctrl.c amd_perfmon_v2.c \
              apic_lvt_pc.c apic_nmi.c apic_self_ipi.c apic_fatal_trigger.c idt_restore.c \
              guard_gp.c event_semantics.c event_semantics_run.c \
              event_semantics_win.c \
              ring3_entry.c count_user.c rdpmc_user.c \
              count_all_at_once.c counter_write_running.c rdpmc_fast.c \
              freeze_on_pmi.c perf_capabilities.c amd_legacy_alias.c knc_spflt.c \
              tsx_qualifiers.c kvm_emulated.c \
              lbr_stack.c lbr_filter.c lbr_freeze.c lbr_callstack.c pebs_record.c bts_trace.c ibs_sample.c ibs_judge.c \
              pebs_netburst.c)
SHARED_SRC := $(LIB_SRC) $(PMU_SRC) $(APIC_SRC) $(EVENTS_SRC) $(SUITE_SRC) $(CHECK_SRC)
# Target only: the x86 code every platform shares (x86/): the real
# instructions behind pmu/hw.h, the IDT and its entry stubs, ring 3 and the
# workloads' assembly; x86-64 for the image, i386 for the BIOS kernel.
X86_SRC    := x86/hw_x86.c x86/idt_x86.c x86/hw_user.c x86/hw_user_pg.c
X86_ASM    := x86/entry.S x86/workload.S x86/user_x86.S x86/sample.S
X86_I386_SRC := x86/hw_x86.c x86/idt_i386.c x86/hw_user.c
X86_I386_ASM := x86/entry_i386.S x86/workload_i386.S x86/user_i386.S x86/sample_i386.S
# Target only: the UEFI platform over the x86 code.
BOOT_SRC   := boot/efi_main.c boot/console.c boot/screen_efi.c boot/files.c boot/netboot.c boot/mp.c boot/smbios.c \
              $(X86_SRC)
TARGET_SRC := $(SHARED_SRC) $(BOOT_SRC)
TARGET_ASM := $(X86_ASM)
# The minimal EFI program `make bench` compares boot times with.
MINIMAL_SRC:= boot/minimal/minimal.c
# The legacy BIOS kernel (bios/, `make i686`): the shared sources built for
# i386 with the BIOS platform, the bare PC's hardware it drives (pc/: COM1 and
# VGA, the 8042, ACPI and the MP table, AP start-up, FAT32) and the i386
# halves of the real instructions.
PC_SRC     := pc/console.c pc/screen_vga.c pc/keyboard.c pc/acpi.c pc/mp.c pc/fat.c
I686_SRC   := bios/bios_main.c $(PC_SRC) bios/disk.c bios/results.c \
              $(X86_I386_SRC)
I686_ASM   := bios/entry32.S pc/trampoline.S bios/realmode.S $(X86_I386_ASM)
# Every target source: `make layers` fails on one in the tree that is not here.
LAYERS_SRC := $(TARGET_SRC) $(TARGET_ASM) $(MINIMAL_SRC) $(I686_SRC) $(I686_ASM)
# Host only (host/): the simulated CPUs behind pmu/hw.h, the cmocka tests and
# the simulator program.
SIM_SRC    := $(wildcard host/sim/*.c)
UNIT_SRC   := $(wildcard host/unit/test_*.c)

TARGET_OBJ := $(patsubst %.c,$(BUILD)/efi/%.o,$(TARGET_SRC)) \
              $(patsubst %.S,$(BUILD)/efi/%.o,$(TARGET_ASM))
# The sampling kernel runs nowhere on the host: the simulator decodes its
# x86-64 bytes (host/sim/sim_trace.c), so both host builds link it.
HOST_ASM   := x86/sample.S
HOST_OBJ   := $(patsubst %.c,$(HOSTB)/obj/%.o,$(SHARED_SRC) $(SIM_SRC)) \
              $(patsubst %.S,$(HOSTB)/obj/%.o,$(HOST_ASM))
# The same sources optimised and without sanitizers: the 25-seed matrix runs
# on this build (the ASan/UBSan build runs the matrix on fewer seeds).
FAST_OBJ   := $(patsubst %.c,$(HOSTB)/fast/%.o,$(SHARED_SRC) $(SIM_SRC) host/sim_main.c) \
              $(patsubst %.S,$(HOSTB)/fast/%.o,$(HOST_ASM))
CFLAGS_FAST:= -std=c11 -O2 -DPMH_HOST $(WARN)
UNIT_BIN   := $(patsubst host/unit/%.c,$(HOSTB)/unit/%,$(UNIT_SRC))

# The commit the results JSON names (git describe; "unknown" outside a
# checkout): kept in a file that changes only with it, so that the JSON's
# objects are rebuilt when it changes.
PMH_COMMIT := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
COMMIT_STAMP := $(BUILD)/commit.txt
$(shell mkdir -p $(BUILD); [ "$$(cat $(COMMIT_STAMP) 2>/dev/null)" = "$(PMH_COMMIT)" ] || \
  echo "$(PMH_COMMIT)" > $(COMMIT_STAMP))
JSON_OBJ := $(BUILD)/efi/tests/report_json.o $(HOSTB)/obj/tests/report_json.o \
            $(HOSTB)/fast/tests/report_json.o
$(JSON_OBJ): $(COMMIT_STAMP)
$(JSON_OBJ): CFLAGS_EFI += -DPMH_COMMIT='"$(PMH_COMMIT)"'
$(JSON_OBJ): CFLAGS_HOST += -DPMH_COMMIT='"$(PMH_COMMIT)"'
$(JSON_OBJ): CFLAGS_FAST += -DPMH_COMMIT='"$(PMH_COMMIT)"'

.PHONY: format-check pycheck all host test unit sim-test qemu-test report-test lava-check lava-server-test run bench clean format lint usb sign deps layers help tftp
# Keep intermediate objects (the unit-test objects would be deleted and rebuilt).
.SECONDARY:
all: $(EFI) $(BUILD)/pmuharness-i686.elf $(BUILD)/pmuharness-report

$(BUILD)/efi/boot/%.o: boot/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_EFI) $(EFI_INCS) -c $< -o $@
$(BUILD)/efi/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_EFI) -c $< -o $@
$(BUILD)/efi/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_EFI) -c $< -o $@

$(BUILD)/pmuharness.so: $(TARGET_OBJ) linker/pmuharness.lds Makefile
	$(LD) $(LDFLAGS_EFI) $(EFICRT0) $(TARGET_OBJ) -o $@ -lefi -lgnuefi

$(EFI): $(BUILD)/pmuharness.so
	$(OBJCOPY) --strip-all -j .text -j .sdata -j .data -j .dynamic -j .rel -j .rela \
	  -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@
	@size=$$(stat -c %s $@); echo "$@: $$size bytes"; \
	  if [ $$size -gt 524288 ]; then echo "error: $@ exceeds 512 KiB"; exit 1; fi

$(BUILD)/minimal.so: $(patsubst %.c,$(BUILD)/efi/%.o,$(MINIMAL_SRC)) linker/pmuharness.lds
	$(LD) $(LDFLAGS_EFI) $(EFICRT0) $< -o $@ -lefi -lgnuefi
$(BUILD)/minimal.efi: $(BUILD)/minimal.so
	$(OBJCOPY) --strip-all -j .text -j .sdata -j .data -j .dynamic -j .rel -j .rela \
	  -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@

# ---- legacy BIOS kernel (bios/) ---------------------------------------------
# A Multiboot v1 ELF32 loaded at 1 MiB in 32-bit protected mode, paging off;
# i686 without SSE; libgcc for 64-bit division.
I686       := $(BUILD)/pmuharness-i686.elf
CFLAGS_I686:= -m32 -march=i686 -std=c11 -Os -g0 -ffreestanding -fno-builtin -fno-pic -fno-pie \
              -fno-stack-protector -fno-asynchronous-unwind-tables -mgeneral-regs-only \
              -fno-strict-aliasing $(WARN)
I686_OBJ   := $(patsubst %.c,$(BUILD)/i686/%.o,$(SHARED_SRC) $(I686_SRC)) \
              $(patsubst %.S,$(BUILD)/i686/%.o,$(I686_ASM))
$(BUILD)/i686/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_I686) -c $< -o $@
$(BUILD)/i686/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_I686) -c $< -o $@
$(BUILD)/i686/tests/report_json.o: CFLAGS_I686 += -DPMH_COMMIT='"$(PMH_COMMIT)"'
$(BUILD)/i686/tests/report_json.o: $(COMMIT_STAMP)
$(I686): $(I686_OBJ) bios/kernel.lds
	$(LD) -m elf_i386 -nostdlib --no-warn-rwx-segments -T bios/kernel.lds $(I686_OBJ) \
	  $$($(CC) -m32 -print-libgcc-file-name) -o $@
.PHONY: i686
i686: $(I686)

# ---- host build -------------------------------------------------------------
$(HOSTB)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -ffreestanding -c $< -o $@
$(HOSTB)/obj/host/unit/%.o: host/unit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -c $< -o $@
$(HOSTB)/obj/host/sim_main.o: host/sim_main.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -c $< -o $@

$(HOSTB)/fast/host/sim_main.o: host/sim_main.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_FAST) -c $< -o $@
$(HOSTB)/fast/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_FAST) -ffreestanding -c $< -o $@
$(HOSTB)/fast/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_FAST) -c $< -o $@
$(HOSTB)/obj/x86/sample.o: x86/sample.S
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -c $< -o $@
$(HOSTB)/pmuharness-sim-fast: $(FAST_OBJ)
	$(CC) $^ -o $@

$(HOSTB)/libpmh.a: $(HOST_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Each unit-test program links the whole library; whole-archive keeps the
# check table (a linker section) complete.
$(HOSTB)/unit/%: $(HOSTB)/obj/host/unit/%.o $(HOSTB)/libpmh.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_HOST) $< -Wl,--whole-archive $(HOSTB)/libpmh.a -Wl,--no-whole-archive -lcmocka -o $@
# test_workloads runs the x86-64 kernels natively in user mode: it links them.
$(HOSTB)/obj/x86/workload.o: x86/workload.S
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_HOST) -c $< -o $@
$(HOSTB)/unit/test_workloads: $(HOSTB)/obj/x86/workload.o
$(HOSTB)/unit/test_workloads: LDFLAGS_HOST += $(HOSTB)/obj/x86/workload.o

$(HOSTB)/pmuharness-sim: $(HOSTB)/obj/host/sim_main.o $(HOSTB)/libpmh.a
	$(CC) $(LDFLAGS_HOST) $< -Wl,--whole-archive $(HOSTB)/libpmh.a -Wl,--no-whole-archive -o $@

host: $(HOSTB)/pmuharness-sim $(HOSTB)/pmuharness-sim-fast $(UNIT_BIN) $(BUILD)/pmuharness-report

# The results report tool (Python standard library) and its outputs module,
# installed beside the image.
$(BUILD)/pmuharness-report: host/report/pmuharness-report $(wildcard host/report/pmuharness_report_*.py)
	@mkdir -p $(dir $@)
	install -m 644 host/report/pmuharness_report_*.py $(BUILD)/
	install -m 755 $< $@

# ---- fuzzing (host/fuzz; docs/developer-guide.md "Fuzzing") ---------------------------------
# libFuzzer targets over the shipped parsers, built with clang, ASan and
# UBSan; `make fuzz` runs each for FUZZ_SECONDS from a copy of its seed corpus
# in build/fuzz (scripts/fuzz.sh), `make test` does the same.
FUZZB       := $(BUILD)/fuzz
FUZZ_CC     := clang
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -O1 -g -DPMH_HOST -MMD -MP -Wall -Wextra -Wno-missing-field-initializers \
               $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_SECONDS ?= 30
FUZZ_BIN    := $(patsubst host/fuzz/fuzz_%.c,$(FUZZB)/%,$(wildcard host/fuzz/fuzz_*.c))
FUZZ_OBJ    := $(patsubst %.c,$(FUZZB)/obj/%.o,$(SHARED_SRC) $(SIM_SRC)) \
               $(patsubst %.S,$(FUZZB)/obj/%.o,$(HOST_ASM))

.PHONY: fuzz fuzz-build
$(FUZZB)/obj/host/fuzz/%.o: host/fuzz/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Werror -D_POSIX_C_SOURCE=200809L -c $< -o $@
$(FUZZB)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -ffreestanding -c $< -o $@
$(FUZZB)/obj/x86/sample.o: x86/sample.S
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -c $< -o $@
$(FUZZB)/libpmh.a: $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^
# Whole archive, as for the unit tests: the check table is a linker section.
$(FUZZB)/%: $(FUZZB)/obj/host/fuzz/fuzz_%.o $(FUZZB)/obj/host/fuzz/common.o $(FUZZB)/libpmh.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $(filter %.o,$^) \
	  -Wl,--whole-archive $(FUZZB)/libpmh.a -Wl,--no-whole-archive -o $@
fuzz-build: $(FUZZ_BIN)
fuzz: deps fuzz-build
	@FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

# ---- tests ------------------------------------------------------------------
unit: $(UNIT_BIN)
	@scripts/run-unit.sh $(UNIT_BIN)

sim-test: $(HOSTB)/pmuharness-sim $(HOSTB)/pmuharness-sim-fast
	@scripts/sim-matrix.py $(HOSTB)/pmuharness-sim-fast
	@SIM_SEEDS=2 scripts/sim-matrix.py $(HOSTB)/pmuharness-sim

qemu-test: $(EFI)
	@host/qemu/boot_matrix.py $(EFI)

report-test: $(EFI) $(BUILD)/pmuharness-report
	@host/report/test_report.py $(EFI)

# LAVA: the job files against lava-common's schema, then the signals of
# simulator and QEMU runs through lava-dispatcher's own patterns against
# their results (host/lava/; docs/user-guide.md "Running in a LAVA lab").
lava-check: deps $(EFI) $(I686) host
	@host/lava/test_jobs.py
	@host/lava/lava_check.py $(EFI)

# LAVA for real (not in `make test`: about 3 minutes): Debian's lava-server,
# lava-scheduler and a lava-worker on loopback with a private PostgreSQL run
# lava/qemu-uefi.yaml and lava/qemu-bios.yaml; what lava-server stored is
# compared with the runs' results; the other jobs pass lava-run --validate.
# SKIPs where the packages are missing (.ci/run installs them).
LAVA_USBIMG := $(BUILD)/pmuharness-lava-usb.img
$(LAVA_USBIMG): $(EFI) $(I686) scripts/usb-image.sh lava/pmuharness-lava.cfg boot/usb/README.TXT \
	  boot/usb/syslinux.cfg pc/fat.h
	@scripts/usb-image.sh $(EFI) $@ --kernel $(I686) --cpus 4 --cfg lava/pmuharness-lava.cfg
lava-server-test: deps $(EFI) $(I686) $(LAVA_USBIMG)
	@host/lava/test_lava_server.py $(EFI)

# The layer order, include cycles, the sources the Makefile names, the
# length limits and state every CPU shares (scripts/layers.py), after the
# script's own self-test. The last reads the target objects of what ships
# but the platforms (boot/, bios/, pc/, x86/): no CPU's state may be in .data
# or .bss. Of x86/, what was checked before it moved there stays checked: the
# IDT (x86/idt_x86.c) and the assembly.
LAYERS_STATE_SRC := $(filter-out boot/% bios/% pc/% x86/%,$(TARGET_SRC) $(TARGET_ASM)) \
                    x86/idt_x86.c $(X86_ASM)
layers: $(patsubst %,$(BUILD)/efi/%.o,$(basename $(LAYERS_STATE_SRC)))
	@scripts/layers.py --self-test
	@scripts/layers.py

# The builds run in parallel (TEST_JOBS, default the CPUs), then the parts in
# order; the whole stays under 15 minutes on 2 cores.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test: deps
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) $(EFI) $(I686) host fuzz-build
	@scripts/test-all.sh

# make run BOOT=uefi (default) | bios (-kernel, SeaBIOS) | bios-usb (the stick image)
# | net (OVMF, TFTP) | bios-net (SeaBIOS PXE + iPXE)
BOOT ?= uefi
RUN_DEPS_uefi     := $(EFI)
RUN_DEPS_bios     := $(I686)
RUN_DEPS_bios-usb := $(USBIMG)
RUN_DEPS_net      := $(EFI)
RUN_DEPS_bios-net := $(I686)
run: deps $(RUN_DEPS_$(BOOT))
	@BOOT=$(BOOT) scripts/qemu-run.sh $(EFI)

# make tftp: build/tftp, what a lab's TFTP server serves for a network boot
# (docs/user-guide.md "Network boot"); LAVA jobs name these files.
TFTP_FILES := $(EFI) $(I686) boot/usb/pmuharness.cfg boot/net/pmuharness.ipxe
tftp: $(TFTP_FILES)
	@mkdir -p $(BUILD)/tftp && cp $(TFTP_FILES) $(BUILD)/tftp/ && echo "$(BUILD)/tftp: ready"

bench: deps $(EFI) $(I686) $(BUILD)/minimal.efi host
	@scripts/bench.sh $(EFI) $(BUILD)/minimal.efi $(HOSTB)/pmuharness-sim

deps:
	@scripts/deps.sh

# ---- USB stick and Secure Boot ---------------------------------------------
# make usb USB_CPUS=N: the BIOS kernel's results slots (PMHBIOS.LOG, .JSN)
# sized for N CPUs (scripts/usb-image.sh --cpus; docs/user-guide.md "Legacy BIOS"). The
# value is kept in a file that changes only with it, so that a new one
# rebuilds the image.
USB_CPUS ?= 512
USB_CPUS_STAMP := $(BUILD)/usb-cpus.txt
$(shell mkdir -p $(BUILD); [ "$$(cat $(USB_CPUS_STAMP) 2>/dev/null)" = "$(USB_CPUS)" ] || \
  echo "$(USB_CPUS)" > $(USB_CPUS_STAMP))
usb: deps $(USBIMG)

$(USBIMG): $(EFI) $(I686) scripts/usb-image.sh boot/usb/pmuharness.cfg boot/usb/README.TXT \
	  boot/usb/syslinux.cfg pc/fat.h $(USB_CPUS_STAMP)
	@scripts/usb-image.sh $(EFI) $@ --kernel $(I686) --cpus $(USB_CPUS)

# make sign KEY=db.key CERT=db.crt [KEYPASS=...]: build/pmuharness.signed.efi
# and the USB image's BOOTX64.EFI, both signed with sbsign.
sign: deps $(EFI) $(USBIMG)
	@KEY="$(KEY)" CERT="$(CERT)" KEYPASS="$(KEYPASS)" \
	  scripts/sign.sh $(EFI) $(BUILD)/pmuharness.signed.efi $(USBIMG)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

# What make format would change, as errors (part of make test).
format-check:
	clang-format --dry-run -Werror $$(git ls-files '*.c' '*.h')

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --std=c11 --inline-suppr \
	  --suppress=missingIncludeSystem -DPMH_HOST lib pmu apic events tests x86 pc bios host

# The Python under host/ and scripts/: pyflakes, then mypy (its types where
# annotated; Debian's pyflakes3 and mypy).
PY_SRC = $(shell git ls-files '*.py' 2>/dev/null || find host scripts -name '*.py') \
  host/report/pmuharness-report
pycheck:
	pyflakes3 $(PY_SRC)
	mypy --ignore-missing-imports --follow-imports=silent --no-error-summary \
	  --cache-dir=$(BUILD)/mypy $(PY_SRC)

clean:
	rm -rf $(BUILD)

help:
	@printf '%s\n' \
	  'Targets:' \
	  '  make             build/pmuharness.efi, the UEFI image' \
	  '  make run         boot it in QEMU+OVMF; our lines on the terminal, results kept in' \
	  '                   build/run-esp/EFI/BOOT (numbered); exit 0 only for PASS' \
	  '  make test        every test (layers, unit, simulated CPUs, fuzzing, QEMU), as CI runs it' \
	  '  make unit | sim-test | qemu-test | report-test | layers   one part of make test' \
	  '  make fuzz        libFuzzer targets, FUZZ_SECONDS=30 each (docs/developer-guide.md "Fuzzing")' \
	  '  build/pmuharness-report   results files to Markdown, HTML, JUnit, TAP (--help)' \
	  '  make lava-check  LAVA job files and signals vs results (docs/user-guide.md)' \
	  '  make lava-server-test  the jobs run by a real lava-server on loopback (not in make test)' \
	  '  make bench       benchmarks (never timed tests)' \
	  '  make usb         build/pmuharness-usb.img, a stick image for dd: boots UEFI and BIOS' \
	  '                   USB_CPUS=N sizes its BIOS results files for N CPUs (default 512)' \
	  '  make i686        build/pmuharness-i686.elf, the Multiboot kernel for BIOS machines' \
	  '  make tftp        build/tftp: the files a TFTP server serves for a network boot' \
	  '  make sign KEY=db.key CERT=db.crt [KEYPASS=...]   signed image for Secure Boot' \
	  '  make host        the simulator and unit-test programs' \
	  '  make format | lint | deps | clean' \
	  'Variables of make run:' \
	  '  BOOT=uefi            uefi: OVMF, this binary; bios: SeaBIOS, the Multiboot kernel' \
	  '                       (qemu-system-i386 -kernel); bios-usb: SeaBIOS, the stick image;' \
	  '                       net: OVMF, this binary over TFTP (no disk); bios-net: SeaBIOS' \
	  '                       PXE, iPXE chains the Multiboot kernel (build/tftp layout)' \
	  '  CPU=Skylake-Client   QEMU CPU model (qemu-system-x86_64 -cpu help lists them);' \
	  '                       pentium3 with BOOT=bios, bios-usb and bios-net' \
	  '  KVM=1                -enable-kvm -cpu host: the host PMU through KVM' \
	  '  SMP=1                number of CPUs' \
	  "  CFG='checks = apic.*'  extra pmuharness.cfg lines (docs/user-guide.md "Options")" \
	  '  TIMEOUT=120          seconds before QEMU is stopped (exit 124)' \
	  '  RUN_ESP=build/run-esp  the folder that becomes the boot volume'

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
