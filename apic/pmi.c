/* The PMI service (apic/pmi.h). One handler serves every family through the
 * driver ops: the family's own protocol (stop, read status, ack until clear)
 * lives in ops->pmi_collect; this file adds the APIC side and bookkeeping.
 * Order per PMI (Linux arch/x86/events/core.c
 * x86_pmu_handle_irq, intel/core.c intel_pmu_handle_irq; KNC PMU guide
 * #327357 §1.4.3.8-9):
 *   1. count it, log RIP and TSC, note whether LVTPC was auto-masked;
 *   2. unmask LVTPC now if the family auto-masks and tolerates an early
 *      unmask (generic Linux handler: unmask first);
 *   3. pmi_collect: stop, collect and clear every pending overflow;
 *   4. count each overflowed counter once, re-preload those with a reload;
 *   5. unmask LVTPC now under PMU_PMI_UNMASK_LATE: unmasking while a flag is
 *      still set raises another PMI (Linux late_ack, intel/core.c; KNC's 1-bit
 *      line only rises on 0->1, KNC §1.4.3.9);
 *   6. EOI for fixed delivery (an NMI has no EOI: SDM Vol. 3A 11.8.5);
 *   7. restart the counters the harness had running.
 * A PMI that collects nothing is an echo when the family documents late
 * PMIs (PMU_PMI_LATE_ECHO) and a real one came within PMI_ECHO_US, else
 * spurious. More than PMI_STORM_LIMIT PMIs in one arm/disarm window, or an
 * overflow flag that will not clear, stop everything: that PMI's overflows
 * are still counted and the stuck flags named, the PMU is reset through
 * the driver (Linux intel_pmu_reset after 100 loops), nothing is re-armed and
 * LVTPC stays masked until pmi_disarm(). */
#include "pmi.h"
#include "../pmu/hw.h"
#include "apic.h"
#include "idt.h"
#include "../pmu/percpu.h"

/* This CPU's PMI service (pmu/percpu.h): a PMI is taken on the CPU whose
 * counters overflowed, so the handler finds the state that CPU armed. */
struct pmi_cpu {
	struct pmu *pmu;
	enum pmi_delivery delivery;
	uint32_t lvt_saved, lvt_armed;
	bool armed;
	uint64_t window; /* PMIs since pmi_arm */
	uint64_t reload[PMU_MAX_COUNTERS];
	bool seen_real;	    /* a PMI collected something since the reset */
	uint64_t last_real; /* its TSC */
	volatile struct pmi_stats stats;
	/* The outermost open PMI window: what pmi_disarm() puts back when an
	 * exception left it open. */
	struct pmi_window opened;
	unsigned open_depth;
	/* pmi_set_unmask_always(false); zero, the default, is "always" */
	bool unmask_family_only;
};
static struct pmi_cpu pmi_cpu PMH_PERCPU;

static struct pmi_cpu *cpu(void)
{
	return &PCPU(pmi_cpu);
}

static void unmask(struct pmi_cpu *s)
{
	apic_lvt_pc_write(s->lvt_armed);
}

void pmi_set_unmask_always(bool always)
{
	cpu()->unmask_family_only = !always;
}

/* Records a driver op of the handler that failed, for pmi_trouble() to
 * name: a failed re-arm or restart would otherwise read as a lost PMI, a
 * failed collect as a spurious one. */
static void op_result(struct pmi_cpu *s, int e, const char *what)
{
	if (e == HW_OK)
		return;
	s->stats.op_failed++;
	s->stats.op_what = what;
	s->stats.op_err = (uint32_t)e;
}

/* The guard tripped: mask LVTPC first so the reset raises no PMI, then
 * reset the PMU (every counter off and zeroed, every flag acked) so that
 * the next check starts from a clean PMU. Every driver has the reset op
 * (PMU_DRIVER_OPS); a PMU without one is only stopped. */
static void storm(struct pmi_cpu *s, struct pmu *p)
{
	apic_lvt_pc_write(s->lvt_armed | LVT_MASKED);
	s->stats.storm = true;
	s->stats.storm_pmis = s->window;
	s->stats.reset_err =
	    (uint32_t)(p->ops->reset ? p->ops->reset(p) : p->ops->stop(p, pmu_all_mask(p)));
}

/* The family's collect step. When it gives up (a flag still set after
 * PMU_PMI_MAX_ROUNDS rounds, Linux intel_pmu_handle_irq) the flags still pending are stuck:
 * they are recorded and the overflows collected are kept. Any other error
 * is an op failure. Returns true when stuck. */
static bool collect(struct pmi_cpu *s, struct pmu *p, uint64_t *mask)
{
	uint64_t left = 0;
	int e;

	*mask = 0;
	e = p->ops->pmi_collect(p, mask);
	if (e == HW_OK)
		return false;
	if (*mask && p->ops->overflow_status(p, &left) == HW_OK && (left & *mask)) {
		s->stats.stuck |= left & pmu_all_mask(p);
		return true;
	}
	op_result(s, e, "collect"); /* an access fault, not a flag that stays */
	return false;
}

static void classify(struct pmi_cpu *s, uint32_t flags, uint64_t mask, uint64_t tsc)
{
	if (mask) {
		s->seen_real = true;
		s->last_real = tsc;
	} else if ((flags & PMU_PMI_LATE_ECHO) && s->seen_real &&
		   tsc - s->last_real < PMI_ECHO_US * hw_wait_ticks_per_us()) {
		s->stats.echo++;
	} else {
		s->stats.spurious++;
	}
}

static void count(struct pmi_cpu *s, struct pmu *p, uint64_t mask, uint64_t slot)
{
	s->stats.skid[slot] = 0;
	for (unsigned i = 0; i < p->n && i < PMU_MAX_COUNTERS; i++) {
		if (!(mask & (1ull << i)))
			continue;
		s->stats.overflows[i]++;
		/* Counting is stopped here: what the lowest overflowed counter
		 * holds past its wrap is the skid in its events. */
		if (!(mask & ((1ull << i) - 1))) {
			uint64_t v = 0;
			if (p->ops->read(p, i, &v) == HW_OK) {
				s->stats.skid[slot] = v;
				s->stats.skid_sum += v;
			}
		}
	}
}

static void pmi_handler(struct int_frame *f)
{
	uint64_t tsc = hw_rdtsc();
	struct pmi_cpu *s = cpu(); /* the CPU that took the PMI */
	struct pmu *p = s->pmu;
	uint64_t mask = 0, slot;
	uint32_t flags;

	if (!s->armed || !p) {
		/* A late PMI after disarm: acknowledge it and leave. */
		if (f->vector != VEC_NMI)
			apic_eoi();
		return;
	}
	flags = p->pmi_flags;
	s->stats.total++;
	slot = s->stats.n_log % PMI_LOG;
	s->stats.rip[slot] = f->rip;
	s->stats.tsc[slot] = tsc;
	s->stats.n_log++;
	if (apic_lvt_pc_read() & LVT_MASKED) {
		s->stats.lvt_masked_on_entry++;
		if (!(flags & PMU_PMI_AUTOMASK))
			s->stats.lvt_masked_foreign++;
	}

	if ((flags & PMU_PMI_AUTOMASK) && !(flags & PMU_PMI_UNMASK_LATE))
		unmask(s);
	bool stuck = collect(s, p, &mask);
	s->stats.mask[slot] = mask;
	classify(s, flags, mask, tsc);
	if (mask && !(mask & p->active))
		s->stats.after_stop++;
	count(s, p, mask, slot);
	s->window++;
	if (stuck || s->window > PMI_STORM_LIMIT) {
		/* Counted, but not re-armed, unmasked or restarted. */
		storm(s, p);
		if (s->delivery == PMI_FIXED)
			apic_eoi();
		return;
	}
	for (unsigned i = 0; i < p->n && i < PMU_MAX_COUNTERS; i++)
		if ((mask & (1ull << i)) && s->reload[i])
			op_result(s, pmu_preload(p, i, s->reload[i]), "re-arm");
	if ((flags & PMU_PMI_AUTOMASK) ? (flags & PMU_PMI_UNMASK_LATE) != 0
				       : !s->unmask_family_only)
		unmask(s); /* a family that never masks: after the flags are clear */
	if (s->delivery == PMI_FIXED)
		apic_eoi();
	op_result(s, p->ops->start(p, p->active), "restart");
}

/* An interrupt in the PMI's class but not on LVTPC's vector while armed:
 * the APIC delivered the PMI on the wrong vector. Counted for the checks,
 * acknowledged. */
static void stray_handler(struct int_frame *f)
{
	struct pmi_cpu *s = cpu();

	s->stats.wrong_vector++;
	s->stats.stray_vector = (uint32_t)f->vector;
	apic_eoi();
}

static void watch_strays(bool on)
{
	for (unsigned v = PMI_STRAY_FIRST; v <= PMI_STRAY_LAST; v++) {
		if (v == VEC_PMI)
			continue;
		if (on)
			idt_claim(v, true);
		isr_set_handler(v, on ? stray_handler : 0);
		if (!on)
			idt_claim(v, false);
	}
}

/* What tripped the guard outlives pmi_reset_stats(): a check that resets
 * the counts between runs would otherwise read the masked LVTPC of the
 * next run as lost PMIs. Cleared when the service is armed again. */
static void clear_trip(struct pmi_cpu *s)
{
	s->stats.stuck = 0;
	s->stats.storm_pmis = 0;
	s->stats.reset_err = 0;
	s->stats.storm = false;
}

/* LVTPC and the handlers back, the service disarmed. */
static void release(struct pmi_cpu *s)
{
	if (!s->armed)
		return;
	apic_lvt_pc_write(s->lvt_saved);
	s->armed = false;
	isr_set_handler(s->delivery == PMI_NMI ? VEC_NMI : VEC_PMI, 0);
	if (s->delivery == PMI_FIXED)
		watch_strays(false);
	s->pmu = 0;
}

int pmi_arm(struct pmu *p, enum pmi_delivery mode)
{
	struct pmi_cpu *s = cpu();
	uint32_t back;

	if (!p || !p->ops || !p->ops->pmi_collect || !p->ops->start || !p->ops->stop ||
	    apic_current_mode() == APIC_MODE_DISABLED)
		return -1;
	release(s);
	s->pmu = p;
	s->delivery = mode;
	s->window = 0;
	for (unsigned i = 0; i < PMU_MAX_COUNTERS; i++)
		s->reload[i] = 0;
	pmi_reset_stats();
	clear_trip(s);
	s->lvt_saved = apic_lvt_pc_read();
	/* Linux programs NMI delivery with vector field 0 (arch/x86/events/core.c
	 * perf_events_lapic_init). */
	s->lvt_armed = mode == PMI_NMI ? LVT_DM_NMI : (LVT_DM_FIXED | VEC_PMI);
	isr_set_handler(mode == PMI_NMI ? VEC_NMI : VEC_PMI, pmi_handler);
	if (mode == PMI_FIXED)
		watch_strays(true);
	s->armed = true;
	apic_lvt_pc_write(s->lvt_armed);
	back = apic_lvt_pc_read() & (LVT_VECTOR_MASK | LVT_DM_MASK | LVT_MASKED);
	if (back != s->lvt_armed) {
		release(s);
		return -2; /* LVTPC did not take the value */
	}
	return 0;
}

void pmi_disarm(void)
{
	struct pmi_cpu *s = cpu();

	/* An exception inside a window unwinds past its close: the firmware
	 * must not get the CPU back with its timer held off by the TPR. */
	if (s->open_depth) {
		s->open_depth = 1;
		pmi_window_close(&s->opened);
	}
	/* An exception inside the PMI handler itself leaves its vector in
	 * service without an EOI: every vector of its class and below, the
	 * firmware's timer too, would stay blocked (SDM Vol. 3A 11.8.3). */
	if (apic_current_mode() != APIC_MODE_DISABLED && apic_in_service(VEC_PMI))
		apic_eoi();
	release(s);
}

void pmi_set_reload(unsigned ctr, uint64_t n)
{
	if (ctr < PMU_MAX_COUNTERS)
		cpu()->reload[ctr] = n;
}

void pmi_reset_stats(void)
{
	struct pmi_cpu *s = cpu();
	volatile struct pmi_stats *t = &s->stats;

	t->total = 0;
	t->spurious = 0;
	t->echo = 0;
	for (unsigned i = 0; i < PMU_MAX_COUNTERS; i++)
		t->overflows[i] = 0;
	t->n_log = 0;
	for (unsigned i = 0; i < PMI_LOG; i++) {
		t->rip[i] = 0;
		t->tsc[i] = 0;
		t->mask[i] = 0;
		t->skid[i] = 0;
	}
	t->skid_sum = 0;
	t->lvt_masked_on_entry = 0;
	t->lvt_masked_foreign = 0;
	t->after_stop = 0;
	t->wrong_vector = 0;
	t->stray_vector = 0;
	t->op_failed = 0;
	t->op_what = 0;
	t->op_err = 0;
	s->seen_real = false;
}

const volatile struct pmi_stats *pmi_stats(void)
{
	return &cpu()->stats;
}

void pmi_window_open(struct pmi_window *w)
{
	struct pmi_cpu *s = cpu();

	w->irq = hw_irq_enabled();
	w->tpr = apic_current_mode() == APIC_MODE_DISABLED ? 0 : apic_tpr_swap(PMI_TPR);
	if (!s->open_depth++)
		s->opened = *w;
	hw_irq_enable();
}

void pmi_window_close(const struct pmi_window *w)
{
	struct pmi_cpu *s = cpu();

	hw_irq_disable();
	if (s->open_depth)
		s->open_depth--;
	if (apic_current_mode() != APIC_MODE_DISABLED)
		apic_tpr_swap(w->tpr);
	if (w->irq)
		hw_irq_enable();
}

static bool pmis_reached(const void *total)
{
	return cpu()->stats.total >= *(const uint64_t *)total;
}

bool pmi_wait(uint64_t total, uint64_t timeout_us)
{
	struct pmi_cpu *s = cpu();
	/* A fixed-vector PMI cannot arrive with IF = 0, which is how firmware
	 * may run an AP procedure: open a PMI window for the wait only. */
	bool open = s->armed && s->delivery == PMI_FIXED && !hw_irq_enabled();
	struct pmi_window w;
	bool ok;

	if (open)
		pmi_window_open(&w);
	ok = apic_wait_us(pmis_reached, &total, timeout_us);
	if (open)
		pmi_window_close(&w);
	return ok;
}
