/* The amd-legacy driver against the simulated K7 ("athlon") and K8
 * ("opteron"): AMD APM Vol. 2 §13.2, Linux amd/core.c; K8 BKDG #26094 §10.1-10.2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "drv_common.h"
#include "ring3_obs.h"

#define TOP47 (1ull << 47)
#define M48   ((1ull << 48) - 1)

static void boot(const char *model, enum sim_fault f)
{
	boot_as(model, f, PMU_DRV_NONE);
}

static void describe_model(const char *model, uint32_t family)
{
	struct pmu_msr_desc d[16];

	boot(model, SF_NONE);
	assert_int_equal(ci.vendor, VENDOR_AMD);
	assert_int_equal(ci.family, family);
	assert_int_equal(ci.driver, PMU_DRV_AMD_LEGACY);
	assert_string_equal(p.name, "amd-legacy");
	assert_int_equal(p.status, PMU_FUNCTIONAL);
	assert_int_equal(p.n_gp, 4);
	assert_int_equal(p.n_fixed, 0);
	assert_int_equal(p.n, 4);
	assert_int_equal(p.version, 0);
	assert_int_equal(p.pmi_flags, PMU_PMI_LATE_ECHO); /* no auto-mask: Linux amd/core.c */
	assert_true(p.caps & PMU_CAP_SIGN_OVERFLOW);
	assert_true(p.caps & PMU_CAP_EDGE_INV_CMASK);
	assert_true(p.caps & PMU_CAP_RDPMC);
	assert_false(p.caps & (PMU_CAP_GLOBAL_CTRL | PMU_CAP_STATUS_REG | PMU_CAP_PERFMON_V2 |
			       PMU_CAP_FIXED));
	assert_int_equal(p.global_ctrl_msr, 0);
	assert_int_equal(p.global_status_msr, 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(p.ctr[i].ctl_msr, 0xc0010000u + i);
		assert_int_equal(p.ctr[i].ctr_msr, 0xc0010004u + i);
		assert_int_equal(p.ctr[i].width, 48);
		assert_int_equal(p.ctr[i].preload_bits, 48);
		assert_false(p.ctr[i].sign_extends);
		assert_int_equal(p.ctr[i].rdpmc, i);
	}
	assert_int_equal(pmu_max_period(&p, 0), TOP47);
	assert_int_equal(p.ops->msrs(&p, d, 16), 8);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(d[i].addr, 0xc0010000u + i);
		assert_int_equal(d[i].rw_mask, 0xffdfffffull); /* K7/K8: bit 21 reserved */
		assert_int_equal(d[4 + i].addr, 0xc0010004u + i);
		assert_int_equal(d[4 + i].rw_mask, M48);
		assert_int_equal(d[4 + i].access, PMU_MSR_RW);
	}
	assert_int_equal(p.ops->msrs(&p, d, 3), 3); /* never past max */
}

static void describe_athlon(void **st)
{
	(void)st;
	describe_model("athlon", 6);
	assert_false(ci.microcode_valid); /* no PATCH_LEVEL on the K7 model */
}

static void describe_opteron(void **st)
{
	(void)st;
	describe_model("opteron", 0xf);
	assert_int_equal(ci.model, 5);
	assert_true(ci.microcode_valid);
}

static void program_fields(void **st)
{
	(void)st;
	boot("opteron", SF_NONE);
	struct pmu_event e = ev(0xc0, 0x5a);
	uint32_t fl = PMU_F_OS | PMU_F_USR | PMU_F_EDGE | PMU_F_INT | PMU_F_INV | PMU_F_CMASK(2);
	assert_int_equal(p.ops->program(&p, 2, &e, fl | (1u << 19) /* PC */), HW_OK);
	/* K8 BKDG §10.2 layout, EN clear (the driver starts separately), PC
	 * never set. */
	assert_int_equal(msr(0xc0010002), 0xc0 | 0x5a00 | EVTSEL_OS | EVTSEL_USR | EVTSEL_EDGE |
					      EVTSEL_INT | EVTSEL_INV | (2ull << 24));
	/* A 12-bit code has no encoding on K8 (EVENT_SELECT is bits 7:0). */
	e = ev(0x1cf, 0);
	assert_int_not_equal(p.ops->program(&p, 2, &e, PMU_F_OS), HW_OK);
	assert_int_equal(msr(0xc0010002) & 0xff, 0xc0);
	e = ev(0xc0, 0);
	assert_int_not_equal(p.ops->program(&p, 4, &e, PMU_F_OS), HW_OK); /* no counter 4 */
	e.counters = 1u << 3;
	assert_int_not_equal(p.ops->program(&p, 2, &e, PMU_F_OS), HW_OK);
	assert_int_equal(p.ops->program(&p, 3, &e, PMU_F_OS), HW_OK);
}

/* From Fam10h event[11:8] lives in bits 35:32 (APM Vol. 2 §13.2). The legacy driver
 * on a Fam15h part writes C001_0000h, which the model aliases to
 * C001_0200h (assumption, ours: APM Vol. 2 §13.2). */
static void program_12bit_event_on_fam15h(void **st)
{
	(void)st;
	boot_as("bulldozer", SF_NONE, PMU_DRV_AMD_LEGACY);
	assert_int_equal(p.status, PMU_FUNCTIONAL);
	struct pmu_event e = ev(0x1cf, 0x03);
	assert_int_equal(p.ops->program(&p, 0, &e, PMU_F_OS), HW_OK);
	assert_int_equal(msr(0xc0010000), (1ull << 32) | 0x03cf | EVTSEL_OS);
	assert_int_equal(msr(0xc0010200), (1ull << 32) | 0x03cf | EVTSEL_OS);
	struct pmu_msr_desc d[8];
	assert_int_equal(p.ops->msrs(&p, d, 8), 8);
	assert_int_equal(d[0].rw_mask, 0x30fffdfffffull);
	/* Counting through the aliases: instructions at counter 0. */
	count(0, 0xc0, 0);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(ctr(0), 303);
	assert_int_equal(msr(0xc0010201), 303);
}

static void write_read_full_width(void **st)
{
	(void)st;
	boot("athlon", SF_NONE);
	const uint64_t vals[] = {
	    0, 1, 0x7fffffffull, 0x80000000ull, 0xabcd12345678ull, M48, 0xffff123456789abcull};
	const enum pmu_write_path paths[] = {PMU_WRITE_PRELOAD, PMU_WRITE_LEGACY, PMU_WRITE_FULL};
	for (unsigned i = 0; i < 4; i++)
		for (unsigned k = 0; k < sizeof(vals) / sizeof(vals[0]); k++)
			for (unsigned w = 0; w < 3; w++) {
				uint64_t pmc = 0;
				assert_int_equal(p.ops->write(&p, i, vals[k], paths[w]), HW_OK);
				assert_int_equal(ctr(i), vals[k] & M48);
				assert_int_equal(msr(0xc0010004 + i), vals[k] & M48);
				assert_int_equal(hw_rdpmc(i, &pmc), HW_OK);
				assert_int_equal(pmc, vals[k] & M48);
			}
	uint64_t v;
	assert_int_not_equal(p.ops->write(&p, 4, 1, PMU_WRITE_FULL), HW_OK);
	assert_int_not_equal(p.ops->read(&p, 4, &v), HW_OK);
}

static void start_stop(void **st)
{
	(void)st;
	boot("opteron", SF_NONE);
	count(0, 0xc0, 0); /* retired instructions */
	count(1, 0xc2, 0); /* retired branches */
	count(2, 0x76, 0); /* clocks not halted */
	struct pmu_event e = ev(0xc0, 0);
	assert_int_equal(p.ops->program(&p, 3, &e, PMU_F_USR), HW_OK); /* CPL>0 only */
	assert_int_equal(p.ops->start(&p, 1u << 3), HW_OK);
	assert_int_equal(p.active, 0xf);
	assert_true(msr(0xc0010000) & EVTSEL_EN);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(ctr(0), 3003); /* 3 per iteration + 3 outside */
	assert_int_equal(ctr(1), 1002);
	assert_int_equal(ctr(2), 1000);
	assert_int_equal(ctr(3), 0);
	assert_int_equal(p.ops->stop(&p, 0x3), HW_OK);
	assert_int_equal(p.active, 0xc);
	assert_false(msr(0xc0010000) & EVTSEL_EN);
	assert_false(msr(0xc0010001) & EVTSEL_EN);
	assert_true(msr(0xc0010002) & EVTSEL_EN);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(ctr(0), 3003);
	assert_int_equal(ctr(1), 1002);
	assert_int_equal(ctr(2), 2000);
	/* Reprogramming stops the counter (written with EN clear). */
	e = ev(0x76, 0);
	assert_int_equal(p.ops->program(&p, 2, &e, PMU_F_OS), HW_OK);
	assert_int_equal(p.active, 0x8);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(2), 2000);
}

/* CNT_MASK/INV (K8 BKDG §10.2) on the model's even spread: the loop retires
 * 3 instructions per cycle. */
static void counter_mask(void **st)
{
	(void)st;
	boot("opteron", SF_NONE);
	count(0, 0xc0, PMU_F_CMASK(3));
	count(1, 0xc0, PMU_F_CMASK(3) | PMU_F_INV);
	count(2, 0xc0, PMU_F_EDGE);
	hw_run_workload(&wl_loop, 500);
	assert_int_equal(ctr(0), 500);
	assert_int_equal(ctr(1), 0);
	assert_int_equal(ctr(2), 0);
}

/* Linux x86_pmu_handle_irq: overflow is bit 47 clear on a counter preloaded with it set. */
static void overflow_sign_bit(void **st)
{
	(void)st;
	uint64_t m = 1;
	boot("athlon", SF_NONE);
	count(0, 0x76, 0); /* exactly one event per iteration */
	count(1, 0x76, 0);
	assert_int_equal(pmu_preload(&p, 0, 1000), HW_OK);
	assert_int_equal(p.armed, 1);
	assert_int_equal(ctr(0), (0 - 1000ull) & M48);
	/* Counter 1 holds a small value: bit 47 clear but never armed. */
	assert_int_equal(p.ops->write(&p, 1, 5, PMU_WRITE_FULL), HW_OK);
	hw_run_workload(&wl_loop, 999);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 0);
	assert_int_equal(ctr(0), M48);
	hw_run_workload(&wl_loop, 1);
	assert_int_equal(ctr(0), 0);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 1);
	/* A write with bit 47 clear disarms; one with it set arms. */
	assert_int_equal(p.ops->write(&p, 0, 7, PMU_WRITE_FULL), HW_OK);
	assert_int_equal(p.armed, 0);
	assert_int_equal(p.ops->write(&p, 1, TOP47, PMU_WRITE_FULL), HW_OK);
	assert_int_equal(p.armed, 2);
	/* The largest period: 2^47 events. */
	assert_int_equal(pmu_preload(&p, 2, TOP47), HW_OK);
	assert_int_equal(ctr(2), TOP47);
	assert_int_not_equal(pmu_preload(&p, 2, TOP47 + 1), HW_OK);
}

static void ack_disarms(void **st)
{
	(void)st;
	uint64_t m;
	boot("opteron", SF_NONE);
	cycles_pair(0, 10, 3, 10);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 0x9);
	assert_int_equal(p.ops->ack(&p, 0x1), HW_OK);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 0x8);
	assert_int_equal(p.ops->ack(&p, 0x8), HW_OK);
	assert_int_equal(p.ops->overflow_status(&p, &m), HW_OK);
	assert_int_equal(m, 0);
}

static void pmi_collect_sign(void **st)
{
	(void)st;
	uint64_t m;
	boot("athlon", SF_NONE);
	count(0, 0x76, 0);
	count(1, 0x76, 0);
	count(2, 0xc0, 0);
	assert_int_equal(pmu_preload(&p, 0, 50), HW_OK);
	assert_int_equal(pmu_preload(&p, 1, 5000), HW_OK);
	hw_run_workload(&wl_loop, 60);
	assert_int_equal(p.ops->pmi_collect(&p, &m), HW_OK);
	assert_int_equal(m, 0x1);
	assert_int_equal(p.armed, 0x2);	 /* counter 1 stays armed */
	assert_int_equal(p.active, 0x7); /* the set to restart */
	for (unsigned i = 0; i < 3; i++)
		assert_false(msr(0xc0010000 + i) & EVTSEL_EN); /* stopped */
	uint64_t before = ctr(2);
	hw_run_workload(&wl_loop, 60);
	assert_int_equal(ctr(2), before);
	assert_int_equal(p.ops->pmi_collect(&p, &m), HW_OK);
	assert_int_equal(m, 0);
	assert_int_equal(p.ops->start(&p, p.active), HW_OK);
	hw_run_workload(&wl_loop, 60);
	assert_int_equal(ctr(2), before + 183);
}

static void pmi_delivery(void **st)
{
	(void)st;
	boot("opteron", SF_NONE);
	arm_pmi();
	count(1, 0x76, PMU_F_INT);
	assert_int_equal(pmu_preload(&p, 1, 100), HW_OK);
	hw_run_workload(&wl_loop, 99);
	assert_int_equal(pmi_calls, 0);
	hw_run_workload(&wl_loop, 1);
	assert_int_equal(pmi_calls, 1);
	assert_int_equal(pmi_mask, 0x2);
	assert_int_equal(pmi_st, HW_OK);
	assert_int_equal(pmi_lvt_masked, 0); /* not auto-masked (Linux amd/core.c) */
	assert_false(apic_read(APIC_LVT_PC) & LVT_MASKED);
	/* Without INT the overflow is silent. */
	count(0, 0x76, 0);
	assert_int_equal(pmu_preload(&p, 0, 10), HW_OK);
	hw_run_workload(&wl_loop, 20);
	assert_int_equal(pmi_calls, 1);
	isr_set_handler(VEC_PMI, 0);
}

static void reset_clears(void **st)
{
	(void)st;
	boot("athlon", SF_NONE);
	count(0, 0xc0, PMU_F_INT);
	assert_int_equal(pmu_preload(&p, 0, 10), HW_OK);
	hw_run_workload(&wl_loop, 5);
	assert_int_equal(p.ops->reset(&p), HW_OK);
	assert_int_equal(p.active, 0);
	assert_int_equal(p.armed, 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(msr(0xc0010000 + i), 0);
		assert_int_equal(msr(0xc0010004 + i), 0);
	}
	hw_run_workload(&wl_loop, 5);
	assert_int_equal(ctr(0), 0);
}

static void generic_events(void **st)
{
	(void)st;
	struct pmu_event e;
	static const struct {
		enum pmu_generic g;
		uint16_t code;
		uint8_t umask;
	} want[] = {
	    {GEN_CYCLES, 0x76, 0},	  {GEN_INSTRUCTIONS, 0xc0, 0},
	    {GEN_BRANCHES, 0xc2, 0},	  {GEN_BRANCH_MISSES, 0xc3, 0},
	    {GEN_CACHE_REFS, 0x7d, 0x07}, {GEN_CACHE_MISSES, 0x7e, 0x07},
	};
	boot("opteron", SF_NONE);
	for (unsigned k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		assert_int_equal(p.ops->generic_event(&p, want[k].g, 3, &e), 0);
		assert_int_equal(e.code, want[k].code);
		assert_int_equal(e.umask, want[k].umask);
		assert_true(e.name[0]);
	}
	assert_int_equal(p.ops->generic_event(&p, GEN_REF_CYCLES, 0, &e), HW_UNSUPPORTED);
	assert_int_equal(p.ops->generic_event(&p, GEN_CYCLES, 4, &e), HW_REFUSED);
	/* The encoding counts what it names. */
	assert_int_equal(p.ops->generic_event(&p, GEN_INSTRUCTIONS, 0, &e), 0);
	assert_int_equal(p.ops->program(&p, 0, &e, PMU_F_OS), HW_OK);
	assert_int_equal(p.ops->write(&p, 0, 0, PMU_WRITE_FULL), HW_OK);
	assert_int_equal(p.ops->start(&p, 1), HW_OK);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(0), 33);
}

/* An AMD driver on a CPU whose PMU MSRs do not exist (Linux check_hw_exists). */
static void probe_not_functional(void **st)
{
	(void)st;
	check_probe_refused(PMU_DRV_AMD_LEGACY, "0xc0010004");
}

static struct obs observe(const char *model, enum sim_fault f)
{
	struct obs o;
	struct pmu_event e = ev(0xc0, 0);
	uint64_t m = 0;

	observe_begin(&o, model, f);
	count(0, 0xc0, 0);
	count(2, 0xc2, 0);
	assert_int_equal(p.ops->program(&p, 3, &e, PMU_F_OS), HW_OK);
	assert_int_equal(p.ops->write(&p, 3, 0, PMU_WRITE_FULL), HW_OK);
	observe_counts(&o);
	assert_int_equal(p.ops->stop(&p, 0x5), HW_OK);
	observe_pmi(&o);
	unjudged(p.ops->overflow_status(&p, &m));
	observe_msr_bits(&o, MSR_K7_PERFCTR0 + 2, MSR_K7_EVNTSEL0 + 1, EVTSEL_PC);
	return o;
}

static void check_fault(const char *model, enum sim_fault f, const struct obs *ok)
{
	struct obs o = observe_watched(observe, model, f);

	if (!check_fault_counting(f, &o, ok) && !check_fault_delivery(f, &o) &&
	    !check_fault_filters(model, f) && !check_fault_apic_clock(model, f) &&
	    !check_fault_counter_rw(model, f) && !ring3_fault_observed(model, f))
		fail_msg("fault %s has no observation", sim_fault_name(f));
}

static void faults_model(const char *model)
{
	const struct sim_model *sm = sim_model_find(model);
	struct obs ok = observe(model, SF_NONE);

	check_baseline(&ok, EVTSEL_PC); /* the healthy baseline */
	faults_each(model, &ok, check_fault);
	assert_int_equal(sm->faults & SIM_F(SF_ACK_IGNORED), 0);
}

static void faults_athlon(void **st)
{
	(void)st;
	faults_model("athlon");
}

static void faults_opteron(void **st)
{
	(void)st;
	faults_model("opteron");
}

/* msr-fault: the driver's ops on counter 1 report the #GP. */
static void msr_fault_reported(void **st)
{
	(void)st;
	uint64_t v;
	boot("athlon", SF_MSR_FAULT);
	assert_int_equal(p.status, PMU_FUNCTIONAL); /* counter 0 probes fine */
	assert_int_equal(p.ops->read(&p, 1, &v), HW_FAULT_GP);
	assert_int_equal(p.ops->start(&p, 0x3), HW_FAULT_GP);
	assert_int_equal(p.ops->reset(&p), HW_FAULT_GP);
	assert_int_equal(p.ops->write(&p, 1, TOP47, PMU_WRITE_FULL), HW_FAULT_GP);
	assert_int_equal(p.armed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(describe_athlon),
	    cmocka_unit_test(describe_opteron),
	    cmocka_unit_test(program_fields),
	    cmocka_unit_test(program_12bit_event_on_fam15h),
	    cmocka_unit_test(write_read_full_width),
	    cmocka_unit_test(start_stop),
	    cmocka_unit_test(counter_mask),
	    cmocka_unit_test(overflow_sign_bit),
	    cmocka_unit_test(ack_disarms),
	    cmocka_unit_test(pmi_collect_sign),
	    cmocka_unit_test(pmi_delivery),
	    cmocka_unit_test(reset_clears),
	    cmocka_unit_test(generic_events),
	    cmocka_unit_test(probe_not_functional),
	    cmocka_unit_test(faults_athlon),
	    cmocka_unit_test(faults_opteron),
	    cmocka_unit_test(msr_fault_reported),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
