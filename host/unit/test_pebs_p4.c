/* NetBurst PEBS in the simulator (host/sim/sim_pebs_p4.c, the pentium4
 * models' front-end tagging in model_netburst.c) and the check that judges
 * it (pebs.netburst):
 *  - with front_end_event on IQ_COUNTER4 (IQ_COUNTER5 on logical processor
 *    1) and uop_type tagging loads and stores, the simulator writes a
 *    64-bit-layout record (RFLAGS, the next instruction's IP, RAX-R15) for
 *    the call or return after each wrap, reloads the counter with the DS
 *    area's reset value and raises a PMI at the threshold; nothing without
 *    the tags, nothing on the other IQ counter, nothing past the absolute
 *    maximum; MSR_PEBS_ENABLE's and MATRIX_VERT's reserved bits #GP; each
 *    PEBS fault changes what it names;
 *  - pebs.netburst PASSes healthy over 25 seeds with every realism effect
 *    (NMI delivery on some), FAILs under each PEBS fault on 12 seeds with a
 *    message naming the symptom, SKIPs on every other family. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "sim_suite.h"
#include "../../events/sample.h"
#include "../../pmu/msr.h"

#define SEEDS	    25
#define FAULT_SEEDS 12
#define ITERS	    60 /* 241 calls and returns */
#define PRELOAD	    10 /* the first record at call/return 10 */
#define RESET	    20 /* then every 21 */
#define CAP	    16
#define REC	    0x90
#define SENTINEL    0xa5
#define MAX_TAGGED  512
#define MY_THR	    (1ull << 25)
#define OTH_THR	    (1ull << 26)
#define VERT	    0x3f2
#define TAG_LDST    0x6ull
#define WIDTH_MASK  ((1ull << 40) - 1)

static struct {
	uint64_t bts[4], base, index, max, threshold, reset, reserved;
} ds;
static uint8_t buf[CAP * REC + 64];

/* The kernel's calls and returns in walk order. */
static struct {
	uint64_t n, ip[MAX_TAGGED], next[MAX_TAGGED];
} w;

static void on_step(void *ctx, const struct smp_step *st)
{
	(void)ctx;
	if (st->kind != SMP_CALL && st->kind != SMP_CALL_IND && st->kind != SMP_RET)
		return;
	if (w.n < MAX_TAGGED) {
		w.ip[w.n] = st->ip;
		w.next[w.n] = st->next;
	}
	w.n++;
}

static uint64_t q(unsigned off)
{
	uint64_t v;
	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/* The IQ counter that samples for the harness's logical processor. */
static unsigned pebs_ctr(void)
{
	return sim.apic_id & 1 ? 17 : 16;
}

/* model with fault f (no realism): front_end_event.NBOGUS on counter ctr at
 * CPL 0 with the ESCR of its half, uop_type with tags in the RAT ESCR of
 * that half, preloaded with -PRELOAD, reset -RESET, a buffer of cap records
 * with its threshold at record thr; PEBS on for this thread; the kernel run
 * for ITERS iterations. */
static struct pmu *run_p4(const char *model, enum sim_fault f, unsigned ctr, uint64_t tags,
			  unsigned cap, unsigned thr)
{
	struct pmu *p = drv_up(model, f);
	unsigned half = ctr == 17 || ctr == 15 || ctr == 14;
	struct pmu_event ev = {.code = 0x08,
			       .escr_mask = 1,
			       .escr_select = 5,
			       .escr_msr = 0x3cc + half,
			       .counters = 1u << ctr};
	uint64_t os = sim.apic_id & 1 ? 1ull << 1 : 1ull << 3; /* T1_OS, T0_OS */

	assert_int_equal(p->ops->program(p, ctr, &ev, PMU_F_OS), HW_OK);
	assert_int_equal(hw_wrmsr(0x3bc + half, 2ull << 25 | tags << 9 | os), HW_OK);
	assert_int_equal(pmu_preload(p, ctr, PRELOAD), HW_OK);
	memset(&ds, 0, sizeof(ds));
	memset(buf, SENTINEL, sizeof(buf));
	ds.base = ds.index = (uint64_t)(uintptr_t)buf;
	ds.max = ds.base + (uint64_t)cap * REC;
	ds.threshold = ds.base + (uint64_t)thr * REC;
	ds.reset = (0 - (uint64_t)RESET) & WIDTH_MASK;
	assert_int_equal(hw_wrmsr(MSR_IA32_DS_AREA, (uint64_t)(uintptr_t)&ds), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_IA32_PEBS_ENABLE, MY_THR), HW_OK);
	assert_int_equal(p->ops->start(p, 1ull << ctr), HW_OK);
	hw_run_workload(&wl_sample, ITERS);
	assert_int_equal(p->ops->stop(p, 1ull << ctr), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_IA32_PEBS_ENABLE, 0), HW_OK);
	memset(&w, 0, sizeof(w));
	smp_walk(ITERS, on_step, 0);
	assert_true(w.n <= MAX_TAGGED);
	return p;
}

/* Records the walk has from PRELOAD every RESET + 1 calls and returns. */
static unsigned due(void)
{
	return (unsigned)((w.n - 1 - PRELOAD) / (RESET + 1) + 1);
}

/* Every record where it belongs, the next instruction's IP, the counter
 * reloaded, the threshold's PMI; on both models, each on its counter. */
static void layout_64(void **st)
{
	static const char *const models[] = {"pentium4", "pentium4-ht"};
	(void)st;
	for (unsigned m = 0; m < 2; m++) {
		assert_int_equal(sim_start(models[m], SF_NONE), 0);
		unsigned ctr = pebs_ctr();
		struct pmu *p = run_p4(models[m], SF_NONE, ctr, TAG_LDST, CAP, 3);
		unsigned n = due();
		assert_int_equal(ctr, m ? 17 : 16);
		assert_true(n >= 8 && n < CAP);
		assert_int_equal(ds.index, ds.base + (uint64_t)n * REC);
		for (unsigned j = 0; j < n; j++) {
			unsigned o = j * REC;
			uint64_t t = PRELOAD + (uint64_t)j * (RESET + 1);
			assert_int_equal(q(o), 2 | (hw_irq_enabled() ? 0x200 : 0)); /* RFLAGS */
			assert_int_equal(q(o + 0x08), w.next[t]); /* the next instruction's */
			for (unsigned r = 0x10; r < REC; r += 8)
				assert_int_equal(q(o + r), 0); /* RAX..R15: not modelled */
		}
		assert_int_equal(buf[n * REC], SENTINEL);
		uint64_t last = PRELOAD + (uint64_t)(n - 1) * (RESET + 1);
		assert_int_equal(drv_read(p, ctr),
				 (0 - (uint64_t)RESET + (w.n - 1 - last)) & WIDTH_MASK);
		assert_true(sim.st.pmi_raised > 0);
	}
}

/* No tags: front_end_event counts nothing, no record. The other IQ
 * counter samples nothing. Nothing past the absolute maximum, no PMI
 * below the threshold. */
static void only_what_is_sampled(void **st)
{
	(void)st;
	(void)run_p4("pentium4", SF_NONE, 16, 0, CAP, 3);
	assert_int_equal(ds.index, ds.base);
	assert_int_equal(buf[0], SENTINEL);
	(void)run_p4("pentium4", SF_NONE, 13, TAG_LDST, CAP, 3);
	assert_int_equal(ds.index, ds.base);
	(void)run_p4("pentium4-ht", SF_NONE, 16, TAG_LDST, CAP, 3);
	assert_int_equal(ds.index, ds.base);
	(void)run_p4("pentium4", SF_NONE, 16, TAG_LDST, 4, 5);
	assert_int_equal(ds.index, ds.max);
	assert_int_equal(buf[4 * REC], SENTINEL);
	assert_int_equal(sim.st.pmi_raised, 0);
}

/* Each fault changes what it names, and only that. */
static void faults_change_what_they_name(void **st)
{
	(void)st;
	(void)run_p4("pentium4", SF_PEBS_NEXT_IP, 16, TAG_LDST, CAP, 3);
	assert_int_equal(ds.index, ds.base + (uint64_t)due() * REC);
	assert_int_equal(q(0x08), w.ip[PRELOAD]);
	(void)run_p4("pentium4", SF_PEBS_RESET_IGNORED, 16, TAG_LDST, CAP, 3);
	assert_int_equal(ds.index, ds.base + REC);
	assert_int_equal(q(0x08), w.next[PRELOAD]);
	(void)run_p4("pentium4", SF_DS_THRESHOLD_LOST, 16, TAG_LDST, CAP, 3);
	assert_int_equal(ds.index, ds.base + (uint64_t)due() * REC);
	assert_int_equal(sim.st.pmi_raised, 0);
}

/* The MSRs: MSR_PEBS_ENABLE holds the metrics (0-16), UOP_TAG (24),
 * MY_THR (25) and with Hyper-Threading OTH_THR (26); MATRIX_VERT bits 0-4;
 * the rest #GP, and a non-canonical DS area. */
static void msrs(void **st)
{
	uint64_t v;
	(void)st;
	(void)drv_up("pentium4", SF_NONE);
	assert_int_equal(hw_wrmsr(MSR_IA32_PEBS_ENABLE, 0x1ffffull | 3ull << 24), HW_OK);
	assert_int_equal(drv_msr(MSR_IA32_PEBS_ENABLE), 0x1ffffull | 3ull << 24);
	assert_int_equal(hw_wrmsr(MSR_IA32_PEBS_ENABLE, OTH_THR), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_IA32_PEBS_ENABLE, 1ull << 17), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(VERT, 0x1f), HW_OK);
	assert_int_equal(drv_msr(VERT), 0x1f);
	assert_int_equal(hw_wrmsr(VERT, 0x20), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_IA32_DS_AREA, 1ull << 60), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_IA32_DS_AREA, 0xffff800000001000ull), HW_OK);
	assert_int_equal(drv_msr(MSR_IA32_DS_AREA), 0xffff800000001000ull);
	(void)drv_up("pentium4-ht", SF_NONE);
	assert_int_equal(hw_wrmsr(MSR_IA32_PEBS_ENABLE, OTH_THR), HW_OK);
	(void)drv_up("core2", SF_NONE);
	assert_int_equal(hw_rdmsr(VERT, &v), HW_FAULT_GP);
}

/* The check over seeds with every realism effect. */
static void healthy_pass_on_every_seed(void **st)
{
	static const char *const models[] = {"pentium4", "pentium4-ht"};
	(void)st;
	for (unsigned m = 0; m < 2; m++)
		for (uint64_t seed = 1; seed <= SEEDS; seed++) {
			(void)up(models[m], SF_NONE, SIM_REALISM_ALL, seed);
			opt.pmi = seed % 5 ? PMI_FIXED : PMI_NMI;
			const struct result *r = run_check("pebs.netburst");
			if (r->v != V_PASS)
				fail_msg("%s seed %llu: %s: %s", models[m],
					 (unsigned long long)seed, verdict_name(r->v), r->msg);
		}
}

static void faults_fail_on_every_seed(void **st)
{
	static const struct {
		enum sim_fault f;
		const char *word; /* scripts/sim-matrix.py SYMPTOM's */
	} cases[] = {{SF_PEBS_NEXT_IP, "IP"},
		     {SF_PEBS_RESET_IGNORED, "reload"},
		     {SF_DS_THRESHOLD_LOST, "threshold"}};
	static const char *const models[] = {"pentium4", "pentium4-ht"};
	(void)st;
	for (unsigned m = 0; m < 2; m++)
		for (unsigned k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
			for (uint64_t seed = 1; seed <= FAULT_SEEDS; seed++) {
				(void)up(models[m], cases[k].f, SIM_REALISM_ALL, seed);
				const struct result *r = run_check("pebs.netburst");
				if (r->v != V_FAIL || !strstr(r->msg, cases[k].word))
					fail_msg("%s %s seed %llu: %s: %s", models[m],
						 sim_fault_name(cases[k].f),
						 (unsigned long long)seed, verdict_name(r->v),
						 r->msg);
			}
}

/* Every model of another family SKIPs, naming the driver. */
static void other_models_skip(void **st)
{
	unsigned n = 0;
	const struct sim_model *const *all = sim_models(&n);
	(void)st;
	for (unsigned i = 0; i < n; i++) {
		if (all[i]->driver == PMU_DRV_INTEL_NETBURST || all[i]->cpus > 1)
			continue;
		assert_int_equal(sim_start_real(all[i]->name, SF_NONE, SIM_REALISM_ALL, 1), 0);
		cpu_identify(&drv_ci);
		apic_detect(&drv_ai);
		pmu_attach(&drv_p, &drv_ci);
		options_default(&opt);
		const struct result *r = run_check("pebs.netburst");
		if (r->v != V_SKIP)
			fail_msg("%s: %s %s", all[i]->name, verdict_name(r->v), r->msg);
	}
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(layout_64),
	    cmocka_unit_test(only_what_is_sampled),
	    cmocka_unit_test(faults_change_what_they_name),
	    cmocka_unit_test(msrs),
	    cmocka_unit_test(other_models_skip),
	    cmocka_unit_test(healthy_pass_on_every_seed),
	    cmocka_unit_test(faults_fail_on_every_seed),
	};
	return cmocka_run_group_tests(t, 0, 0);
}
