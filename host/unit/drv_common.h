/* One file-scope PMU for the driver tests that name it `p` (amd-core,
 * amd-legacy, intel-knc, intel-netburst): boot a model, program, count and
 * read it, take PMIs, and observe the injected faults the AMD models share.
 * Include after <cmocka.h>; the intel-arch and intel-p6 tests use the
 * pointer-style helpers of sim_drv.h alone. */
#ifndef PMH_TESTS_UNIT_DRV_COMMON_H
#define PMH_TESTS_UNIT_DRV_COMMON_H

#include "sim_drv.h"

static struct cpu_info ci;
static struct pmu p;

/* An op result this test reads by its effect, not by its value. */
static inline void unjudged(int st)
{
	(void)st;
}

/* Starts a model with a fault and attaches a driver: the one it selects,
 * or force where that is not PMU_DRV_NONE. */
static inline void boot_as(const char *model, enum sim_fault f, enum pmu_driver_id force)
{
	assert_int_equal(sim_start(model, f), 0);
	cpu_identify(&ci);
	if (force != PMU_DRV_NONE)
		ci.driver = force;
	pmu_attach(&p, &ci);
}

/* A driver forced onto a CPU whose PMU MSRs do not exist: the probe of
 * Linux check_hw_exists reports not-functional with the #GP it met on msr_hex. */
static inline void check_probe_refused(enum pmu_driver_id drv, const char *msr_hex)
{
	boot_as("nopmu", SF_NONE, drv);
	assert_int_equal(p.status, PMU_NOT_FUNCTIONAL);
	assert_non_null(strstr(p.reason, "#GP"));
	assert_non_null(strstr(p.reason, msr_hex));
}

static inline struct pmu_event ev(uint16_t code, uint8_t umask)
{
	struct pmu_event e;
	memset(&e, 0, sizeof(e));
	e.code = code;
	e.umask = umask;
	return e;
}

static inline uint64_t msr(uint32_t a)
{
	uint64_t v = 0;
	assert_int_equal(hw_rdmsr(a, &v), HW_OK);
	return v;
}

static inline uint64_t ctr(unsigned i)
{
	uint64_t v = 0;
	assert_int_equal(p.ops->read(&p, i, &v), HW_OK);
	return v;
}

static inline uint64_t ovf_mask(void)
{
	uint64_t m = 0;
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	return m;
}

/* Program counter i with event code (OS only: the harness runs at CPL 0),
 * zero it and start it. */
static inline void count(unsigned i, uint16_t code, uint32_t extra)
{
	struct pmu_event e = ev(code, 0);
	assert_int_equal(p.ops->program(&p, i, &e, PMU_F_OS | extra), HW_OK);
	assert_int_equal(p.ops->write(&p, i, 0, PMU_WRITE_FULL), HW_OK);
	assert_int_equal(p.ops->start(&p, 1ull << i), HW_OK);
}

/* Counters a and b counting cycles, preloaded to overflow after na and nb
 * events. */
static inline void cycles_pair(unsigned a, uint64_t na, unsigned b, uint64_t nb)
{
	count(a, 0x76, 0);
	count(b, 0x76, 0);
	assert_int_equal(pmu_preload(&p, a, na), HW_OK);
	assert_int_equal(pmu_preload(&p, b, nb), HW_OK);
}

/* Programs counter i with the driver's encoding of a generic event. */
static inline void gen(enum pmu_generic g, unsigned i, uint32_t flags)
{
	struct pmu_event e;
	assert_int_equal(p.ops->generic_event(&p, g, i, &e), 0);
	assert_int_equal(p.ops->program(&p, i, &e, flags), 0);
}

/* The driver name and n general counters of 40 bits, preloaded in full and
 * not sign-extended, at ctr0 + i and ctl0 + i, RDPMC index i (knc,
 * netburst). */
static inline void check_gp40(const char *name, unsigned n, uint32_t ctr0, uint32_t ctl0)
{
	assert_string_equal(p.name, name);
	assert_int_equal(p.n_gp, n);
	assert_int_equal(p.n_fixed, 0);
	assert_int_equal(p.n, n);
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(p.ctr[i].width, 40);
		assert_int_equal(p.ctr[i].preload_bits, 40);
		assert_false(p.ctr[i].sign_extends);
		assert_int_equal(p.ctr[i].ctr_msr, ctr0 + i);
		assert_int_equal(p.ctr[i].ctl_msr, ctl0 + i);
		assert_int_equal(p.ctr[i].rdpmc, i);
	}
}

/* ---- PMIs ---------------------------------------------------------------- */

/* The counting handler: it only counts, so the overflow stays for the test
 * to read (knc, netburst). */
static unsigned pmis;

static inline void count_pmi(struct int_frame *f)
{
	(void)f;
	pmis++;
	apic_eoi();
}

static inline void unmask_lvt(void)
{
	apic_write(APIC_LVT_PC, VEC_PMI);
}

/* Boots the one model of a driver that must come up functional, with the
 * counting handler on the PMI vector (LVTPC left as the model has it). */
static inline void boot_counting(const char *model, enum pmu_driver_id want, enum sim_fault f)
{
	struct apic_info ai;
	assert_int_equal(sim_start(model, f), 0);
	cpu_identify(&ci);
	assert_int_equal(ci.driver, want);
	pmu_attach(&p, &ci);
	assert_int_equal(p.status, PMU_FUNCTIONAL);
	assert_int_equal(apic_detect(&ai), 0);
	pmis = 0;
	isr_set_handler(VEC_PMI, count_pmi);
}

/* With the counting handler (knc, netburst): counter 0 overflowed with INT
 * and LVTPC unmasked, but no PMI came (lost-pmi, lvt-stuck-masked). */
static inline void check_pmi_missing(void)
{
	assert_int_equal(ovf_mask(), 1);
	assert_int_equal(pmis, 0);
}

/* spurious-pmi: one PMI with nothing counting, and nothing to collect. */
static inline void check_spurious_pmi(void)
{
	uint64_t m = 0;
	unmask_lvt();
	hw_run_workload(&wl_loop, 1);
	assert_int_equal(pmis, 1);
	assert_int_equal(p.ops->pmi_collect(&p, &m), 0);
	assert_int_equal(m, 0);
}

/* ack-ignored, after counter 0 overflowed: the overflow stays, and the
 * collect loop gives up at its bound. */
static inline void check_ack_ignored(void)
{
	uint64_t m = 0;
	assert_int_equal(p.ops->ack(&p, 1), 0);
	assert_int_equal(ovf_mask(), 1);			/* the overflow did not clear */
	assert_int_equal(p.ops->pmi_collect(&p, &m), HW_STUCK); /* status never reaches 0 */
	assert_int_equal(m, 1);
}

/* The collecting handler: INT set, LVTPC at a fixed vector, the handler
 * runs pmi_collect (the generic order of Linux x86_pmu_handle_irq) and never unmasks. */
static uint64_t pmi_calls, pmi_mask, pmi_lvt_masked;
static int pmi_st;

static inline void on_pmi(struct int_frame *f)
{
	uint64_t m = 0;
	(void)f;
	pmi_calls++;
	pmi_lvt_masked += (apic_read(APIC_LVT_PC) & LVT_MASKED) != 0;
	pmi_st |= p.ops->pmi_collect(&p, &m);
	pmi_mask |= m;
	apic_eoi();
}

static inline void arm_pmi(void)
{
	struct apic_info ai;
	assert_int_equal(apic_detect(&ai), 0);
	pmi_calls = pmi_mask = pmi_lvt_masked = 0;
	pmi_st = 0;
	isr_set_handler(VEC_PMI, on_pmi);
	apic_write(APIC_LVT_PC, VEC_PMI);
}

/* ---- fault injection: each applicable fault changes a driver result ---- */

/* What one run of a test's observe() saw on the AMD models; a field the
 * family's observe() does not fill stays 0. */
struct obs {
	uint64_t instr;			   /* ctr0 retired instructions over wl_loop(100) */
	uint64_t branches;		   /* ctr2 retired branches over wl_loop(100) */
	uint64_t unstarted;		   /* ctr3 programmed, never started */
	uint64_t idle1;			   /* ctr1 programmed, never started */
	uint64_t wide;			   /* ctr2 read back after writing 0x1_0000_0005 */
	uint64_t global_off;		   /* ctr4 with EN set and its GlobalCtl bit clear */
	int st_ctr1;			   /* status of programming and writing counter 1 */
	uint64_t pmis, pmi_mask, spurious; /* PMI path */
	uint64_t status_after_n, status_after_ack;
	int collect_st;
	uint32_t lvt;	       /* LVTPC after arming */
	uint64_t status_again; /* status read a second time, before the ack */
	uint64_t raw_hi;       /* RDMSR bits above 48 after writing 64 ones */
	/* the write-dropped probe bit after writing it: PERF_CTL1 bit 35
	 * (Fam15h+), PerfEvtSel1 PC (K7/K8) */
	uint64_t probe_bit;
};

/* observe() starts: boot, arm the collecting handler, and program counter 1
 * first (never started), so that the PMI path must not find it armed. */
static inline void observe_begin(struct obs *o, const char *model, enum sim_fault f)
{
	struct pmu_event e = ev(0x76, 0);

	memset(o, 0, sizeof(*o));
	boot_as(model, f, PMU_DRV_NONE);
	arm_pmi();
	o->lvt = apic_read(APIC_LVT_PC);
	o->st_ctr1 = p.ops->program(&p, 1, &e, PMU_F_OS);
	o->st_ctr1 |= p.ops->write(&p, 1, 0, PMU_WRITE_FULL);
}

/* Counters 0 and 2 started on instructions and branches, 3 programmed and
 * stopped: run wl_loop(100) and read them all, then the 33-bit write. */
static inline void observe_counts(struct obs *o)
{
	hw_run_workload(&wl_loop, 100);
	o->instr = ctr(0);
	o->branches = ctr(2);
	o->unstarted = ctr(3);
	o->idle1 = o->st_ctr1 ? 0 : ctr(1);
	o->spurious = pmi_calls; /* nothing was armed or had INT */
	assert_int_equal(p.ops->write(&p, 2, 0x100000005ull, PMU_WRITE_FULL), HW_OK);
	o->wide = ctr(2);
}

/* Counter 0 overflows with INT after 50 cycles: the PMIs that came. */
static inline void observe_pmi(struct obs *o)
{
	pmi_calls = pmi_mask = 0;
	count(0, 0x76, PMU_F_INT);
	assert_int_equal(pmu_preload(&p, 0, 50), HW_OK);
	hw_run_workload(&wl_loop, 50);
	o->pmis = pmi_calls;
	o->pmi_mask = pmi_mask;
}

/* observe() ends with the handler gone: the bits above 48 of counter 2's
 * MSR after writing 64 ones, and the write-dropped probe bit of sel1. */
static inline void observe_msr_bits(struct obs *o, uint32_t ctr2, uint32_t sel1, uint64_t bit)
{
	isr_set_handler(VEC_PMI, 0);
	assert_int_equal(hw_wrmsr(ctr2, ~0ull), HW_OK);
	o->raw_hi = msr(ctr2) >> 48;
	if (hw_wrmsr(sel1, bit) == HW_OK)
		o->probe_bit = msr(sel1) & bit;
}

/* The faults every AMD model judges the same way; false for the others. */
static inline bool check_fault_counting(enum sim_fault f, const struct obs *o, const struct obs *ok)
{
	switch (f) {
	case SF_STUCK_COUNTER:
		assert_int_equal(o->instr, 0);
		assert_int_equal(o->pmis, 0);
		return true;
	case SF_NARROW_COUNTER:
		assert_int_equal(o->wide, 5);
		return true;
	case SF_LOST_PMI:
		assert_int_equal(o->pmis, 0);
		return true;
	case SF_SPURIOUS_PMI:
		assert_true(o->spurious > 0);
		return true;
	case SF_ENABLE_IGNORED:
		assert_int_equal(o->unstarted, ok->instr);
		return true;
	case SF_ENABLE_IGNORED_ONE: /* counter 1 alone counts with EN clear */
		assert_true(o->idle1 > 0);
		assert_int_equal(o->unstarted, 0);
		return true;
	case SF_WRONG_EVENT:
		assert_int_equal(o->instr, ok->branches);
		assert_int_equal(o->branches, ok->instr);
		return true;
	case SF_MSR_FAULT:
		assert_int_equal(o->st_ctr1, HW_FAULT_GP);
		return true;
	case SF_OVERCOUNT:
		/* one extra per iteration (100) and one for the call overhead */
		assert_int_equal(o->instr, ok->instr + 101);
		return true;
	default:
		return false;
	}
}

/* The faults of the delivery path and the MSR bits, the same on every AMD
 * model; false for the others. */
static inline bool check_fault_delivery(enum sim_fault f, const struct obs *o)
{
	switch (f) {
	case SF_LVT_STUCK_MASKED:
		assert_true(o->lvt & LVT_MASKED);
		assert_int_equal(o->pmis, 0);
		return true;
	case SF_WIDTH_HIGH_BITS: /* bits above 48 keep what was written */
		assert_int_equal(o->raw_hi, 0xffff);
		return true;
	case SF_WRITE_DROPPED: /* the probe bit ignores writes */
		assert_int_equal(o->probe_bit, 0);
		return true;
	case SF_WRONG_VECTOR:
		assert_int_equal(o->pmis, 0);
		assert_true(drv_stray.hits > 0);
		return true;
	case SF_SKID_LONG: /* 100x the longest skid: not yet come after the window */
		assert_int_equal(o->pmis, 0);
		return true;
	default:
		return false;
	}
}

/* Counter 0 of model (with fault f) on retired instructions (C0h) with
 * flags, from zero over wl_loop(100). */
static inline uint64_t filtered(const char *model, enum sim_fault f, uint32_t flags)
{
	struct pmu_event e = ev(0xc0, 0);
	boot_as(model, f, PMU_DRV_NONE);
	assert_int_equal(p.ops->program(&p, 0, &e, flags), HW_OK);
	assert_int_equal(p.ops->write(&p, 0, 0, PMU_WRITE_FULL), HW_OK);
	assert_int_equal(p.ops->start(&p, 1), HW_OK);
	hw_run_workload(&wl_loop, 100);
	return ctr(0);
}

/* The filter faults (K8 BKDG 10.2): wl_loop retires 3 instructions a
 * cycle, so at CPL 0 USR alone counts nothing, CNT_MASK 1 a cycle, INV
 * nothing and EDGE no transition; each fault counts more, what its filter
 * removes. False for the other faults. */
static inline bool check_fault_filters(const char *model, enum sim_fault f)
{
	const uint32_t m1 = PMU_F_OS | PMU_F_CMASK(1);
	uint32_t flags;

	switch (f) {
	case SF_OS_IGNORED:
		flags = PMU_F_USR;
		break;
	case SF_CMASK_IGNORED:
		flags = m1;
		break;
	case SF_INV_IGNORED:
		flags = m1 | PMU_F_INV;
		break;
	case SF_EDGE_IGNORED:
		flags = m1 | PMU_F_EDGE;
		break;
	default:
		return false;
	}
	uint64_t ok = filtered(model, SF_NONE, flags);
	assert_true(filtered(model, f, flags) > ok);
	return true;
}

static unsigned apic_hits;
static inline void apic_hit(struct int_frame *f)
{
	(void)f;
	apic_hits++;
	if (f->vector != VEC_NMI)
		apic_eoi();
}

/* What a self-IPI on VEC_SPURIOUS_TEST (nmi: a self NMI) leaves: the
 * deliveries, and in *isr whether the vector is still in service after
 * its handler's EOI. */
static inline unsigned apic_probe(const char *model, enum sim_fault f, bool nmi, bool *isr)
{
	struct apic_info ai;
	unsigned vec = nmi ? VEC_NMI : VEC_SPURIOUS_TEST;

	boot_as(model, f, PMU_DRV_NONE);
	apic_detect(&ai);
	apic_hits = 0;
	isr_set_handler(vec, apic_hit);
	assert_int_equal(nmi ? apic_self_nmi() : apic_self_ipi(VEC_SPURIOUS_TEST), 0);
	isr_set_handler(vec, 0);
	*isr = !nmi && apic_in_service(VEC_SPURIOUS_TEST);
	return apic_hits;
}

/* The local APIC's faults and cycles-slow (SDM Vol. 3A 11.8.5, 11.6.1;
 * CPU clocks not halted, 76h): EOI leaves the vector in service, the self
 * NMI never arrives, the clock event counts half the cycles of wl_loop.
 * False for the other faults. */
static inline bool check_fault_apic_clock(const char *model, enum sim_fault f)
{
	bool isr = false;
	uint64_t half;

	switch (f) {
	case SF_EOI_IGNORED:
		assert_int_equal(apic_probe(model, SF_NONE, false, &isr), 1);
		assert_false(isr);
		assert_int_equal(apic_probe(model, f, false, &isr), 1);
		assert_true(isr);
		return true;
	case SF_NMI_LOST:
		assert_int_equal(apic_probe(model, SF_NONE, true, &isr), 1);
		assert_int_equal(apic_probe(model, f, true, &isr), 0);
		return true;
	case SF_CYCLES_SLOW:
		boot_as(model, f, PMU_DRV_NONE);
		count(0, 0x76, 0);
		hw_run_workload(&wl_loop, 100); /* one cycle an iteration */
		half = ctr(0);
		boot_as(model, SF_NONE, PMU_DRV_NONE);
		count(0, 0x76, 0);
		hw_run_workload(&wl_loop, 100);
		assert_int_equal(half, ctr(0) / 2);
		return true;
	default:
		return false;
	}
}

/* Runs observe(model, f) with the other vectors of LVTPC's class watched,
 * so that a wrong-vector PMI is seen. */
static inline struct obs observe_watched(struct obs (*observe)(const char *, enum sim_fault),
					 const char *model, enum sim_fault f)
{
	struct obs o;
	drv_stray.hits = 0;
	drv_watch_class(drv_on_stray);
	o = observe(model, f);
	drv_watch_class(0);
	return o;
}

/* The healthy baseline every AMD model shares (observe() over wl_loop). */
static inline void check_baseline(const struct obs *ok, uint64_t probe_bit)
{
	assert_int_equal(ok->instr, 303);
	assert_int_equal(ok->branches, 102);
	assert_int_equal(ok->unstarted, 0);
	assert_int_equal(ok->idle1, 0);
	assert_int_equal(ok->wide, 0x100000005ull);
	assert_int_equal(ok->st_ctr1, HW_OK);
	assert_int_equal(ok->pmis, 1);
	assert_int_equal(ok->pmi_mask, 1);
	assert_int_equal(ok->spurious, 0);
	assert_false(ok->lvt & LVT_MASKED);
	assert_int_equal(ok->raw_hi, 0);
	assert_int_equal(ok->probe_bit, probe_bit);
}

/* Every fault of the model is judged by check against the baseline ok;
 * every other one must be refused with a reason. */
static inline void faults_each(const char *model, const struct obs *ok,
			       void (*check)(const char *, enum sim_fault, const struct obs *))
{
	const struct sim_model *sm = sim_model_find(model);
	for (unsigned f = 1; f < SF_COUNT; f++) {
		/* event-decoding faults change what an event counts, not a
		 * driver result: event.semantics catches them
		 * (test_event_semantics.c) */
		if (SIM_EVENT_FAULTS & SIM_F(f))
			continue;
		if (sm->faults & SIM_F(f)) {
			check(model, (enum sim_fault)f, ok);
		} else {
			assert_int_equal(sim_start(model, (enum sim_fault)f), -1);
			assert_non_null(sm->fault_na[f]);
		}
	}
	assert_int_equal(sm->faults & SIM_F(SF_NO_SIGN_EXTEND), 0);
}

/* write-resets and overflow-freezes on AMD's counters 0 and 1 (event C0h):
 * a value written to counter 0 while it runs is kept or lost, counter 1
 * runs on or stops at counter 0's overflow (host/unit/test_counter_rw.c
 * has the rest). False for the other faults. */
static inline bool check_fault_counter_rw(const char *model, enum sim_fault f)
{
	const uint64_t v = 0x12345678ull,
		       all = wl_loop.fixed.instructions + 100 * wl_loop.per_iter.instructions;

	if (f != SF_WRITE_RESETS && f != SF_OVERFLOW_FREEZES)
		return false;
	boot_as(model, f, PMU_DRV_NONE);
	count(0, 0xc0, 0);
	count(1, 0xc0, 0);
	if (f == SF_WRITE_RESETS) {
		assert_int_equal(p.ops->write(&p, 0, v, PMU_WRITE_FULL), HW_OK);
		hw_run_workload(&wl_loop, 100);
		assert_int_equal(ctr(0), all); /* from 0: the value is lost */
		return true;
	}
	assert_int_equal(pmu_preload(&p, 0, all / 2), HW_OK);
	hw_run_workload(&wl_loop, 100);
	assert_true(ctr(1) < all); /* stopped at counter 0's overflow */
	return true;
}

#endif
