/* PEBS in the simulator (host/sim/sim_pebs.c, sim_ds.c) and the check that
 * judges it (pebs.record):
 *  - the simulator writes its records where the DS save area says, in the
 *    layout of the model's format (3 on skylake, adaptive on
 *    sapphirerapids), for the instruction after the counter's wrap, and
 *    reloads the counter with the area's reset value; the threshold sets
 *    GLOBAL_STATUS bit 62; nothing goes past the absolute maximum; each
 *    PEBS fault changes exactly what it names;
 *  - pebs.record PASSes healthy over 25 seeds with every realism effect
 *    (and with NMI delivery), FAILs under each PEBS fault on every seed
 *    with a message naming the symptom, SKIPs where there is no PEBS. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "sim_suite.h"
#include "ds_test.h"
#include "../../events/sample.h"
#include "../../pmu/msr.h"

#define ITERS	   60 /* about 1180 kernel instructions */
#define PRELOAD	   50 /* the first record at kernel step 50 */
#define RESET	   99 /* then every 100 */
#define CAP	   16 /* records the buffer holds */
#define FMT3_SIZE  0xc8
#define SENTINEL   0xa5
#define MAX_STEPS  2048
#define BIT62	   (1ull << 62)
#define ADAPTIVE   (1ull << 34)
#define WIDTH_MASK ((1ull << 48) - 1)

static struct {
	uint64_t bts[4], base, index, max, threshold, reset[12];
} ds;
static uint8_t buf[CAP * 0x100 + 64];

struct steps {
	uint64_t n, ip[MAX_STEPS], next[MAX_STEPS];
};
static struct steps w;

static void on_step(void *ctx, const struct smp_step *st)
{
	struct steps *s = ctx;
	if (s->n < MAX_STEPS) {
		s->ip[s->n] = st->ip;
		s->next[s->n] = st->next;
	}
	s->n++;
}

static uint64_t q(unsigned off)
{
	uint64_t v;
	memcpy(&v, buf + off, sizeof(v));
	return v;
}

/* model with fault f (no realism): GP0 on instructions retired (C0H) at
 * CPL 0, preloaded with -PRELOAD, reset -RESET, a buffer of cap records of
 * size bytes with its threshold at record thr, PEBS on GP0; the kernel run
 * for ITERS iterations. sel: bits added to the event select. */
static struct pmu *run_pebs(const char *model, enum sim_fault f, unsigned size, unsigned cap,
			    unsigned thr, uint64_t sel, uint64_t data_cfg)
{
	struct pmu *p = drv_up(model, f);
	struct pmu_event ev = {.code = 0xc0};

	assert_int_equal(p->ops->program(p, 0, &ev, PMU_F_OS), HW_OK);
	if (sel)
		assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0, drv_msr(MSR_P6_EVNTSEL0) | sel), HW_OK);
	assert_int_equal(pmu_preload(p, 0, PRELOAD), HW_OK);
	memset(&ds, 0, sizeof(ds));
	memset(buf, SENTINEL, sizeof(buf));
	ds.base = ds.index = (uint64_t)(uintptr_t)buf;
	ds.max = ds.base + (uint64_t)cap * size;
	ds.threshold = ds.base + (uint64_t)thr * size;
	ds.reset[0] = (0 - (uint64_t)RESET) & WIDTH_MASK;
	assert_int_equal(hw_wrmsr(MSR_IA32_DS_AREA, (uint64_t)(uintptr_t)&ds), HW_OK);
	if (data_cfg)
		assert_int_equal(hw_wrmsr(MSR_PEBS_DATA_CFG, data_cfg), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_IA32_PEBS_ENABLE, 1), HW_OK);
	assert_int_equal(p->ops->start(p, 1), HW_OK);
	hw_run_workload(&wl_sample, ITERS);
	assert_int_equal(p->ops->stop(p, 1), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_IA32_PEBS_ENABLE, 0), HW_OK);
	w.n = 0;
	smp_walk(ITERS, on_step, &w);
	assert_true(w.n <= MAX_STEPS);
	return p;
}

/* Records the walk has from PRELOAD every RESET + 1 steps. */
static unsigned due(void)
{
	return (unsigned)((w.n - 1 - PRELOAD) / (RESET + 1) + 1);
}

/* Format 3 on skylake: every record where it belongs, its fields the
 * sampled instruction's, the counter reloaded, the threshold's bit 62. */
static void format3_layout(void **st)
{
	(void)st;
	struct pmu *p = run_pebs("skylake", SF_NONE, FMT3_SIZE, CAP, 3, 0, 0);
	unsigned n = due();

	assert_true(n >= 8 && n < CAP);
	assert_int_equal(ds.index, ds.base + (uint64_t)n * FMT3_SIZE);
	for (unsigned j = 0; j < n; j++) {
		unsigned o = j * FMT3_SIZE;
		uint64_t t = PRELOAD + (uint64_t)j * (RESET + 1);
		assert_int_equal(q(o) & 2, 2);		  /* RFLAGS bit 1 */
		assert_int_equal(q(o + 0x08), w.next[t]); /* RIP: trap-like */
		for (unsigned r = 0x10; r < 0x90; r += 8)
			assert_int_equal(q(o + r), 0);	/* RAX..R15: not modelled */
		assert_int_equal(q(o + 0x90), 1);	/* applicable: GP0 */
		assert_int_equal(q(o + 0xb0), w.ip[t]); /* EventingIP */
		if (j)
			assert_true(q(o + 0xc0) > q(o + 0xc0 - FMT3_SIZE));
	}
	assert_int_equal(buf[n * FMT3_SIZE], SENTINEL);
	/* reloaded at the last record, then counting the rest of the walk */
	uint64_t last = PRELOAD + (uint64_t)(n - 1) * (RESET + 1);
	assert_int_equal(drv_read(p, 0), (0 - (uint64_t)RESET + (w.n - 1 - last)) & WIDTH_MASK);
	assert_true(drv_msr(MSR_PERF_GLOBAL_STATUS) & BIT62);
	assert_true(sim.st.pmi_raised > 0);
}

/* Nothing past the absolute maximum; no threshold, no bit 62. */
static void stops_at_the_maximum(void **st)
{
	(void)st;
	(void)run_pebs("skylake", SF_NONE, FMT3_SIZE, 4, 5, 0, 0);
	assert_int_equal(ds.index, ds.max);
	assert_int_equal(buf[4 * FMT3_SIZE], SENTINEL);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS) & BIT62, 0);
	assert_int_equal(sim.st.pmi_raised, 0);
}

/* Each fault changes what it names, and only that. */
static void faults_change_what_they_name(void **st)
{
	(void)st;
	(void)run_pebs("skylake", SF_PEBS_NEXT_IP, FMT3_SIZE, CAP, 3, 0, 0);
	assert_int_equal(q(0xb0), w.next[PRELOAD]);
	assert_int_equal(q(0x08), w.next[PRELOAD]);
	(void)run_pebs("skylake", SF_PEBS_RESET_IGNORED, FMT3_SIZE, CAP, 3, 0, 0);
	assert_int_equal(ds.index, ds.base + FMT3_SIZE);
	assert_int_equal(q(0xb0), w.ip[PRELOAD]);
	(void)run_pebs("skylake", SF_DS_THRESHOLD_LOST, FMT3_SIZE, CAP, 3, 0, 0);
	assert_int_equal(ds.index, ds.base + (uint64_t)due() * FMT3_SIZE);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS) & BIT62, 0);
	assert_int_equal(sim.st.pmi_raised, 0);
}

/* The DS MSRs: a non-canonical area, PEBS_ENABLE's and PEBS_DATA_CFG's
 * reserved bits #GP; Skylake has no PEBS_DATA_CFG; skylake-kvm no DS. */
static void msrs(void **st)
{
	(void)st;
	(void)drv_up("skylake", SF_NONE);
	assert_int_equal(hw_wrmsr(MSR_IA32_DS_AREA, 1ull << 60), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_IA32_DS_AREA, 0xffff800000001000ull), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_IA32_PEBS_ENABLE, 1ull << 4), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_IA32_PEBS_ENABLE, 0xfull | 0xfull << 32), HW_OK);
	assert_int_equal(drv_msr(MSR_IA32_PEBS_ENABLE), 0xfull | 0xfull << 32);
	uint64_t v;
	assert_int_equal(hw_rdmsr(MSR_PEBS_DATA_CFG, &v), HW_FAULT_GP);
	(void)drv_up("skylake-kvm", SF_NONE);
	assert_int_equal(hw_rdmsr(MSR_IA32_DS_AREA, &v), HW_FAULT_GP);
	if (!sim_model_find("sapphirerapids"))
		return;
	(void)drv_up("sapphirerapids", SF_NONE);
	assert_int_equal(hw_wrmsr(MSR_PEBS_DATA_CFG, 1ull << 4), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_PEBS_DATA_CFG, 0xff00000full), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_IA32_PEBS_ENABLE, 1ull << 32), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_IA32_PEBS_ENABLE, 1ull << 36), HW_FAULT_GP);
}

/* The PEBS event pmu/ds.c picks: Skylake's INST_RETIRED.PREC_DIST on gp1,
 * which skylake counts as instructions retired (model_arch_events.c);
 * INST_RETIRED.ANY_P on gp0 with adaptive PEBS; core2, with DS in CPUID
 * but no debug store modelled, says both unavailable in MISC_ENABLE. */
static void pebs_event(void **st)
{
	struct pmu_event any = {.code = 0xc0}, pdir = {.code = 0xc0, .umask = 0x01};
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);
	const struct pmu_ds *d = &pmu_sampling(p)->ds;
	assert_true(d->pebs);
	assert_int_equal(d->pebs_event << 8 | d->pebs_umask, 0xc001);
	assert_int_equal(d->pebs_ctr, 1);
	assert_string_equal(d->pebs_event_name, "INST_RETIRED.PREC_DIST");
	assert_int_equal(p->ops->program(p, 0, &any, PMU_F_OS), HW_OK);
	assert_int_equal(p->ops->program(p, 1, &pdir, PMU_F_OS), HW_OK);
	assert_int_equal(p->ops->start(p, 3), HW_OK);
	hw_run_workload(&wl_sample, ITERS);
	assert_int_equal(p->ops->stop(p, 3), HW_OK);
	assert_true(drv_read(p, 0) > 0);
	assert_int_equal(drv_read(p, 1), drv_read(p, 0));
	(void)drv_up("core2", SF_NONE);
	assert_int_equal(drv_msr(MSR_IA32_MISC_ENABLE) &
			     (MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL),
			 MISC_ENABLE_BTS_UNAVAIL | MISC_ENABLE_PEBS_UNAVAIL);
	if (!sim_model_find("sapphirerapids"))
		return;
	d = &pmu_sampling(drv_up("sapphirerapids", SF_NONE))->ds;
	assert_int_equal(d->pebs_event << 8 | d->pebs_umask, 0xc000);
	assert_int_equal(d->pebs_ctr, 0);
}

/* Adaptive PEBS on sapphirerapids: the basic group, and with
 * Adaptive_Record the groups PEBS_DATA_CFG selects (memory info, GPRs, 2
 * LBR entries: 0x20 + 0x20 + 0x90 + 2 x 0x18). */
static void adaptive_layout(void **st)
{
	const uint64_t cfg = 0x0100000bull; /* memory info, GPRs, LBRs; 2 entries */
	const unsigned size = 0x20 + 0x20 + 0x90 + 0x30;
	(void)st;
	if (!sim_model_find("sapphirerapids"))
		skip();
	(void)run_pebs("sapphirerapids", SF_NONE, 0x20, CAP, CAP, 0, cfg);
	assert_int_equal(ds.index, ds.base + (uint64_t)due() * 0x20);
	assert_int_equal(q(0), 0x20ull << 48);
	assert_int_equal(q(0x08), w.ip[PRELOAD]);
	assert_int_equal(q(0x10), 1);
	(void)run_pebs("sapphirerapids", SF_NONE, size, CAP, CAP, ADAPTIVE, cfg);
	assert_int_equal(ds.index, ds.base + (uint64_t)due() * size);
	for (unsigned j = 0; j < due(); j++) {
		unsigned o = j * size;
		uint64_t t = PRELOAD + (uint64_t)j * (RESET + 1);
		assert_int_equal(q(o), (uint64_t)size << 48 | cfg);
		assert_int_equal(q(o + 0x08), w.ip[t]);
		assert_int_equal(q(o + 0x48), w.next[t]); /* the GPR group's RIP */
	}
}

/* The check over seeds with every realism effect; under each fault; where
 * there is no PEBS (ds_test.h). */
static void healthy_pass_on_every_seed(void **st)
{
	(void)st;
	ds_test_healthy("pebs.record");
}

static void faults_fail_on_every_seed(void **st)
{
	static const struct ds_test_case cases[] = {{SF_PEBS_NEXT_IP, "PEBS"},
						    {SF_PEBS_RESET_IGNORED, "reload"},
						    {SF_DS_THRESHOLD_LOST, "threshold"}};
	(void)st;
	ds_test_faults("pebs.record", cases, sizeof(cases) / sizeof(cases[0]), 0);
}

static void skip_without_pebs(void **st)
{
	(void)st;
	ds_test_skip("pebs.record");
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(format3_layout),
	    cmocka_unit_test(stops_at_the_maximum),
	    cmocka_unit_test(faults_change_what_they_name),
	    cmocka_unit_test(msrs),
	    cmocka_unit_test(pebs_event),
	    cmocka_unit_test(adaptive_layout),
	    cmocka_unit_test(skip_without_pebs),
	    cmocka_unit_test(healthy_pass_on_every_seed),
	    cmocka_unit_test(faults_fail_on_every_seed),
	};
	return cmocka_run_group_tests(t, 0, 0);
}
