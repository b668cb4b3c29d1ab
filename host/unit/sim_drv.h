/* Shared helpers for the driver unit tests: power on a simulated CPU, attach
 * the driver it selects, count a workload, and take PMIs through the
 * simulated local APIC with a minimal handler. Include after <cmocka.h>. */
#ifndef PMH_TESTS_UNIT_SIM_DRV_H
#define PMH_TESTS_UNIT_SIM_DRV_H

#include "../../apic/apic.h"
#include "../../apic/isr.h"
#include "../../events/workload.h"
#include "../../pmu/msr.h"
#include "../../pmu/pmu.h"
#include "../sim/sim.h"

static struct cpu_info drv_ci;
static struct pmu drv_p;
static struct apic_info drv_ai;

/* Starts a model with a fault and attaches its driver (not yet probed for
 * function: the caller checks status). */
static inline struct pmu *drv_attach(const char *model, enum sim_fault f)
{
	assert_int_equal(sim_start(model, f), 0);
	cpu_identify(&drv_ci);
	apic_detect(&drv_ai);
	pmu_attach(&drv_p, &drv_ci);
	return &drv_p;
}

/* A healthy or faulty model whose driver must come up functional. */
static inline struct pmu *drv_up(const char *model, enum sim_fault f)
{
	struct pmu *p = drv_attach(model, f);
	int rc;
	assert_int_equal(p->status, PMU_FUNCTIONAL);
	rc = p->ops->reset(p);
	if (f != SF_MSR_FAULT) /* counter 1's MSRs fault: reset reports it */
		assert_int_equal(rc, 0);
	else
		assert_int_not_equal(rc, 0);
	return p;
}

static inline uint64_t drv_read(struct pmu *p, unsigned ctr)
{
	uint64_t v = 0xdead;
	assert_int_equal(p->ops->read(p, ctr, &v), HW_OK);
	return v;
}

static inline uint64_t drv_msr(uint32_t msr)
{
	uint64_t v = 0xdead;
	assert_int_equal(hw_rdmsr(msr, &v), HW_OK);
	return v;
}

static inline uint64_t drv_ovf(struct pmu *p)
{
	uint64_t m = 0xdead;
	assert_int_equal(p->ops->overflow_status(p, &m), 0);
	return m;
}

static inline void drv_program(struct pmu *p, unsigned ctr, enum pmu_generic g, uint32_t flags)
{
	struct pmu_event ev;
	assert_int_equal(p->ops->generic_event(p, g, ctr, &ev), 0);
	assert_int_equal(p->ops->program(p, ctr, &ev, flags), 0);
}

/* Counter ctr (programmed for cycles, one per wl_loop iteration and none in
 * the call overhead) overflows at exactly n events: not after n-1, at n. */
static inline void drv_overflow_at(struct pmu *p, unsigned ctr, uint64_t n)
{
	uint64_t bit = 1ull << ctr;

	assert_int_equal(pmu_preload(p, ctr, n), 0);
	assert_int_equal(drv_read(p, ctr), (0 - n) & pmu_width_mask(p->ctr[ctr].width));
	assert_int_equal(p->ops->start(p, bit), 0);
	hw_run_workload(&wl_loop, n - 1);
	assert_int_equal(drv_ovf(p) & bit, 0);
	assert_int_equal(drv_read(p, ctr), pmu_width_mask(p->ctr[ctr].width));
	hw_run_workload(&wl_loop, 1);
	assert_int_equal(drv_ovf(p) & bit, bit);
	assert_int_equal(drv_read(p, ctr), 0);
	assert_int_equal(p->ops->stop(p, bit), 0);
	assert_int_equal(p->ops->ack(p, bit), 0);
	assert_int_equal(drv_ovf(p) & bit, 0);
}

/* One row of a driver's generic-event map: the event and its encoding,
 * umask << 8 | code. */
struct drv_gen_enc {
	enum pmu_generic g;
	uint16_t enc;
};

/* Every row encodes as the map says on counter ctr, for any general
 * counter (no fixed-only event, no counter restriction). */
static inline void drv_check_gen_map(struct pmu *p, const struct drv_gen_enc *map, size_t n,
				     unsigned ctr)
{
	struct pmu_event ev;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(p->ops->generic_event(p, map[i].g, ctr, &ev), 0);
		assert_int_equal(ev.umask << 8 | ev.code, map[i].enc);
		assert_false(ev.fixed_only);
		assert_int_equal(ev.counters, 0);
	}
}

/* Counter ctr on cycles with flags, preloaded to overflow after n events,
 * started. */
static inline void drv_cycles_at(struct pmu *p, unsigned ctr, uint64_t n, uint32_t flags)
{
	drv_program(p, ctr, GEN_CYCLES, flags);
	assert_int_equal(pmu_preload(p, ctr, n), 0);
	assert_int_equal(p->ops->start(p, 1ull << ctr), 0);
}

/* Counters 0 and 1 on cycles (OS), preloaded to overflow after n0 and n1
 * events, both started. */
static inline void drv_cycles_pair(struct pmu *p, uint64_t n0, uint64_t n1)
{
	drv_program(p, 0, GEN_CYCLES, PMU_F_OS);
	drv_program(p, 1, GEN_CYCLES, PMU_F_OS);
	assert_int_equal(pmu_preload(p, 0, n0), 0);
	assert_int_equal(pmu_preload(p, 1, n1), 0);
	assert_int_equal(p->ops->start(p, 3), 0);
}

/* overcount: one event more per step, so counter 0 overflows one early. */
static inline void drv_check_overcount(const char *model)
{
	struct pmu *p = drv_up(model, SF_OVERCOUNT);
	drv_cycles_at(p, 0, 10, PMU_F_OS);
	hw_run_workload(&wl_loop, 9); /* one event early */
	assert_int_equal(drv_ovf(p), 1);
}

/* ---- PMIs ---------------------------------------------------------------- */

static struct {
	unsigned taken;
	unsigned masked_on_entry;
	uint64_t collected;
	int collect_rc;
} drv_pmi;

static inline void drv_pmi_handler(struct int_frame *f)
{
	uint64_t m = 0;
	(void)f;
	drv_pmi.taken++;
	if (apic_read(APIC_LVT_PC) & LVT_MASKED)
		drv_pmi.masked_on_entry++;
	drv_pmi.collect_rc = drv_p.ops->pmi_collect(&drv_p, &m);
	drv_pmi.collected |= m;
	apic_write(APIC_LVT_PC, VEC_PMI); /* unmask */
	apic_eoi();
}

/* Routes LVTPC to the test handler, unmasked, fixed delivery. */
static inline void drv_pmi_arm(void)
{
	drv_pmi.taken = 0;
	drv_pmi.masked_on_entry = 0;
	drv_pmi.collected = 0;
	drv_pmi.collect_rc = 0;
	isr_set_handler(VEC_PMI, drv_pmi_handler);
	apic_write(APIC_LVT_PC, VEC_PMI);
}

/* Counter 0 on cycles with INT, preloaded to overflow after 100, started
 * with the test handler armed, over wl_loop(100): the PMI-fault run. */
static inline void drv_pmi_run(const char *model, enum sim_fault f)
{
	struct pmu *p = drv_up(model, f);
	drv_pmi_arm();
	drv_cycles_at(p, 0, 100, PMU_F_OS | PMU_F_INT);
	hw_run_workload(&wl_loop, 100);
}

/* lost-pmi: no PMI came, though the overflow itself happened. */
static inline void drv_check_lost_pmi(const char *model)
{
	drv_pmi_run(model, SF_LOST_PMI);
	assert_int_equal(drv_pmi.taken, 0);
	assert_int_equal(drv_ovf(&drv_p), 1);
}

/* lvt-stuck-masked: the APIC dropped the PMI LVTPC still held masked. */
static inline void drv_check_lvt_stuck_masked(const char *model)
{
	drv_pmi_run(model, SF_LVT_STUCK_MASKED);
	assert_int_equal(drv_pmi.taken, 0);
	assert_int_equal(sim.st.pmi_dropped, 1);
}

/* wrong-vector: a PMI on another vector of LVTPC's priority class. */
static struct {
	unsigned hits;
} drv_stray;

static inline void drv_on_stray(struct int_frame *f)
{
	(void)f;
	drv_stray.hits++;
	apic_eoi();
}

/* Routes every other vector of LVTPC's class to fn (0: back to none). */
static inline void drv_watch_class(isr_handler_fn fn)
{
	for (unsigned v = VEC_PMI & 0xf0u; v <= (VEC_PMI | 0xfu); v++)
		if (v != VEC_PMI)
			isr_set_handler(v, fn);
}

/* ---- the suite's output -------------------------------------------------- */

/* A sink that keeps the lines it is given, each ended by a newline; the
 * caller zeroes len before a run and terminates text after it. */
static struct {
	char text[65536];
	size_t len;
} drv_out;

static inline void drv_collect(void *ctx, const char *s)
{
	size_t n = 0;
	(void)ctx;
	while (s[n])
		n++;
	if (drv_out.len + n + 1 < sizeof(drv_out.text)) {
		for (size_t i = 0; i < n; i++)
			drv_out.text[drv_out.len + i] = s[i];
		drv_out.text[drv_out.len + n] = '\n';
		drv_out.len += n + 1;
	}
}

#endif
