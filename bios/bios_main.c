/* Multiboot v1 entry into the harness on a BIOS machine: COM1 and VGA
 * output, the TSC timed against the PIT, options from the Multiboot
 * command line, then the platform seam (tests/platform.h) for the
 * harness's session, and a halt (or QEMU's isa-debug-exit) at the end. */
#include "bios.h"
#include "disk.h"
#include "../apic/apic.h"
#include "../apic/idt.h"
#include "../apic/isr.h"
#include "../apic/pmi.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "../pc/acpi.h"
#include "../pmu/hw.h"
#include "../tests/harness.h"
#include "../tests/options.h"
#include "../tests/platform.h"

extern uint64_t pmh_tsc_per_us;

/* The value a Multiboot v1 loader leaves in EAX, and the information
 * structure's flag for a command line (Multiboot 0.6.96 §3.2, §3.3). */
#define MB_LOADER_MAGIC 0x2BADB002u
#define MB_INFO_CMDLINE (1u << 2)
#define MB_INFO_MODS	(1u << 3)
/* QEMU's isa-debug-exit device (the tests put it at 0xf4). */
#define QEMU_EXIT_PORT 0xf4
/* PIT channel 2, gated through port 0x61 (8254 data sheet; the PC/AT
 * wiring): mode 0 counts down once and raises OUT2, read at 0x61 bit 5. */
#define PIT_HZ		  1193182u
#define PIT_CH2		  0x42
#define PIT_CMD		  0x43
#define PIT_CMD_CH2_MODE0 0xb0 /* channel 2, low then high byte, mode 0, binary */
#define PORT_B		  0x61
#define PORT_B_GATE2	  0x01
#define PORT_B_SPEAKER	  0x02
#define PORT_B_OUT2	  0x20
#define CALIBRATE_US	  10000
/* A PIT that never raises OUT2 (none there): give up after this many polls. */
#define PIT_POLLS 100000000u
/* The BIOS leaves IRQ 0-7 on vectors 8-15, where they would look like
 * exceptions to us, so all are masked while the harness runs. */
#define PIC_MASK_ALL 0xff
#define CMDLINE_MAX  1024
#define ARGS_MAX     64
/* The information structure's memory fields and map (Multiboot §3.3):
 * flags bit 0 mem_lower/mem_upper (KiB), bit 6 mmap_addr/mmap_length, whose
 * entries of type 1 are RAM. entry32.S asks for both (header flags bit 1). */
#define MB_INFO_MEM  (1u << 0)
#define MB_INFO_MMAP (1u << 6)
#define MB_MMAP_RAM  1

struct mb_info {
	uint32_t flags, mem_lower, mem_upper, boot_device, cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
};

struct mb_mmap {
	uint32_t size; /* of the rest of the entry: the next is size + 4 on */
	uint64_t addr, len;
	uint32_t type;
} __attribute__((packed));

/* A module the loader put in memory (Multiboot §3.3): [start, end) and its
 * command line, the file's name first. */
struct mb_module {
	uint32_t start, end, string, reserved;
};

static struct {
	struct pmh_jmpbuf recover; /* where an unexpected exception lands */
	const char *cmdline;	   /* the Multiboot command line, or NULL */
	const char *cfg;	   /* pmuharness.cfg as a module, or NULL */
	size_t cfg_len;
} bctx;

static void b_line(void *ctx, const char *s)
{
	(void)ctx;
	con_line(s);
	results_log_line(s);
}

/* The harness's memory: the results tables, their JSON and the checks'
 * buffers, in the arena arena_setup finds in the memory map. A stack of
 * blocks: a block freed comes back once every block above it is free too.
 * The checks free their buffers and a run its JSON in the order they took
 * them, and the next run gives back the last one's tables, so that runs
 * after runs (R: run again) do not use it up. */
struct blk {
	uint32_t size;	    /* the caller's bytes, a multiple of 16 */
	uint32_t prev;	    /* the block below's offset; NO_BLK: none */
	uint32_t free, pad; /* 16 bytes: the caller's bytes stay 16-aligned */
};
#define NO_BLK 0xffffffffu

static struct {
	uint8_t *base;
	uint32_t size, used, top; /* top: the last block's offset, or NO_BLK */
} arena = {0, 0, 0, NO_BLK};

/* The CPUs of a parallel run (pc/mp.c) allocate at once: a spin lock
 * around the arena's bookkeeping. */
static volatile int arena_lock;

static void arena_enter(void)
{
	while (__atomic_exchange_n(&arena_lock, 1, __ATOMIC_ACQUIRE))
		__asm__ volatile("pause");
}

static void arena_leave(void)
{
	__atomic_store_n(&arena_lock, 0, __ATOMIC_RELEASE);
}

static void *b_alloc(void *ctx, size_t n)
{
	struct blk *b = 0;
	(void)ctx;

	if (n > arena.size)
		return 0;
	n = (n + 15) & ~(size_t)15;
	arena_enter();
	if (n + sizeof(*b) <= arena.size - arena.used) {
		b = (struct blk *)(void *)(arena.base + arena.used);
		b->size = (uint32_t)n;
		b->prev = arena.top;
		b->free = 0;
		arena.top = arena.used;
		arena.used += (uint32_t)(sizeof(*b) + n);
	}
	arena_leave();
	if (!b)
		return 0;
	pmh_memset(b + 1, 0, n);
	return b + 1;
}

void *bios_heap_alloc(size_t n)
{
	return b_alloc(0, n);
}

size_t bios_heap_room(void)
{
	size_t room = 0;

	arena_enter();
	if (arena.size - arena.used > sizeof(struct blk))
		room = (arena.size - arena.used - sizeof(struct blk)) & ~(size_t)15;
	arena_leave();
	return room;
}

static void b_free(void *ctx, void *p)
{
	uint8_t *q = p;
	(void)ctx;

	arena_enter();
	if (q && q >= arena.base + sizeof(struct blk) && q <= arena.base + arena.used) {
		((struct blk *)(void *)q - 1)->free = 1;
		while (arena.top != NO_BLK &&
		       ((struct blk *)(void *)(arena.base + arena.top))->free) {
			arena.used = arena.top;
			arena.top = ((struct blk *)(void *)(arena.base + arena.top))->prev;
		}
	}
	arena_leave();
}

/* Where the arena may lie: RAM from 1 MiB (below: the BIOS's data, the
 * EBDA, the AP trampoline) to the last page below 4 GiB (no paging: 32-bit
 * addresses). The 4 MiB in .bss (never in the file) where the loader gives
 * no map, or the map nothing larger. */
#define ARENA_LOW      0x100000ull
#define ARENA_HIGH     0xfffff000ull
#define ARENA_FALLBACK (4u << 20)
static uint8_t arena_fallback[ARENA_FALLBACK] __attribute__((aligned(16)));
/* The kernel's end: a section (".persistent.bss", one GCC makes NOBITS)
 * that bios/kernel.lds puts after .bss, the last of the image. */
static uint8_t kernel_end[16] __attribute__((section(".persistent.bss"), aligned(16)));

struct span {
	uint64_t lo, hi;
};

/* What the arena must leave alone above 1 MiB: the kernel, and what the
 * loader put there that is read after the arena is set up (the command
 * line and the config file's module). */
static unsigned busy_spans(struct span *b)
{
	unsigned n = 0;

	b[n++] = (struct span){ARENA_LOW, (uintptr_t)kernel_end + sizeof(kernel_end)};
	if (bctx.cmdline)
		b[n++] = (struct span){(uintptr_t)bctx.cmdline,
				       (uintptr_t)bctx.cmdline + pmh_strlen(bctx.cmdline) + 1};
	if (bctx.cfg)
		b[n++] = (struct span){(uintptr_t)bctx.cfg, (uintptr_t)bctx.cfg + bctx.cfg_len};
	return n;
}

/* The largest stretch of RAM [lo, hi) clear of the n spans in b, 16-byte
 * aligned, into *best where it is larger: it starts at lo or at a span's
 * end, and ends at hi or at the next span's start. */
static void best_gap(uint64_t lo, uint64_t hi, const struct span *b, unsigned n, struct span *best)
{
	lo = lo < ARENA_LOW ? ARENA_LOW : lo;
	hi = hi > ARENA_HIGH ? ARENA_HIGH : hi;
	for (unsigned i = 0; i <= n; i++) {
		uint64_t s = ((i < n ? b[i].hi : lo) + 15) & ~15ull, e = hi;
		for (unsigned j = 0; j < n && s < e; j++) {
			if (b[j].lo <= s && s < b[j].hi)
				s = e; /* inside a span: no start */
			else if (s < b[j].lo && b[j].lo < e)
				e = b[j].lo;
		}
		if (s >= lo && s < e && e - s > best->hi - best->lo)
			*best = (struct span){s, e};
	}
}

/* The arena: the largest free stretch the loader's memory map lists as
 * RAM (its mem_upper without a map), so that a machine with the memory
 * for them keeps every result of 1,024 CPUs and its JSON (tens of MiB). */
static void arena_setup(uint32_t magic, const struct mb_info *mb)
{
	struct span b[3], best = {0, 0};
	unsigned n = busy_spans(b);

	if (magic == MB_LOADER_MAGIC && (mb->flags & MB_INFO_MMAP)) {
		uint32_t off = 0;
		while (off + sizeof(struct mb_mmap) <= mb->mmap_length) {
			const struct mb_mmap *m =
			    (const struct mb_mmap *)(uintptr_t)(mb->mmap_addr + off);
			if (m->type == MB_MMAP_RAM && m->len)
				best_gap(m->addr, m->addr + m->len, b, n, &best);
			off += m->size + sizeof(m->size);
		}
	} else if (magic == MB_LOADER_MAGIC && (mb->flags & MB_INFO_MEM)) {
		best_gap(ARENA_LOW, ARENA_LOW + (uint64_t)mb->mem_upper * 1024, b, n, &best);
	}
	arena.base = arena_fallback;
	arena.size = ARENA_FALLBACK;
	if (best.hi - best.lo > ARENA_FALLBACK) {
		arena.base = (uint8_t *)(uintptr_t)best.lo;
		arena.size = (uint32_t)(best.hi - best.lo);
	}
}

static void calibrate_tsc(void)
{
	uint32_t count = PIT_HZ / (1000000u / CALIBRATE_US);
	uint8_t b = inb(PORT_B);
	unsigned i = 0;

	outb(PORT_B, (uint8_t)((b & ~PORT_B_SPEAKER) | PORT_B_GATE2));
	outb(PIT_CMD, PIT_CMD_CH2_MODE0);
	outb(PIT_CH2, (uint8_t)count);
	outb(PIT_CH2, (uint8_t)(count >> 8));
	uint64_t t0 = hw_rdtsc();
	while (!(inb(PORT_B) & PORT_B_OUT2) && ++i < PIT_POLLS)
		;
	uint64_t t1 = hw_rdtsc();
	outb(PORT_B, b);
	pmh_tsc_per_us = i < PIT_POLLS ? (t1 - t0) / CALIBRATE_US : 0;
}

static uint64_t b_now_us(void *ctx)
{
	(void)ctx;
	return pmh_tsc_per_us ? hw_rdtsc() / pmh_tsc_per_us : 0;
}

static void cmd_error(void *ctx, const char *msg)
{
	char line[256];
	pmh_fmt(line, sizeof(line), "options: %s: %s (default kept)", (const char *)ctx, msg);
	con_line(line);
}

/* The first module whose name (its command line's first word) ends in
 * pmuharness.cfg: the config file, as GRUB's `module`, syslinux's
 * mboot.c32 (`---`) or QEMU's -initrd hand it over. */
static void find_config(const struct mb_info *mb)
{
	const struct mb_module *m = (const struct mb_module *)(uintptr_t)mb->mods_addr;
	size_t nl = pmh_strlen(OPTIONS_CONFIG_NAME);

	for (uint32_t i = 0; i < mb->mods_count; i++) {
		const char *s = (const char *)(uintptr_t)m[i].string;
		size_t n = 0;
		while (s && s[n] && s[n] != ' ')
			n++;
		if (n >= nl && !pmh_strncmp(s + n - nl, OPTIONS_CONFIG_NAME, nl) &&
		    m[i].end >= m[i].start) {
			bctx.cfg = (const char *)(uintptr_t)m[i].start;
			bctx.cfg_len = m[i].end - m[i].start;
			return;
		}
	}
}

/* The config file on the boot disk, \EFI\BOOT\pmuharness.cfg as on UEFI
 * and as syslinux.cfg hands it over: checked through its FAT chain, since
 * a loader reading a cut chain hands over what it found (zeros, another
 * file's bytes) or nothing. Read from the disk where the loader gave no
 * module. Found but unreadable: said, the module dropped, and on_finish =
 * poweroff (a halt here) instead of the default wait, so that an
 * unattended machine does not wait at a prompt on options it was never
 * given; the command line still applies over it. */
#define CFG_MAX (32u * 1024u) /* as options_config reads on UEFI */
static void config_from_disk(struct options *o)
{
	static const char *const path[] = {"EFI", "BOOT", OPTIONS_CONFIG_NAME};
	static char text[CFG_MAX];
	char why[200], line[400];
	uint32_t size = 0;

	if (bios_mp_ap_busy())
		return;
	switch (disk_read_file(path, 3, text, sizeof(text), &size, why, sizeof(why))) {
	case DISK_FILE_NONE:
		break;
	case DISK_FILE_READ:
		if (!bctx.cfg) {
			bctx.cfg = text;
			bctx.cfg_len = size < sizeof(text) ? size : sizeof(text);
		}
		break;
	case DISK_FILE_BAD:
		pmh_fmt(line, sizeof(line),
			"error: options: \\EFI\\BOOT\\" OPTIONS_CONFIG_NAME " cannot be read (%s): "
			"NONE of its options apply; on_finish = poweroff instead of waiting on "
			"defaults (the machine halts after the run)",
			why);
		b_line(0, line);
		bctx.cfg = NULL;
		o->on_finish = FINISH_POWEROFF;
		break;
	}
}

/* The config file, then the command line's words after the kernel's name
 * over it (a loader puts the name first: QEMU's -kernel, GRUB, syslinux's
 * mboot.c32). */
static void b_options(void *ctx, struct options *o)
{
	static char buf[CMDLINE_MAX];
	char *argv[ARGS_MAX];
	int argc = 0;
	(void)ctx;

	if (bctx.cmdline) /* before the disk walk below uses low memory */
		pmh_strlcpy(buf, bctx.cmdline, sizeof(buf));
	config_from_disk(o);
	if (bctx.cfg)
		options_parse_config(o, bctx.cfg, bctx.cfg_len, cmd_error, OPTIONS_CONFIG_NAME);
	if (!bctx.cmdline)
		return;
	for (char *p = buf; *p && argc < ARGS_MAX;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (*p)
			argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	if (argc && !pmh_strchr(argv[0], '=') && argv[0][0] != '-')
		options_parse_args(o, argc - 1, argv + 1, cmd_error, "command line");
	else
		options_parse_args(o, argc, argv, cmd_error, "command line");
}

static void fatal_line(const char *s)
{
	con_fatal(s);
}

/* The boot CPU's SVR as the BIOS left it, when the run enabled it. */
static uint32_t bsp_svr;
static bool bsp_svr_changed;

/* Our IDT, the boot CPU's local APIC software-enabled (a BIOS may leave it
 * at the SVR's reset value, disabled: the APs get the same in ap_main), and
 * the exception report and recovery around fn. */
static bool b_guard(void *ctx, void (*fn)(void *arg), void *arg)
{
	volatile bool crashed = false;
	struct apic_info ai;
	(void)ctx;

	idt_install();
	if (!apic_detect(&ai))
		bsp_svr_changed = apic_sw_enable(&bsp_svr);
	if (pmh_setjmp(&bctx.recover))
		crashed = true;
	else {
		isr_set_fatal(fatal_line, &bctx.recover);
		fn(arg);
	}
	isr_set_fatal(fatal_line, NULL);
	pmi_disarm(); /* a recovered check may have left the PMI armed */
	return crashed;
}

void bios_fatal_rearm(void)
{
	isr_set_fatal(fatal_line, &bctx.recover);
}

static void b_unguard(void *ctx)
{
	(void)ctx;
	if (bsp_svr_changed)
		apic_sw_restore(bsp_svr);
	bsp_svr_changed = false;
	idt_restore();
}

static void b_qemu_exit(void *ctx, unsigned value)
{
	(void)ctx;
	__asm__ volatile("outl %0, %1" : : "a"(value), "Nd"((uint16_t)QEMU_EXIT_PORT));
}

/* No power-off without ACPI: the machine halts, and says so. */
static void b_halt(void *ctx)
{
	(void)ctx;
	con_line("halted: switch the machine off");
	for (;;)
		__asm__ volatile("cli; hlt");
}

static const uint8_t *phys_map(void *ctx, uint32_t phys, uint32_t len)
{
	(void)ctx;
	(void)len; /* no paging: all of memory is there */
	return (const uint8_t *)(uintptr_t)phys;
}

void bios_main(uint32_t magic, const struct mb_info *mb);
void bios_main(uint32_t magic, const struct mb_info *mb)
{
	struct platform p = {
	    .line = b_line,
	    .screen = con_prompt,
	    .status = vga_status,
	    .alloc = b_alloc,
	    .free = b_free,
	    .options = b_options,
	    .now_us = b_now_us,
	    .results_open = bios_results_open,
	    .results_close = bios_results_close,
	    .guard = b_guard,
	    .unguard = b_unguard,
	    .qemu_exit = b_qemu_exit,
	    .power_off = b_halt,
	    .key_flush = key_flush,
	    .key_wait = key_wait,
	    .run_cpus = bios_mp_run,
	};

	disk_save_pic(); /* the BIOS's masks, for its INT 13h calls */
	outb(PIC1_IMR, PIC_MASK_ALL);
	outb(PIC2_IMR, PIC_MASK_ALL);
	con_init();
	if (magic != MB_LOADER_MAGIC)
		con_line("warning: not started by a Multiboot loader; no command line");
	else if (mb->flags & MB_INFO_CMDLINE)
		bctx.cmdline = (const char *)(uintptr_t)mb->cmdline;
	if (magic == MB_LOADER_MAGIC && (mb->flags & MB_INFO_MODS))
		find_config(mb);
	arena_setup(magic, mb);
	calibrate_tsc();
	/* the board's identity for the screen and the JSON, as on UEFI */
	p.smbios = smbios_find(phys_map, NULL, &p.smbios_len);
	harness_main(&p);
	b_halt(0);
}
