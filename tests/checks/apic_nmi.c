/* apic.nmi: an NMI sent to this CPU through the ICR (physical destination =
 * own APIC ID, SDM Vol. 3A 11.6.1) reaches the harness's NMI path (vector 2)
 * exactly once. This is the path an NMI-delivered PMI takes. Both waits are
 * bounded (apic_wait_us); a FAIL names the NMIs seen. */
#include "../../apic/apic.h"
#include "../../apic/isr.h"
#include "../../pmu/percpu.h"
#include "../suite.h"

#define WAIT_US	  10000 /* delivery is immediate; 10 ms is generous */
#define SETTLE_US 1000	/* extra time in which a second NMI would show */

/* Per CPU (pmu/percpu.h): the NMI is taken on the CPU that sent it. */
struct nmi_seen {
	volatile unsigned hits;
};
static struct nmi_seen seen PMH_PERCPU;

static void on_nmi(struct int_frame *f)
{
	(void)f;
	PCPU(seen).hits++; /* no EOI: NMIs are not acknowledged at the APIC */
}

static bool got_one(const void *arg)
{
	(void)arg;
	return PCPU(seen).hits >= 1;
}

static void run(struct check_ctx *c)
{
	unsigned early;

	if (!c->apic || c->apic->mode == APIC_MODE_DISABLED) {
		check_skip(c, "the local APIC is disabled (IA32_APIC_BASE enable bit clear)");
		return;
	}
	PCPU(seen).hits = 0;
	isr_set_handler(VEC_NMI, on_nmi);
	if (apic_self_nmi())
		check_fail(c, "expected the ICR to go idle, got delivery status still pending");
	apic_wait_us(got_one, 0, WAIT_US);
	early = PCPU(seen).hits;
	apic_wait_us(0, 0, SETTLE_US);
	isr_set_handler(VEC_NMI, 0);
	if (PCPU(seen).hits != 1)
		check_fail(c,
			   "expected 1 NMI on vector 2 within %u us of the ICR's send (NMI to APIC "
			   "ID 0x%x), got %u (%u before settling)",
			   WAIT_US, c->apic->id, PCPU(seen).hits, early);
	check_pass(c, "%s: self NMI (ICR to APIC ID 0x%x) taken once on the NMI path",
		   apic_mode_name(c->apic->mode), c->apic->id);
}

PMH_CHECK(apic_nmi, .id = "apic.nmi", .summary = "a self NMI reaches the NMI path once",
	  .order = 22, .run = run);
