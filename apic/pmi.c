/* The PMI service (apic/pmi.h). One handler serves every family through the
 * driver ops: the family's own protocol (stop, read status, ack until clear)
 * lives in ops->pmi_collect; this file adds the APIC side and bookkeeping.
 * Order per PMI (facts §8-§9, KNC §1.4.3.8-9):
 *   1. count it, log RIP and TSC, note whether LVTPC was auto-masked;
 *   2. unmask LVTPC now if the family auto-masks and tolerates an early
 *      unmask (generic Linux handler: unmask first);
 *   3. pmi_collect: stop, collect and clear every pending overflow;
 *   4. count each overflowed counter once, re-preload those with a reload;
 *   5. unmask LVTPC now under PMU_PMI_UNMASK_LATE: the PMI line is a 1-bit
 *      edge and only goes 0->1 again once status is clear (KNC §1.4.3.9);
 *   6. EOI for fixed delivery (an NMI has no EOI, facts §8);
 *   7. restart the counters the harness had running.
 * More than PMI_STORM_LIMIT PMIs in one arm/disarm window stop everything:
 * that PMI's overflows are still counted, nothing is re-armed, LVTPC stays
 * masked. */
#include "pmi.h"
#include "../pmu/hw.h"
#include "apic.h"
#include "isr.h"

static struct pmu *pmu;
static enum pmi_delivery delivery;
static uint32_t lvt_saved, lvt_armed;
static bool armed;
static uint64_t window; /* PMIs since pmi_arm */
static uint64_t reload[PMU_MAX_COUNTERS];
static volatile struct pmi_stats stats;

static void unmask(void) { apic_lvt_pc_write(lvt_armed); }

static void storm(struct pmu *p)
{
	p->ops->stop(p, pmu_all_mask(p));
	stats.storm = true;
	apic_lvt_pc_write(lvt_armed | LVT_MASKED);
}

static void pmi_handler(struct int_frame *f)
{
	uint64_t tsc = hw_rdtsc();
	struct pmu *p = pmu;
	uint64_t mask = 0, slot;
	uint32_t flags;

	if (!armed || !p) {
		/* A late PMI after disarm: acknowledge it and leave. */
		if (f->vector != VEC_NMI)
			apic_eoi();
		return;
	}
	flags = p->pmi_flags;
	stats.total++;
	slot = stats.n_log % PMI_LOG;
	stats.rip[slot] = f->rip;
	stats.tsc[slot] = tsc;
	stats.mask[slot] = 0;
	stats.n_log++;
	if (apic_lvt_pc_read() & LVT_MASKED)
		stats.lvt_masked_on_entry++;

	if ((flags & PMU_PMI_AUTOMASK) && !(flags & PMU_PMI_UNMASK_LATE))
		unmask();
	if (p->ops->pmi_collect(p, &mask) != 0)
		mask = 0;
	stats.mask[slot] = mask;
	if (!mask)
		stats.spurious++;
	stats.skid[slot] = 0;
	for (unsigned i = 0; i < p->n && i < PMU_MAX_COUNTERS; i++) {
		if (!(mask & (1ull << i)))
			continue;
		stats.overflows[i]++;
		/* Counting is stopped here: what the lowest overflowed counter
		 * holds past its wrap is the skid in its events. */
		if (!(mask & ((1ull << i) - 1))) {
			uint64_t v = 0;
			if (p->ops->read(p, i, &v) == HW_OK)
				stats.skid[slot] = v;
		}
	}
	if (++window > PMI_STORM_LIMIT) {
		/* Counted, but not re-armed, unmasked or restarted. */
		storm(p);
		if (delivery == PMI_FIXED)
			apic_eoi();
		return;
	}
	for (unsigned i = 0; i < p->n && i < PMU_MAX_COUNTERS; i++)
		if ((mask & (1ull << i)) && reload[i])
			pmu_preload(p, i, reload[i]);
	if ((flags & PMU_PMI_AUTOMASK) && (flags & PMU_PMI_UNMASK_LATE))
		unmask();
	if (delivery == PMI_FIXED)
		apic_eoi();
	p->ops->start(p, p->active);
}

int pmi_arm(struct pmu *p, enum pmi_delivery mode)
{
	uint32_t back;

	if (!p || !p->ops || !p->ops->pmi_collect || !p->ops->start || !p->ops->stop ||
	    apic_current_mode() == APIC_MODE_DISABLED)
		return -1;
	if (armed)
		pmi_disarm();
	pmu = p;
	delivery = mode;
	window = 0;
	for (unsigned i = 0; i < PMU_MAX_COUNTERS; i++)
		reload[i] = 0;
	pmi_reset_stats();
	lvt_saved = apic_lvt_pc_read();
	/* Linux programs NMI delivery with vector field 0 (facts §8). */
	lvt_armed = mode == PMI_NMI ? LVT_DM_NMI : (LVT_DM_FIXED | VEC_PMI);
	isr_set_handler(mode == PMI_NMI ? VEC_NMI : VEC_PMI, pmi_handler);
	armed = true;
	apic_lvt_pc_write(lvt_armed);
	back = apic_lvt_pc_read() & (LVT_VECTOR_MASK | LVT_DM_MASK | LVT_MASKED);
	if (back != lvt_armed) {
		pmi_disarm();
		return -2; /* LVTPC did not take the value */
	}
	return 0;
}

void pmi_disarm(void)
{
	if (!armed)
		return;
	apic_lvt_pc_write(lvt_saved);
	armed = false;
	isr_set_handler(delivery == PMI_NMI ? VEC_NMI : VEC_PMI, 0);
	pmu = 0;
}

void pmi_set_reload(unsigned ctr, uint64_t n)
{
	if (ctr < PMU_MAX_COUNTERS)
		reload[ctr] = n;
}

void pmi_reset_stats(void)
{
	stats.total = 0;
	stats.spurious = 0;
	for (unsigned i = 0; i < PMU_MAX_COUNTERS; i++)
		stats.overflows[i] = 0;
	stats.n_log = 0;
	for (unsigned i = 0; i < PMI_LOG; i++) {
		stats.rip[i] = 0;
		stats.tsc[i] = 0;
		stats.mask[i] = 0;
	}
	stats.lvt_masked_on_entry = 0;
	stats.storm = false;
}

const volatile struct pmi_stats *pmi_stats(void) { return &stats; }

bool pmi_wait(uint64_t total, uint64_t timeout_us)
{
	/* Without a calibrated TSC assume 4 GHz: never shorter than asked on a
	 * clock up to 4 GHz. */
	uint64_t per_us = hw_tsc_per_us() ? hw_tsc_per_us() : 4000;
	uint64_t limit = timeout_us > UINT64_MAX / per_us ? UINT64_MAX : timeout_us * per_us;
	uint64_t t0 = hw_rdtsc();

	while (stats.total < total) {
		if (hw_rdtsc() - t0 >= limit)
			return stats.total >= total;
		hw_relax();
	}
	return true;
}
