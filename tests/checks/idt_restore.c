/* idt.restore: the harness runs on its own IDT and gives the firmware's
 * IDTR back: one restore/install cycle must load exactly the firmware's
 * IDTR, then ours again with our gates in it. */
#include "../suite.h"
#ifndef PMH_HOST
#include "../../apic/idt.h"
#include "../../apic/isr.h"
#include "../../pmu/hw.h"

extern char isr_stub_0xee[];

/* A 64-bit IDT gate: 16 bytes, the handler's offset in bytes 0-1, 6-7 and
 * 8-11 (SDM Vol. 3A 6.14.1); a 32-bit one (bios/): 8 bytes, the offset in
 * bytes 0-1 and 6-7 (SDM Vol. 3A 6.11). */
#ifdef __i386__
#define GATE_BYTES 8ull
#else
#define GATE_BYTES 16ull
#endif

/* The handler address in 64-bit gate v of an IDT. */
static uint64_t gate_target(const struct idtr *r, unsigned v)
{
	const volatile uint8_t *g = (const volatile uint8_t *)(uintptr_t)(r->base + GATE_BYTES * v);
#ifdef __i386__
	return (uint64_t)(g[0] | g[1] << 8) | (uint64_t)(g[6] | g[7] << 8) << 16;
#endif
	return (uint64_t)(g[0] | g[1] << 8) | (uint64_t)(g[6] | g[7] << 8) << 16 |
	       (uint64_t)((uint32_t)g[8] | (uint32_t)g[9] << 8 | (uint32_t)g[10] << 16 |
			  (uint32_t)g[11] << 24)
		   << 32;
}

static void run(struct check_ctx *c)
{
	struct idtr ours, fw = idt_firmware(), mid, again;
	bool irq = hw_irq_enabled();

	idt_read(&ours);
	if (ours.base == fw.base) {
		check_fail(c, "expected the harness's IDT loaded, got the firmware's (base 0x%llx)",
			   (unsigned long long)fw.base);
		return;
	}
	hw_irq_disable();
	idt_restore();
	idt_read(&mid);
	idt_install();
	idt_read(&again);
	if (irq)
		hw_irq_enable();
	if (mid.base != fw.base || mid.limit != fw.limit)
		check_fail(
		    c, "expected the firmware IDTR 0x%llx/0x%x after restore, got 0x%llx/0x%x",
		    (unsigned long long)fw.base, fw.limit, (unsigned long long)mid.base, mid.limit);
	if (again.base != ours.base || again.limit != ours.limit)
		check_fail(c, "expected our IDTR 0x%llx/0x%x after reinstall, got 0x%llx/0x%x",
			   (unsigned long long)ours.base, ours.limit,
			   (unsigned long long)again.base, again.limit);
	else if (gate_target(&again, VEC_PMI) != (uint64_t)(uintptr_t)isr_stub_0xee)
		check_fail(c, "expected gate 0x%x at our stub 0x%llx, got 0x%llx", VEC_PMI,
			   (unsigned long long)(uintptr_t)isr_stub_0xee,
			   (unsigned long long)gate_target(&again, VEC_PMI));
	check_pass(c, "firmware IDTR 0x%llx/0x%x restored, ours 0x%llx reinstalled",
		   (unsigned long long)fw.base, fw.limit, (unsigned long long)ours.base);
}
#else
static void run(struct check_ctx *c) { check_skip(c, "the host build has no IDT (simulated CPU)"); }
#endif

PMH_CHECK(idt_restore, .id = "idt.restore",
	  .summary = "restore gives back the firmware IDTR; install brings ours back", .order = 23,
	  .run = run);
