/* AMD event-select decoding for the simulated AMD CPUs. */
#include "amd_sim.h"
#include "../../pmu/msr.h"

/* Events per iteration of the selected event; 0 for events the workload
 * vector does not describe. Codes from K8 BKDG §10.2.1.6 (76h CPU clocks
 * not halted, C0h retired instructions, C2h retired branches, C3h retired
 * mispredicted branches), the same on later families (facts §7). */
static uint64_t event_count(unsigned code, const struct workload_vector *v)
{
	switch (code) {
	case 0x076:
		return v->cycles;
	case 0x0c0:
		return v->instructions;
	case 0x0c2:
		return v->branches;
	case 0x0c3:
		return v->branch_misses;
	default:
		return 0;
	}
}

uint64_t amd_sim_rate(uint64_t sel, bool counting, const struct workload_vector *v)
{
	unsigned code = (unsigned)(sel & 0xff) | (unsigned)((sel >> 32) & 0xf) << 8;
	unsigned cmask = (unsigned)(sel >> EVTSEL_CMASK_SHIFT) & 0xff;
	uint64_t n;

	if (!counting)
		return 0;
	/* The harness runs at CPL 0: only OS (bit 17) counts it; USR alone
	 * counts at CPL > 0 (K8 BKDG §10.2). */
	if (!(sel & EVTSEL_OS))
		return 0;
	n = event_count(code, v);
	/* Edge detect counts negated-to-asserted transitions (K8 BKDG §10.2);
	 * in a steady loop the condition never changes within an iteration. */
	if (sel & EVTSEL_EDGE)
		return 0;
	if (!cmask && !(sel & EVTSEL_INV))
		return n;
	/* CNT_MASK (K8 BKDG §10.2): one count per cycle whose event count is
	 * >= CNT_MASK, or < CNT_MASK with INV. The model spreads an
	 * iteration's events evenly over its cycles. */
	if (!v->cycles)
		return 0;
	bool ge = n / v->cycles >= cmask;
	return ((sel & EVTSEL_INV) ? !ge : ge) ? v->cycles : 0;
}
