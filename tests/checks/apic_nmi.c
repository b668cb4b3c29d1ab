/* apic.nmi: an NMI sent to this CPU through the ICR (physical destination =
 * own APIC ID) reaches the harness's NMI path (vector 2) exactly once. This
 * is the path an NMI-delivered PMI takes (facts §8). */
#include "../../apic/apic.h"
#include "../../apic/isr.h"
#include "../../pmu/hw.h"
#include "../suite.h"

#define WAIT_US 10000
#define SETTLE_US 1000

static volatile unsigned hits;

static void on_nmi(struct int_frame *f)
{
	(void)f;
	hits++; /* no EOI: NMIs are not acknowledged at the APIC */
}

static void run(struct check_ctx *c)
{
	uint64_t per_us = hw_tsc_per_us() ? hw_tsc_per_us() : 4000;
	uint64_t t0;
	unsigned early;

	if (!c->apic || c->apic->mode == APIC_MODE_DISABLED) {
		check_skip(c, "the local APIC is disabled (IA32_APIC_BASE enable bit clear)");
		return;
	}
	hits = 0;
	isr_set_handler(VEC_NMI, on_nmi);
	if (apic_self_nmi())
		check_fail(c, "expected the ICR to go idle, got delivery status still pending");
	t0 = hw_rdtsc();
	while (hits < 1 && hw_rdtsc() - t0 < WAIT_US * per_us)
		hw_relax();
	early = hits;
	t0 = hw_rdtsc();
	while (hw_rdtsc() - t0 < SETTLE_US * per_us)
		hw_relax();
	isr_set_handler(VEC_NMI, 0);
	if (hits != 1)
		check_fail(c,
			   "expected 1 NMI on vector 2 within %u us, got %u (%u before settling)",
			   WAIT_US, hits, early);
	check_pass(c, "%s: self NMI (ICR to APIC ID 0x%x) taken once on the NMI path",
		   apic_mode_name(c->apic->mode), c->apic->id);
}

PMH_CHECK(apic_nmi, .id = "apic.nmi", .summary = "a self NMI reaches the NMI path once",
	  .order = 22, .run = run);
