/* Realism "firmware": what firmware and platform quirks leave for the
 * harness, each shown three ways: the effect gives the harness's old logic
 * (kept here, in the test only) the false FAIL it predicts, the fixed
 * harness passes, and with the effect off the model is ideal. Then the
 * register faults that only a read-back can see (width-high-bits,
 * write-dropped, status-not-sticky), each caught by its check. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../tests/suite.h"
#include "sim_suite.h"

#define FW (1u << SE_FIRMWARE)
#define OH (1u << SE_OVERHEAD)

static struct pmu *boot(const char *model, uint32_t realism, uint64_t seed)
{
	assert_int_equal(sim_start_real(model, SF_NONE, realism, seed), 0);
	cpu_identify(&drv_ci);
	apic_detect(&drv_ai);
	pmu_attach(&drv_p, &drv_ci);
	return &drv_p;
}

/* ---- counter 0 left enabled ------------------------------------------- */

/* The probe before the fix: counter 0 whatever the firmware left in it. */
static bool old_probe(struct pmu *p)
{
	uint64_t orig = 0, back = 0, val;
	hw_rdmsr(p->ctr[0].ctr_msr, &orig);
	val = (orig ^ 0xffffull) & 0x7fffffffull;
	assert_int_equal(p->ops->write(p, 0, val, PMU_WRITE_LEGACY), HW_OK);
	hw_rdmsr(p->ctr[0].ctr_msr, &back);
	return back == val;
}

static const char *const fw_models[] = {"skylake", "core2",	"yonah",   "pentium3",
					"zen4",	   "bulldozer", "opteron", "athlon"};

static void firmware_counter_fools_the_old_probe(void **st)
{
	(void)st;
	for (unsigned k = 0; k < sizeof(fw_models) / sizeof(fw_models[0]); k++) {
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct pmu *p = boot(fw_models[k], FW | OH, seed);
			assert_int_equal(p->status, PMU_FUNCTIONAL);
			assert_non_null(strstr(p->warning, "firmware left gp0 enabled"));
			assert_false(old_probe(p)); /* the cycles it counts in between */
			p = boot(fw_models[k], OH, seed);
			assert_int_equal(p->status, PMU_FUNCTIONAL);
			assert_int_equal(p->warning[0], 0);
			assert_true(old_probe(p));
		}
	}
}

static void every_counter_enabled_is_not_functional(void **st)
{
	(void)st;
	assert_int_equal(sim_start_real("skylake", SF_NONE, FW, 1), 0);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + i, EVTSEL_EN | EVTSEL_OS | 0x3c), 0);
	cpu_identify(&drv_ci);
	pmu_attach(&drv_p, &drv_ci);
	assert_int_equal(drv_p.status, PMU_NOT_FUNCTIONAL);
	assert_non_null(strstr(drv_p.reason, "every counter enabled"));
	assert_non_null(strstr(drv_p.warning, "and 3 more counters"));
}

/* ---- LIMIT_CPUID -------------------------------------------------------- */

/* Identification before the fix: leaf 0 as the firmware left it. */
static enum pmu_driver_id old_identify(void)
{
	struct cpu_ids ids;
	struct cpuid_regs r;
	char why[160];

	memset(&ids, 0, sizeof(ids));
	hw_cpuid(0, 0, &r);
	ids.max_leaf = r.eax;
	memcpy(ids.vendor, &r.ebx, 4);
	memcpy(ids.vendor + 4, &r.edx, 4);
	memcpy(ids.vendor + 8, &r.ecx, 4);
	hw_cpuid(1, 0, &ids.leaf1);
	if (ids.max_leaf >= 0x0a)
		hw_cpuid(0x0a, 0, &ids.leaf0a);
	return cpu_select_driver(&ids, why, sizeof(why));
}

static void limit_cpuid_hides_arch_perfmon(void **st)
{
	(void)st;
	static const char *const m[] = {"skylake", "core2", "yonah"};
	for (unsigned k = 0; k < 3; k++) {
		assert_int_equal(sim_start_real(m[k], SF_NONE, FW, 1), 0);
		assert_true(sim.real.limit_cpuid);
		assert_int_not_equal(old_identify(), PMU_DRV_INTEL_ARCH);
		cpu_identify(&drv_ci);
		assert_int_equal(drv_ci.driver, PMU_DRV_INTEL_ARCH);
		assert_true(drv_ci.ids.limit_cpuid_cleared);
		assert_false(sim.real.limit_cpuid);
		cpu_restore(&drv_ci); /* the way out: the firmware's setting back */
		assert_true(sim.real.limit_cpuid);
		assert_true(drv_msr(MSR_IA32_MISC_ENABLE) & MISC_ENABLE_LIMIT_CPUID);

		assert_int_equal(sim_start_real(m[k], SF_NONE, 0, 1), 0);
		assert_int_equal(old_identify(), PMU_DRV_INTEL_ARCH);
		cpu_identify(&drv_ci);
		assert_false(drv_ci.ids.limit_cpuid_cleared);
		cpu_restore(&drv_ci);
		assert_false(sim.real.limit_cpuid);
	}
	/* not an Intel part: MSR 0x1A0 is not touched */
	boot("zen4", FW, 1);
	assert_false(drv_ci.ids.limit_cpuid_cleared);
}

/* ---- RDPMC indices beyond the core counters ----------------------------- */

static void rdpmc_invalid_index_per_family(void **st)
{
	(void)st;
	uint64_t v;
	struct pmu *p = boot("zen4", FW, 1);
	/* the old check's index, 8 past the last GP counter, reads L3 */
	assert_int_equal(hw_rdpmc(p->n_gp + 8, &v), HW_OK);
	for (uint32_t i = 6; i < 16; i++)
		assert_int_equal(hw_rdpmc(i, &v), HW_OK);
	assert_int_equal(p->rdpmc_bad, 16);
	assert_int_equal(hw_rdpmc(p->rdpmc_bad, &v), HW_FAULT_GP);
	p = boot("bulldozer", FW, 1);
	assert_int_equal(hw_rdpmc(9, &v), HW_OK);
	assert_int_equal(p->rdpmc_bad, 10);
	assert_int_equal(hw_rdpmc(10, &v), HW_FAULT_GP);
	/* ideal: the core counters only */
	p = boot("zen4", 0, 1);
	assert_int_equal(hw_rdpmc(6, &v), HW_FAULT_GP);
	static const struct {
		const char *m;
		uint32_t bad;
	} t[] = {{"skylake", 4}, {"pentium3", 2}, {"pentium4", 18}, {"knc", 2}, {"opteron", 4}};
	for (unsigned k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		p = boot(t[k].m, FW, 1);
		assert_int_equal(p->rdpmc_bad, t[k].bad);
		assert_int_equal(hw_rdpmc(p->rdpmc_bad, &v), HW_FAULT_GP);
	}
}

/* ---- Skylake TSX force-abort -------------------------------------------- */

static uint64_t count_gp3(struct pmu *p)
{
	drv_program(p, 3, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	assert_int_equal(p->ops->write(p, 3, 0, PMU_WRITE_FULL), 0);
	assert_int_equal(p->ops->start(p, 1u << 3), 0);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(p->ops->stop(p, 1u << 3), 0);
	return drv_read(p, 3);
}

static void tsx_force_abort_owns_pmc3(void **st)
{
	(void)st;
	struct cpuid_regs r;
	struct pmu *p = boot("skylake", FW, 2);
	uint64_t pat = 0x123456789aull;

	hw_cpuid(7, 0, &r);
	assert_true(r.edx & (1u << 13));
	assert_int_equal(p->ops->reset(p), 0);
	assert_int_equal(drv_msr(MSR_TSX_FORCE_ABORT), 1);
	/* the old driver never set it: gp3 neither holds nor counts */
	assert_int_equal(hw_wrmsr(MSR_TSX_FORCE_ABORT, 0), 0);
	assert_int_equal(p->ops->write(p, 3, pat, PMU_WRITE_FULL), 0);
	assert_int_not_equal(drv_read(p, 3), pat);
	assert_int_not_equal(count_gp3(p), 3000 + wl_loop.fixed.instructions);
	/* the fixed driver sets it in reset */
	assert_int_equal(p->ops->reset(p), 0);
	assert_int_equal(p->ops->write(p, 3, pat, PMU_WRITE_FULL), 0);
	assert_int_equal(drv_read(p, 3), pat);
	assert_int_equal(count_gp3(p), 3000 + wl_loop.fixed.instructions);
	pmu_release(p);
	assert_int_equal(drv_msr(MSR_TSX_FORCE_ABORT), 0);
	/* ideal: no TSX_FORCE_ABORT, no MSR 0x10F, gp3 is the harness's */
	uint64_t v;
	p = boot("skylake", 0, 2);
	hw_cpuid(7, 0, &r);
	assert_false(r.edx & (1u << 13));
	assert_int_equal(hw_rdmsr(MSR_TSX_FORCE_ABORT, &v), HW_FAULT_GP);
	assert_int_equal(p->ops->reset(p), 0);
	assert_int_equal(count_gp3(p), 3000 + wl_loop.fixed.instructions);
}

/* release() gives back MSR 0x10F as init found it: set by the firmware (or
 * the host's perf) before the harness ran, it stays set; found clear, it is
 * cleared (above). The driver before wrote 0 whatever it found. */
static void tsx_force_abort_restored(void **st)
{
	(void)st;
	assert_int_equal(sim_start_real("skylake", SF_NONE, FW, 2), 0);
	assert_int_equal(hw_wrmsr(MSR_TSX_FORCE_ABORT, 1), 0);
	cpu_identify(&drv_ci);
	apic_detect(&drv_ai);
	pmu_attach(&drv_p, &drv_ci);
	assert_int_equal(drv_p.ops->reset(&drv_p), 0);
	assert_int_equal(count_gp3(&drv_p), 3000 + wl_loop.fixed.instructions);
	pmu_release(&drv_p);
	assert_int_equal(drv_msr(MSR_TSX_FORCE_ABORT), 1);
}

/* ---- NetBurst: thread 1, erratum N15 ------------------------------------- */

static unsigned instr_counter(struct pmu *p)
{
	struct pmu_event ev;
	for (unsigned i = 0; i < p->n; i++)
		if (p->ops->generic_event(p, GEN_INSTRUCTIONS, i, &ev) == 0)
			return i;
	fail_msg("no counter for instructions");
	return 0;
}

static uint64_t count_on(struct pmu *p, unsigned i)
{
	assert_int_equal(p->ops->write(p, i, 0, PMU_WRITE_FULL), 0);
	assert_int_equal(p->ops->start(p, 1ull << i), 0);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(p->ops->stop(p, 1ull << i), 0);
	return drv_read(p, i);
}

static void netburst_thread1_bits(void **st)
{
	(void)st;
	const uint64_t want = 3000 + wl_loop.fixed.instructions;
	struct pmu *p = boot("pentium4-ht", 0, 1);
	unsigned i = instr_counter(p);
	uint64_t escr;

	assert_int_equal(p->status, PMU_FUNCTIONAL);
	assert_int_equal(p->ops->reset(p), 0);
	drv_program(p, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT);
	escr = drv_msr(p->ctr[i].aux_msr);
	assert_int_equal(escr & 0xf, 0x3);			/* T1_OS | T1_USR */
	assert_true(drv_msr(p->ctr[i].ctl_msr) & (1ull << 27)); /* OVF_PMI_T1 */
	assert_int_equal(count_on(p, i), want);
	/* the old driver's thread-0 bits count nothing here */
	assert_int_equal(hw_wrmsr(p->ctr[i].aux_msr, (escr & ~0xfull) | 0xc), 0);
	assert_int_equal(count_on(p, i), 0);
	/* one thread, thread-0 bits: the ideal */
	p = boot("pentium4", 0, 1);
	assert_int_equal(p->ops->reset(p), 0);
	drv_program(p, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT);
	assert_int_equal(drv_msr(p->ctr[i].aux_msr) & 0xf, 0xc);
	assert_true(drv_msr(p->ctr[i].ctl_msr) & (1ull << 26));
	assert_int_equal(count_on(p, i), want);
}

/* Counter 0 written 40 times, once per value (the old driver) or through
 * the driver; returns how many values it did not hold. */
static unsigned n15_misses(struct pmu *p, bool driver)
{
	unsigned miss = 0;
	for (uint64_t k = 0; k < 40; k++) {
		uint64_t v = 0x1000 + 17 * k;
		if (driver)
			assert_int_equal(p->ops->write(p, 0, v, PMU_WRITE_FULL), 0);
		else
			assert_int_equal(hw_wrmsr(p->ctr[0].ctr_msr, v), 0);
		miss += drv_read(p, 0) != v;
	}
	return miss;
}

static void netburst_n15_second_write(void **st)
{
	(void)st;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct pmu *p = boot("pentium4", FW, seed);
		assert_int_equal(p->ops->reset(p), 0);
		assert_true(n15_misses(p, false) > 0);
		assert_int_equal(n15_misses(p, true), 0);
		p = boot("pentium4", 0, seed);
		assert_int_equal(n15_misses(p, false), 0);
	}
}

/* ---- faults only a read-back sees ------------------------------------------ */

/* One check on model with all realism: its verdict and message. */
static enum verdict check_on(const char *model, enum sim_fault f, uint64_t seed, const char *id,
			     const char **msg)
{
	up(model, f, SIM_REALISM_ALL, seed);
	const struct result *r = run_check(id);
	*msg = r->msg;
	return r->v;
}

static const char *catcher(const struct sim_model *m, enum sim_fault f, const char **word)
{
	switch (f) {
	case SF_WIDTH_HIGH_BITS:
		*word = "above the width";
		return "counter.width";
	case SF_WRITE_DROPPED:
		*word = "read back";
		return "msr.access";
	default: /* status-not-sticky: NetBurst's flag is CCCR.OVF */
		*word = "sticky";
		return m->driver == PMU_DRV_INTEL_NETBURST ? "netburst.cccr-escr"
							   : "overflow.status";
	}
}

static void register_faults_caught(void **st)
{
	(void)st;
	static const enum sim_fault fs[] = {SF_WIDTH_HIGH_BITS, SF_WRITE_DROPPED,
					    SF_STATUS_NOT_STICKY};
	unsigned n, caught = 0;
	const struct sim_model *const *m = sim_models(&n);
	const char *msg, *word;

	for (unsigned k = 0; k < n; k++) {
		for (unsigned j = 0; j < 3; j++) {
			if (!(m[k]->faults & (1u << fs[j]))) {
				assert_non_null(m[k]->fault_na[fs[j]]);
				continue;
			}
			const char *id = catcher(m[k], fs[j], &word);
			for (uint64_t seed = 1; seed <= 2; seed++) {
				assert_int_equal(check_on(m[k]->name, fs[j], seed, id, &msg),
						 V_FAIL);
				if (!strstr(msg, word))
					fail_msg("%s %s: %s", m[k]->name, sim_fault_name(fs[j]),
						 msg);
				assert_int_equal(check_on(m[k]->name, SF_NONE, seed, id, &msg),
						 V_PASS);
			}
			caught++;
		}
	}
	assert_true(caught >= 20);
}

/* counter.width before the fix read through the driver, which masks to the
 * width: bits above it could not fail the check. */
static void old_width_read_is_blind(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_WIDTH_HIGH_BITS);
	uint64_t want = pmu_width_mask(p->ctr[0].width);

	assert_int_equal(hw_wrmsr(p->ctr[0].ctr_msr, ~0ull), 0);
	assert_int_equal(drv_read(p, 0), want);			/* the old view */
	assert_int_not_equal(drv_msr(p->ctr[0].ctr_msr), want); /* RDMSR */
	p = drv_up("skylake", SF_NONE);
	assert_int_equal(hw_wrmsr(p->ctr[0].ctr_msr, ~0ull), 0);
	assert_int_equal(drv_msr(p->ctr[0].ctr_msr), want);
}

/* msr.access before the fix wrote each register's own value back: a bit
 * that drops writes could not fail it. */
static void old_msr_write_back_is_blind(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_WRITE_DROPPED);
	struct pmu_msr_desc d[96];
	size_t n = p->ops->msrs(p, d, 96);
	uint64_t v;

	for (size_t i = 0; i < n; i++) {
		if (d[i].access != PMU_MSR_RW)
			continue;
		assert_int_equal(hw_rdmsr(d[i].addr, &v), 0);
		assert_int_equal(hw_wrmsr(d[i].addr, v), 0); /* no error: "PASS" */
	}
	/* the dropped bit: PERFEVTSEL1 bit 18 (edge detect; pin control is
	 * reserved from Sandy Bridge on) */
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + 1, EVTSEL_EDGE), 0);
	assert_int_equal(drv_msr(MSR_P6_EVNTSEL0 + 1), 0);
	drv_up("skylake", SF_NONE);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + 1, EVTSEL_EDGE), 0);
	assert_int_equal(drv_msr(MSR_P6_EVNTSEL0 + 1), EVTSEL_EDGE);
}

/* Without a status register "ack" is the driver forgetting a counter: the
 * old sticky/ack parts measured the driver, so they are not claimed. */
static void sign_overflow_ack_is_bookkeeping(void **st)
{
	(void)st;
	struct pmu *p = drv_up("pentium3", SF_NONE);
	const char *msg;

	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
	assert_int_equal(pmu_preload(p, 0, 10), 0);
	assert_int_equal(p->ops->start(p, 1), 0);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(p->ops->stop(p, 1), 0);
	uint64_t before = drv_msr(p->ctr[0].ctr_msr);
	assert_int_equal(drv_ovf(p), 1);
	assert_int_equal(p->ops->ack(p, 1), 0);
	assert_int_equal(drv_ovf(p), 0);		      /* "ack cleared it" */
	assert_int_equal(drv_msr(p->ctr[0].ctr_msr), before); /* the CPU did nothing */
	assert_int_equal(check_on("pentium3", SF_NONE, 1, "overflow.status", &msg), V_PASS);
	assert_non_null(strstr(msg, "not applicable"));
	assert_int_equal(check_on("skylake", SF_NONE, 1, "overflow.status", &msg), V_PASS);
	assert_non_null(strstr(msg, "sticky"));
}

/* The fixed checks pass on every healthy model with all realism. */
static void fixed_checks_pass_with_firmware(void **st)
{
	(void)st;
	static const char *const ids[] = {"pmu.probe", "rdpmc", "counter.width"};
	const char *msg;
	for (unsigned k = 0; k < sizeof(fw_models) / sizeof(fw_models[0]); k++) {
		for (unsigned j = 0; j < 3; j++)
			assert_int_equal(check_on(fw_models[k], SF_NONE, 3, ids[j], &msg), V_PASS);
		/* the PASS names the counter it probed, not the firmware's gp0 */
		assert_int_equal(check_on(fw_models[k], SF_NONE, 3, "pmu.probe", &msg), V_PASS);
		assert_non_null(strstr(msg, ": gp1 ("));
		assert_non_null(strstr(msg, "left enabled by the firmware"));
	}
	assert_int_equal(check_on("pentium4-ht", SF_NONE, 3, "count.instructions", &msg), V_PASS);
	assert_int_equal(check_on("pentium4", SF_NONE, 3, "counter.width", &msg), V_PASS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(firmware_counter_fools_the_old_probe),
	    cmocka_unit_test(every_counter_enabled_is_not_functional),
	    cmocka_unit_test(limit_cpuid_hides_arch_perfmon),
	    cmocka_unit_test(rdpmc_invalid_index_per_family),
	    cmocka_unit_test(tsx_force_abort_owns_pmc3),
	    cmocka_unit_test(tsx_force_abort_restored),
	    cmocka_unit_test(netburst_thread1_bits),
	    cmocka_unit_test(netburst_n15_second_write),
	    cmocka_unit_test(register_faults_caught),
	    cmocka_unit_test(old_width_read_is_blind),
	    cmocka_unit_test(old_msr_write_back_is_blind),
	    cmocka_unit_test(sign_overflow_ack_is_bookkeeping),
	    cmocka_unit_test(fixed_checks_pass_with_firmware),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
