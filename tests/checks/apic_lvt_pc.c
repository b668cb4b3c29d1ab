/* apic.lvt-pc: the performance-counter LVT entry (xAPIC 0x340 / x2APIC MSR
 * 0x834, SDM Vol. 3A 11.5.1, 11.12.1.2) takes and reads back a vector, the fixed and NMI delivery
 * modes and the mask bit, and gets the firmware's value back afterwards. */
#include "../../apic/apic.h"
#include "../../apic/isr.h"
#include "../../pmu/percpu.h"
#include "../suite.h"

#define LVT_FIELDS (LVT_VECTOR_MASK | LVT_DM_MASK | LVT_MASKED)

/* Interrupts taken on the test vector, per CPU (pmu/percpu.h). */
struct lvt_seen {
	volatile unsigned stray;
};
static struct lvt_seen seen PMH_PERCPU;

static void count_stray(struct int_frame *f)
{
	(void)f;
	PCPU(seen).stray++;
	apic_eoi();
}

static void run(struct check_ctx *c)
{
	/* Unmasked only with a vector that has a handler, so that an overflow
	 * the firmware left running cannot reach an unhandled gate. */
	static const uint32_t patterns[] = {
	    LVT_MASKED | LVT_DM_FIXED | VEC_PMI,
	    LVT_MASKED | LVT_DM_NMI | 0x5a,
	    LVT_DM_FIXED | VEC_SPURIOUS_TEST,
	    LVT_MASKED | LVT_DM_FIXED | 0xa5,
	};
	const char *why = apic_lvt_pc_unusable(c->apic);
	uint32_t orig, back;
	unsigned ok = 0;

	if (why) {
		check_skip(c, "%s", why);
		return;
	}
	orig = apic_lvt_pc_read();
	PCPU(seen).stray = 0;
	isr_set_handler(VEC_SPURIOUS_TEST, count_stray);
	for (unsigned i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
		apic_lvt_pc_write(patterns[i]);
		back = apic_lvt_pc_read() & LVT_FIELDS;
		if (back != patterns[i])
			check_fail(c,
				   "expected LVTPC 0x%x after writing it, got 0x%x (original 0x%x)",
				   patterns[i], back, orig);
		else
			ok++;
	}
	apic_lvt_pc_write(orig);
	back = apic_lvt_pc_read();
	isr_set_handler(VEC_SPURIOUS_TEST, 0);
	if ((back & LVT_FIELDS) != (orig & LVT_FIELDS))
		check_fail(c, "expected the original LVTPC 0x%x back, got 0x%x", orig, back);
	else
		check_pass(
		    c, "%u/%u values (vector, fixed/NMI, mask) read back; original 0x%x restored%s",
		    ok, (unsigned)(sizeof(patterns) / sizeof(patterns[0])), orig,
		    PCPU(seen).stray ? " (an interrupt arrived while unmasked)" : "");
}

PMH_CHECK(apic_lvt_pc, .id = "apic.lvt-pc",
	  .summary = "LVTPC takes vector, delivery mode and mask; original restored", .order = 20,
	  .run = run);
