/* The amd-core driver against the simulated Fam15h ("bulldozer", core
 * extension, sign-bit overflow) and Fam19h ("zen4", PerfMonV2): AMD APM Vol. 2
 * #24593 §13.2, Linux amd/core.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "drv_common.h"
#include "ring3_obs.h"
#include "smp_obs.h"

#define TOP47	 (1ull << 47)
#define M48	 ((1ull << 48) - 1)
#define CTL(i)	 (0xc0010200u + 2 * (i))
#define CTR(i)	 (0xc0010201u + 2 * (i))
#define G_STATUS 0xc0000300u
#define G_CTL	 0xc0000301u
#define G_CLR	 0xc0000302u

static void boot(const char *model, enum sim_fault f)
{
	boot_as(model, f, PMU_DRV_NONE);
}

static void common_counters(unsigned n)
{
	struct apic_info ai;
	assert_int_equal(ci.vendor, VENDOR_AMD);
	assert_int_equal(ci.driver, PMU_DRV_AMD_CORE);
	assert_string_equal(p.name, "amd-core");
	assert_int_equal(p.status, PMU_FUNCTIONAL);
	assert_int_equal(p.n_gp, n);
	assert_int_equal(p.n, n);
	assert_int_equal(p.n_fixed, 0);
	assert_int_equal(p.pmi_flags, PMU_PMI_LATE_ECHO); /* no auto-mask: Linux amd/core.c */
	assert_true(p.caps & PMU_CAP_RDPMC);
	assert_true(p.caps & PMU_CAP_EDGE_INV_CMASK);
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(p.ctr[i].ctl_msr, CTL(i));
		assert_int_equal(p.ctr[i].ctr_msr, CTR(i));
		assert_int_equal(p.ctr[i].width, 48);
		assert_int_equal(p.ctr[i].preload_bits, 48);
		assert_false(p.ctr[i].sign_extends);
		assert_int_equal(p.ctr[i].rdpmc, i);
	}
	assert_int_equal(apic_detect(&ai), 0);
}

static void describe_bulldozer(void **st)
{
	(void)st;
	struct pmu_msr_desc d[32];
	struct apic_info ai;
	boot("bulldozer", SF_NONE);
	assert_int_equal(ci.family, 0x15);
	assert_true(ci.ids.max_ext_leaf < 0x80000022u);
	common_counters(6);
	assert_int_equal(p.version, 0);
	assert_true(p.caps & PMU_CAP_SIGN_OVERFLOW);
	assert_false(p.caps & (PMU_CAP_GLOBAL_CTRL | PMU_CAP_STATUS_REG | PMU_CAP_PERFMON_V2));
	assert_int_equal(p.global_ctrl_msr, 0);
	assert_int_equal(p.global_status_msr, 0);
	assert_int_equal(p.global_ovf_msr, 0);
	assert_int_equal(p.ops->msrs(&p, d, 32), 12);
	for (unsigned i = 0; i < 6; i++) {
		assert_int_equal(d[2 * i].addr, CTL(i));
		/* bit 19 has no field on AMD cores, 21 is reserved (APM Vol. 2 §13.2) */
		assert_int_equal(d[2 * i].rw_mask, 0x30fffd7ffffull);
		assert_int_equal(d[2 * i + 1].addr, CTR(i));
		assert_int_equal(d[2 * i + 1].rw_mask, M48);
	}
	assert_int_equal(apic_detect(&ai), 0);
	assert_int_equal(ai.mode, APIC_MODE_XAPIC);
	uint64_t v;
	assert_int_equal(hw_rdmsr(G_CTL, &v), HW_FAULT_GP); /* no PerfMonV2 MSRs */
}

static void describe_zen4(void **st)
{
	(void)st;
	struct pmu_msr_desc d[32];
	struct apic_info ai;
	boot("zen4", SF_NONE);
	assert_int_equal(ci.family, 0x19);
	assert_int_equal(ci.model, 0x61);
	assert_true(ci.x2apic_capable);
	common_counters(6);
	assert_int_equal(p.version, 2);
	assert_true(p.caps & PMU_CAP_GLOBAL_CTRL);
	assert_true(p.caps & PMU_CAP_STATUS_REG);
	assert_true(p.caps & PMU_CAP_PERFMON_V2);
	assert_false(p.caps & PMU_CAP_SIGN_OVERFLOW);
	assert_int_equal(p.global_status_msr, G_STATUS);
	assert_int_equal(p.global_ctrl_msr, G_CTL);
	assert_int_equal(p.global_ovf_msr, G_CLR);
	assert_int_equal(p.ops->msrs(&p, d, 32), 15);
	assert_int_equal(d[12].addr, G_STATUS);
	assert_int_equal(d[12].access, PMU_MSR_RO);
	assert_int_equal(d[13].addr, G_CTL);
	assert_int_equal(d[13].access, PMU_MSR_RW);
	assert_int_equal(d[13].rw_mask, 0x3f);
	assert_int_equal(d[14].addr, G_CLR);
	assert_int_equal(d[14].access, PMU_MSR_WO);
	assert_int_equal(apic_detect(&ai), 0);
	assert_int_equal(ai.mode, APIC_MODE_X2APIC);
	assert_int_equal(msr(G_CTL), 0); /* reset value; the driver enables */
}

/* 8000_0022h EBX[3:0] gives the counter count (APM Vol. 3 E.4.23). */
static void v2_counter_count_from_cpuid(void **st)
{
	(void)st;
	assert_int_equal(sim_start("zen4", SF_NONE), 0);
	sim_set_cpuid(&sim, 0x80000022u, 0, 1, 4, 0, 0);
	cpu_identify(&ci);
	pmu_attach(&p, &ci);
	assert_int_equal(p.n_gp, 4);
	assert_int_equal(pmu_all_mask(&p), 0xf);
	struct pmu_event e = ev(0xc0, 0);
	assert_int_not_equal(p.ops->program(&p, 4, &e, PMU_F_OS), HW_OK);
	/* EAX[0] clear: no PerfMonV2, sign-bit overflow. */
	assert_int_equal(sim_start("zen4", SF_NONE), 0);
	sim_set_cpuid(&sim, 0x80000022u, 0, 0, 6, 0, 0);
	cpu_identify(&ci);
	pmu_attach(&p, &ci);
	assert_int_equal(p.version, 0);
	assert_true(p.caps & PMU_CAP_SIGN_OVERFLOW);
	assert_int_equal(p.global_ctrl_msr, 0);
}

static void program_12bit_event(void **st)
{
	(void)st;
	boot("zen4", SF_NONE);
	struct pmu_event e = ev(0x1cf, 0x0f);
	uint32_t fl = PMU_F_OS | PMU_F_USR | PMU_F_EDGE | PMU_F_INT | PMU_F_INV | PMU_F_CMASK(1);
	assert_int_equal(p.ops->program(&p, 5, &e, fl), HW_OK);
	assert_int_equal(msr(CTL(5)), (1ull << 32) | 0x0fcf | EVTSEL_OS | EVTSEL_USR | EVTSEL_EDGE |
					  EVTSEL_INT | EVTSEL_INV | (1ull << 24));
	e = ev(0xfff, 0);
	assert_int_equal(p.ops->program(&p, 0, &e, PMU_F_OS), HW_OK);
	assert_int_equal(msr(CTL(0)), (0xfull << 32) | 0xff | EVTSEL_OS);
	e = ev(0x1000, 0);
	assert_int_not_equal(p.ops->program(&p, 0, &e, PMU_F_OS), HW_OK);
	e = ev(0xc0, 0);
	assert_int_not_equal(p.ops->program(&p, 6, &e, PMU_F_OS), HW_OK);
}

static void write_read_full_width(void **st)
{
	(void)st;
	const uint64_t vals[] = {0, 0x80000000ull, 0x123456789abcull, M48, ~0ull};
	for (unsigned mdl = 0; mdl < 2; mdl++) {
		boot(mdl ? "zen4" : "bulldozer", SF_NONE);
		for (unsigned i = 0; i < 6; i++)
			for (unsigned k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
				uint64_t pmc;
				assert_int_equal(p.ops->write(&p, i, vals[k], PMU_WRITE_PRELOAD),
						 HW_OK);
				assert_int_equal(ctr(i), vals[k] & M48);
				assert_int_equal(msr(CTR(i)), vals[k] & M48);
				assert_int_equal(hw_rdpmc(i, &pmc), HW_OK);
				assert_int_equal(pmc, vals[k] & M48);
			}
	}
}

/* Assumption (ours, from AMD APM Vol. 2 §13.2; Linux never relies on it):
 * C001_0000h-7h alias counters 0-3. */
static void bulldozer_legacy_alias(void **st)
{
	(void)st;
	boot("bulldozer", SF_NONE);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(hw_wrmsr(0xc0010004u + i, 0x111100000000ull + i), HW_OK);
		assert_int_equal(ctr(i), 0x111100000000ull + i);
		assert_int_equal(p.ops->write(&p, i, 0xabc0 + i, PMU_WRITE_FULL), HW_OK);
		assert_int_equal(msr(0xc0010004u + i), 0xabc0 + i);
	}
	count(2, 0xc2, 0);
	assert_int_equal(msr(0xc0010002u), msr(CTL(2)));
	assert_true(msr(0xc0010002u) & EVTSEL_EN);
	hw_run_workload(&wl_loop, 40);
	assert_int_equal(msr(0xc0010006u), 42);
	uint64_t v;
	assert_int_equal(hw_rdmsr(0xc0010008u, &v), HW_FAULT_GP); /* only four aliases */
}

static void start_stop_v2(void **st)
{
	(void)st;
	boot("zen4", SF_NONE);
	count(0, 0xc0, 0);
	count(4, 0x76, 0);
	assert_int_equal(msr(G_CTL), 0x11); /* start sets GlobalCtl bits */
	assert_true(msr(CTL(0)) & EVTSEL_EN);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(ctr(0), 3003);
	assert_int_equal(ctr(4), 1000);
	assert_int_equal(p.ops->stop(&p, 1), HW_OK);
	assert_int_equal(msr(G_CTL), 0x10);
	assert_false(msr(CTL(0)) & EVTSEL_EN);
	assert_int_equal(p.active, 0x10);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(ctr(0), 3003);
	assert_int_equal(ctr(4), 2000);
	/* EN alone does not count while GlobalCtl is clear. */
	count(1, 0xc0, 0);
	assert_int_equal(hw_wrmsr(G_CTL, 0x10), HW_OK);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(1), 0);
	/* USR only: not counted at CPL 0. */
	struct pmu_event e = ev(0xc0, 0);
	assert_int_equal(p.ops->program(&p, 2, &e, PMU_F_USR), HW_OK);
	assert_int_equal(p.ops->start(&p, 0x4), HW_OK);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(2), 0);
}

static void start_stop_bulldozer(void **st)
{
	(void)st;
	boot("bulldozer", SF_NONE);
	count(5, 0xc2, 0);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(ctr(5), 102);
	assert_int_equal(p.ops->stop(&p, 0x20), HW_OK);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(ctr(5), 102);
}

/* PerfMonV2: N-1 events leave GlobalStatus clear, the N-th sets its bit. */
static void overflow_status_v2(void **st)
{
	(void)st;
	uint64_t m = 1;
	boot("zen4", SF_NONE);
	count(3, 0x76, 0);
	assert_int_equal(pmu_preload(&p, 3, 777), HW_OK);
	hw_run_workload(&wl_loop, 776);
	assert_int_equal(msr(G_STATUS), 0);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 0);
	hw_run_workload(&wl_loop, 1);
	assert_int_equal(msr(G_STATUS), 0x8);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 0x8);
	/* Status is what reports it, not the sign bit: rewriting the counter
	 * with bit 47 set leaves the overflow pending. */
	assert_int_equal(p.ops->write(&p, 3, TOP47, PMU_WRITE_FULL), HW_OK);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 0x8);
	assert_int_equal(hw_wrmsr(G_STATUS, 0), HW_FAULT_GP); /* read-only */
	assert_int_equal(msr(G_STATUS), 0x8);
}

static void overflow_sign_bulldozer(void **st)
{
	(void)st;
	uint64_t m = 1;
	boot("bulldozer", SF_NONE);
	count(1, 0x76, 0);
	assert_int_equal(pmu_preload(&p, 1, 2), HW_OK);
	hw_run_workload(&wl_loop, 1);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 0);
	hw_run_workload(&wl_loop, 1);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 0x2);
	assert_int_equal(p.ops->ack(&p, 0x2), HW_OK);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 0);
	/* never armed: reads 0 but is no overflow */
	count(2, 0x76, 0);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 0);
}

static void ack_v2(void **st)
{
	(void)st;
	uint64_t m;
	boot("zen4", SF_NONE);
	cycles_pair(0, 5, 2, 5);
	hw_run_workload(&wl_loop, 5);
	assert_int_equal(msr(G_STATUS), 0x5);
	assert_int_equal(p.ops->ack(&p, 0x4), HW_OK);
	assert_int_equal(msr(G_STATUS), 0x1);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 0x1);
	assert_int_equal(p.ops->ack(&p, 0x1), HW_OK);
	assert_int_equal(msr(G_STATUS), 0);
}

/* Linux amd_pmu_v2_handle_irq order: GlobalCtl = 0, read status, clear it. */
static void pmi_collect_v2(void **st)
{
	(void)st;
	uint64_t m;
	boot("zen4", SF_NONE);
	count(0, 0x76, 0);
	count(1, 0x76, 0);
	count(5, 0xc0, 0);
	assert_int_equal(pmu_preload(&p, 0, 10), HW_OK);
	assert_int_equal(pmu_preload(&p, 1, 20), HW_OK);
	hw_run_workload(&wl_loop, 30);
	assert_int_equal(msr(G_STATUS), 0x3);
	assert_int_equal(p.ops->pmi_collect(&p, &m), HW_OK);
	assert_int_equal(m, 0x3);
	assert_int_equal(msr(G_STATUS), 0);
	assert_int_equal(msr(G_CTL), 0); /* counting stopped */
	assert_int_equal(p.active, 0x23);
	uint64_t before = ctr(5);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(5), before);
	assert_int_equal(p.ops->pmi_collect(&p, &m), HW_OK);
	assert_int_equal(m, 0);
	assert_int_equal(p.ops->start(&p, p.active), HW_OK);
	assert_int_equal(msr(G_CTL), 0x23);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(5), before + 33);
}

static void pmi_collect_bulldozer(void **st)
{
	(void)st;
	uint64_t m;
	boot("bulldozer", SF_NONE);
	/* cycles not in halt: counters 0-2 only on Family 15h */
	cycles_pair(0, 100, 2, 10);
	hw_run_workload(&wl_loop, 50);
	assert_int_equal(p.ops->pmi_collect(&p, &m), HW_OK);
	assert_int_equal(m, 0x4);
	assert_int_equal(p.armed, 0x1);
	assert_false(msr(CTL(0)) & EVTSEL_EN);
	assert_false(msr(CTL(2)) & EVTSEL_EN);
}

/* x2APIC LVTPC (MSR 834h) on zen4; no auto-mask (Linux amd_pmu_v2_handle_irq). */
static void pmi_delivery_v2(void **st)
{
	(void)st;
	boot("zen4", SF_NONE);
	arm_pmi();
	assert_int_equal(msr(0x834), VEC_PMI);
	count(4, 0x76, PMU_F_INT);
	assert_int_equal(pmu_preload(&p, 4, 64), HW_OK);
	hw_run_workload(&wl_loop, 63);
	assert_int_equal(pmi_calls, 0);
	hw_run_workload(&wl_loop, 1);
	assert_int_equal(pmi_calls, 1);
	assert_int_equal(pmi_mask, 0x10);
	assert_int_equal(pmi_st, HW_OK);
	assert_int_equal(pmi_lvt_masked, 0);
	assert_int_equal(msr(G_STATUS), 0);
	isr_set_handler(VEC_PMI, 0);
}

static void reset_clears(void **st)
{
	(void)st;
	boot("zen4", SF_NONE);
	count(0, 0x76, 0);
	assert_int_equal(pmu_preload(&p, 0, 3), HW_OK);
	hw_run_workload(&wl_loop, 5);
	assert_int_equal(msr(G_STATUS), 1);
	assert_int_equal(p.ops->reset(&p), HW_OK);
	assert_int_equal(msr(G_STATUS), 0);
	assert_int_equal(msr(G_CTL), 0);
	assert_int_equal(p.active, 0);
	assert_int_equal(p.armed, 0);
	for (unsigned i = 0; i < 6; i++) {
		assert_int_equal(msr(CTL(i)), 0);
		assert_int_equal(msr(CTR(i)), 0);
	}
}

static void generic_events(void **st)
{
	(void)st;
	struct pmu_event e;
	boot("zen4", SF_NONE); /* Fam17h+ map (Linux amd_zen1_perfmon_event_map) */
	assert_int_equal(p.ops->generic_event(&p, GEN_CACHE_REFS, 0, &e), 0);
	assert_int_equal(e.code, 0x60);
	assert_int_equal(e.umask, 0xff);
	assert_int_equal(p.ops->generic_event(&p, GEN_CACHE_MISSES, 0, &e), 0);
	assert_int_equal(e.code, 0x64);
	assert_int_equal(e.umask, 0x09);
	assert_int_equal(p.ops->generic_event(&p, GEN_BRANCH_MISSES, 5, &e), 0);
	assert_int_equal(e.code, 0xc3);
	assert_int_equal(p.ops->generic_event(&p, GEN_REF_CYCLES, 0, &e), HW_UNSUPPORTED);
	assert_int_equal(p.ops->generic_event(&p, GEN_CYCLES, 6, &e), HW_REFUSED);
	assert_int_equal(p.ops->generic_event(&p, GEN_BRANCHES, 0, &e), 0);
	assert_int_equal(e.code, 0xc2);
	assert_int_equal(p.ops->program(&p, 0, &e, PMU_F_OS), HW_OK);
	assert_int_equal(p.ops->write(&p, 0, 0, PMU_WRITE_FULL), HW_OK);
	assert_int_equal(p.ops->start(&p, 1), HW_OK);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(0), 12);

	boot("bulldozer", SF_NONE); /* K7-Fam16h map */
	assert_int_equal(p.ops->generic_event(&p, GEN_CACHE_REFS, 0, &e), 0);
	assert_int_equal(e.code, 0x7d);
	assert_int_equal(e.umask, 0x07);
	assert_int_equal(p.ops->generic_event(&p, GEN_CACHE_MISSES, 0, &e), 0);
	assert_int_equal(e.code, 0x7e);
	assert_int_equal(p.ops->generic_event(&p, GEN_INSTRUCTIONS, 0, &e), 0);
	assert_int_equal(e.code, 0xc0);
	assert_int_equal(p.ops->generic_event(&p, GEN_CYCLES, 0, &e), 0);
	assert_int_equal(e.code, 0x76);
}

static void probe_not_functional(void **st)
{
	(void)st;
	check_probe_refused(PMU_DRV_AMD_CORE, "0xc0010201");
}

static struct obs observe(const char *model, enum sim_fault f)
{
	struct obs o;
	struct pmu_event e;
	uint64_t m = 0;

	observe_begin(&o, model, f);
	/* counter 1's GlobalCtl bit set (zen4; bulldozer has none): only its
	 * EN bit keeps it from counting */
	(void)hw_wrmsr(MSR_AMD_GLOBAL_CTL, 0x2);
	count(0, 0xc0, 0);
	count(2, 0xc2, 0);
	/* counter 3: started, then reprogrammed (EN clear, GlobalCtl bit kept) */
	count(3, 0xc0, 0);
	e = ev(0xc0, 0);
	assert_int_equal(p.ops->program(&p, 3, &e, PMU_F_OS), HW_OK);
	observe_counts(&o);
	/* counter 4: EN set, then the PMI step clears GlobalCtl (zen4) */
	count(4, 0xc0, 0);
	pmi_calls = 0;
	unjudged(p.ops->pmi_collect(&p, &m));
	assert_int_equal(p.ops->stop(&p, 0x5), HW_OK);
	assert_int_equal(p.ops->program(&p, 4, &e, PMU_F_OS), HW_OK);
	assert_int_equal(hw_wrmsr(CTL(4), msr(CTL(4)) | EVTSEL_EN), HW_OK);
	hw_run_workload(&wl_loop, 100);
	o.global_off = ctr(4);
	assert_int_equal(p.ops->reset(&p), o.st_ctr1 ? HW_FAULT_GP : HW_OK);
	/* overflow, status, ack and the PMI */
	observe_pmi(&o);
	count(5, 0xc0, 0); /* Family 15h counts cycles on counters 0-2 only */
	assert_int_equal(pmu_preload(&p, 5, 10), HW_OK);
	hw_run_workload(&wl_loop, 10);
	unjudged(p.ops->overflow_status(&p, &m));
	o.status_after_n = m;
	unjudged(p.ops->overflow_status(&p, &o.status_again));
	unjudged(p.ops->ack(&p, m));
	unjudged(p.ops->overflow_status(&p, &m));
	o.status_after_ack = m;
	o.collect_st = p.ops->pmi_collect(&p, &m);
	observe_msr_bits(&o, CTR(2), CTL(1), 1ull << 35);
	return o;
}

/* The faults of the status registers and the PMI loop (zen4; bulldozer has
 * none of them); false for the others. */
static bool check_fault_status(enum sim_fault f, const struct obs *o, const struct obs *ok)
{
	switch (f) {
	case SF_NO_OVERFLOW_STATUS:
		assert_int_equal(o->status_after_n, 0);
		assert_int_equal(o->pmi_mask, 0);
		return true;
	case SF_GLOBAL_CTRL_IGNORED:
		assert_int_equal(o->global_off, ok->instr);
		return true;
	case SF_ACK_IGNORED:
		assert_true(o->status_after_ack & 0x20);
		assert_int_not_equal(o->collect_st, HW_OK); /* the loop bound */
		return true;
	case SF_STATUS_NOT_STICKY: /* the first read cleared it */
		assert_int_equal(o->status_after_n, 0x20);
		assert_int_equal(o->status_again, 0);
		return true;
	case SF_PMI_STORM: /* the stuck GlobalStatus bit comes back after each EOI */
		assert_true(o->pmis > 1);
		assert_int_not_equal(o->status_after_ack, 0);
		return true;
	default:
		return false;
	}
}

/* alias-broken: the legacy PerfCtr0 no longer shows PERF_CTR0's value
 * (host/unit/test_amd_alias.c has the rest); false for the others. */
static bool check_fault_alias(const char *model, enum sim_fault f)
{
	if (f != SF_ALIAS_BROKEN)
		return false;
	assert_int_equal(sim_start(model, f), 0);
	assert_int_equal(hw_wrmsr(MSR_F15H_PERF_CTR0, 1234), HW_OK);
	assert_int_not_equal(drv_msr(MSR_K7_PERFCTR0), 1234);
	return true;
}

static void check_fault(const char *model, enum sim_fault f, const struct obs *ok)
{
	struct obs o = observe_watched(observe, model, f);

	if (!check_fault_counting(f, &o, ok) && !check_fault_delivery(f, &o) &&
	    !check_fault_status(f, &o, ok) && !check_fault_filters(model, f) &&
	    !check_fault_apic_clock(model, f) && !check_fault_alias(model, f) &&
	    !check_fault_counter_rw(model, f) && !ring3_fault_observed(model, f) &&
	    !smp_fault_observed(model, f))
		fail_msg("fault %s has no observation", sim_fault_name(f));
}

static void faults_model(const char *model, bool v2)
{
	const struct sim_model *sm = sim_model_find(model);
	struct obs ok = observe(model, SF_NONE);

	check_baseline(&ok, 1ull << 35);
	/* bulldozer has no global enable: EN alone counts */
	assert_int_equal(ok.global_off, v2 ? 0 : 303);
	assert_int_equal(ok.status_after_n, 0x20);
	assert_int_equal(ok.status_after_ack, 0);
	assert_int_equal(ok.status_again, ok.status_after_n);
	assert_int_equal(ok.collect_st, HW_OK);
	faults_each(model, &ok, check_fault);
	bool has_v2_faults = (sm->faults & SIM_F(SF_ACK_IGNORED)) &&
			     (sm->faults & SIM_F(SF_NO_OVERFLOW_STATUS)) &&
			     (sm->faults & SIM_F(SF_GLOBAL_CTRL_IGNORED));
	assert_int_equal(has_v2_faults, v2);
}

static void faults_bulldozer(void **st)
{
	(void)st;
	faults_model("bulldozer", false);
}

static void faults_zen4(void **st)
{
	(void)st;
	faults_model("zen4", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(describe_bulldozer),
	    cmocka_unit_test(describe_zen4),
	    cmocka_unit_test(v2_counter_count_from_cpuid),
	    cmocka_unit_test(program_12bit_event),
	    cmocka_unit_test(write_read_full_width),
	    cmocka_unit_test(bulldozer_legacy_alias),
	    cmocka_unit_test(start_stop_v2),
	    cmocka_unit_test(start_stop_bulldozer),
	    cmocka_unit_test(overflow_status_v2),
	    cmocka_unit_test(overflow_sign_bulldozer),
	    cmocka_unit_test(ack_v2),
	    cmocka_unit_test(pmi_collect_v2),
	    cmocka_unit_test(pmi_collect_bulldozer),
	    cmocka_unit_test(pmi_delivery_v2),
	    cmocka_unit_test(reset_clears),
	    cmocka_unit_test(generic_events),
	    cmocka_unit_test(probe_not_functional),
	    cmocka_unit_test(faults_bulldozer),
	    cmocka_unit_test(faults_zen4),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
