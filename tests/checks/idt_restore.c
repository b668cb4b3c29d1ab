/* idt.restore: the harness runs on its own IDT and gives the firmware's
 * IDTR back: one restore/install cycle must load exactly the firmware's
 * IDTR, then ours again with our gates in it. */
#include "idt_restore.h"
#include "../../apic/isr.h"

void idt_restore_judge(struct check_ctx *c, const struct idt_cycle *y)
{
	if (y->ours.base == y->fw.base) {
		check_fail(c, "expected the harness's IDT loaded, got the firmware's (base 0x%llx)",
			   (unsigned long long)y->fw.base);
		return;
	}
	if (y->mid.base != y->fw.base || y->mid.limit != y->fw.limit)
		check_fail(c,
			   "expected the firmware IDTR 0x%llx/0x%x after restore, got 0x%llx/0x%x",
			   (unsigned long long)y->fw.base, y->fw.limit,
			   (unsigned long long)y->mid.base, y->mid.limit);
	if (y->again.base != y->ours.base || y->again.limit != y->ours.limit)
		check_fail(c, "expected our IDTR 0x%llx/0x%x after reinstall, got 0x%llx/0x%x",
			   (unsigned long long)y->ours.base, y->ours.limit,
			   (unsigned long long)y->again.base, y->again.limit);
	else if (y->gate != y->stub)
		check_fail(c, "expected gate 0x%x at our stub 0x%llx, got 0x%llx", VEC_PMI,
			   (unsigned long long)y->stub, (unsigned long long)y->gate);
	check_pass(c, "firmware IDTR 0x%llx/0x%x restored, ours 0x%llx reinstalled",
		   (unsigned long long)y->fw.base, y->fw.limit, (unsigned long long)y->ours.base);
}

#ifndef PMH_HOST
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
	struct idt_cycle y = {.fw = idt_firmware(), .stub = (uint64_t)(uintptr_t)isr_stub_0xee};
	bool irq = hw_irq_enabled();

	idt_read(&y.ours);
	if (y.ours.base != y.fw.base) {
		hw_irq_disable();
		idt_restore();
		idt_read(&y.mid);
		idt_install();
		idt_read(&y.again);
		if (irq)
			hw_irq_enable();
		y.gate = gate_target(&y.again, VEC_PMI);
	}
	idt_restore_judge(c, &y);
}
#else
static void run(struct check_ctx *c)
{
	check_skip(c, "the host build has no IDT (simulated CPU)");
}
#endif

PMH_CHECK(idt_restore, .id = "idt.restore",
	  .summary = "restore gives back the firmware IDTR; install brings ours back", .order = 23,
	  .run = run);
