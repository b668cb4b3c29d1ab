/* Checks whose windows an SMI lands in, and the ones that could not tell a
 * refused preload from a wrong PMI count: the driver's ops are wrapped so
 * that an SMI comes inside exactly the windows a test picks (its SMM
 * code counted, MSR_SMI_COUNT stepping where the model has it), or a
 * preload with INT set is refused. overflow.preload's PMI part re-measures a
 * window an SMI was counted in, names a refused preload and says why its
 * PMI part did not run; event.raw takes its preload from a signed N/2N
 * difference; overflow.rearm SKIPs when every window saw an SMI; the
 * median of windows without an SMI (m_median_clean). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../apic/pmi.h"
#include "../../tests/checks/pmi_common.h"
#include "../../tests/suite.h"
#include "sim_suite.h"

#define EFFECT(e) (1u << (e))

/* ---- the wrapped driver ------------------------------------------------------ */

/* The driver's ops, wrapped: a preload with INT set outside a PMI handler
 * is a preset; the windows an SMI is wanted in get one at the first seam
 * access after the counters started (the workload call): SMM runs with
 * them on, as it does on a real core. */
static struct {
	struct pmu_ops ops;
	const struct pmu_ops *orig;
	uint64_t int_sel;     /* counters programmed with INT */
	unsigned presets;     /* nonzero preloads of such counters outside a PMI */
	uint64_t last;	      /* the last of them */
	unsigned smi_from;    /* the first preset (1-based) whose window gets an SMI; 0: none */
	bool smi_new_only;    /* only presets with another value than the last */
	bool smi_first_start; /* an SMI in the first window the harness starts */
	bool refuse;	      /* such a preset faults */
	bool smi_due;
	unsigned smis; /* SMIs put in */
} w;

static int w_program(struct pmu *p, unsigned ctr, const struct pmu_event *ev, uint32_t flags)
{
	uint64_t b = 1ull << ctr;
	w.int_sel = flags & PMU_F_INT ? w.int_sel | b : w.int_sel & ~b;
	return w.orig->program(p, ctr, ev, flags);
}

static int w_write(struct pmu *p, unsigned ctr, uint64_t val, enum pmu_write_path path)
{
	if (path == PMU_WRITE_PRELOAD && val && ((w.int_sel >> ctr) & 1) && !sim.depth) {
		if (w.refuse)
			return HW_FAULT_GP;
		w.presets++;
		if (w.smi_from && w.presets >= w.smi_from && (!w.smi_new_only || val != w.last))
			w.smi_due = true;
		w.last = val;
	}
	return w.orig->write(p, ctr, val, path);
}

static int w_start(struct pmu *p, uint64_t mask)
{
	int st = w.orig->start(p, mask);
	if (mask && !sim.depth && (w.smi_due || w.smi_first_start)) {
		sim.real.smi_next = sim.tsc;
		w.smi_due = w.smi_first_start = false;
		w.smis++;
	}
	return st;
}

/* The model with SMIs only where the wrapper puts them (no timer either). */
static struct check_ctx wrapped(const char *model)
{
	struct check_ctx c = up(model, SF_NONE, EFFECT(SE_INTERRUPTS), 1);
	memset(&w, 0, sizeof(w));
	w.orig = drv_p.ops;
	w.ops = *drv_p.ops;
	w.ops.program = w_program;
	w.ops.write = w_write;
	w.ops.start = w_start;
	drv_p.ops = &w.ops;
	sim.real.smi_next = sim.real.timer_next = ~0ull;
	sim.real.smi_min_us = sim.real.smi_max_us = 1000000000ull;
	return c;
}

static int teardown(void **st)
{
	(void)st;
	pmi_disarm();
	return 0;
}

static const struct result *expect(const char *id, enum verdict v, const char *words)
{
	const struct result *r = run_check(id);
	if (r->v != v || (words && !strstr(r->msg, words)))
		fail_msg("%s: verdict %d, expected %d with \"%s\": %s", id, r->v, v,
			 words ? words : "", r->msg);
	return r;
}

/* ---- overflow.preload's PMI part --------------------------------------------- */

/* An SMI in the first window of each boundary preset: its SMM code takes
 * the -(E+1) preset past the wrap. Before, that window was judged: "extra
 * PMI". Now it is measured again. */
static void preload_pmi_remeasures_smi(void **st)
{
	(void)st;
	wrapped("skylake");
	w.smi_from = 1;
	w.smi_new_only = true;
	expect("overflow.preload", V_PASS, "1 PMI for a preset one event past it");
	assert_true(w.smis >= 2); /* the SMIs did land */
}

/* An SMI in every window of a preset: the PMI part is not judged, and the
 * PASS line says so. */
static void preload_pmi_smi_every_window(void **st)
{
	(void)st;
	wrapped("skylake");
	w.smi_from = 1;
	expect("overflow.preload", V_PASS, "PMI part not judged on");
}

/* A preload the counter refuses: named, not taken for a lost PMI. */
static void preload_pmi_refused(void **st)
{
	(void)st;
	wrapped("skylake");
	w.refuse = true;
	expect("overflow.preload", V_FAIL, "refused (max period");
}

/* Without LVTPC the PMI part does not run, and the PASS line says why. */
static void preload_pmi_not_run_named(void **st)
{
	(void)st;
	up("core2", SF_NONE, 0, 1);
	sim.apic_base &= ~APIC_BASE_ENABLE;
	apic_detect(&drv_ai);
	expect("overflow.preload", V_PASS, "PMI part not run: the local APIC is disabled");
}

/* ---- event.raw ----------------------------------------------------------------- */

/* An SMI the CPU cannot count (core2: no MSR_SMI_COUNT) in the first N
 * window adds 20k-200k cycles: that N/2N difference is negative. Before,
 * its minimum read as ~2^40, the preload past the longest period was
 * refused unseen, and no PMI came: "did not raise an overflow PMI". */
static void event_raw_negative_difference(void **st)
{
	(void)st;
	wrapped("core2");
	w.smi_first_start = true;
	strcpy(opt.event, "UNHALTED_CORE_CYCLES");
	const struct result *r = expect("event.raw", V_PASS, "overflow PMI ok");
	assert_int_equal(w.smis, 1);
	assert_non_null(strstr(r->msg, ": -")); /* the negative minimum shown */
}

/* ---- overflow.rearm ------------------------------------------------------------ */

/* An SMI in every re-armed window (the calibration's one-PMI window is the
 * first preset and stays clean): nothing can be judged. Before, the last
 * window was: "too many" overflows from the SMM code counted. */
static void rearm_smi_every_window_skips(void **st)
{
	(void)st;
	wrapped("skylake");
	opt.repeat = 1;
	w.smi_from = 2;
	expect("overflow.rearm", V_SKIP, "an SMI was counted in every window");
	assert_int_equal(w.smis, 3);
}

/* ---- m_median_clean -------------------------------------------------------------- */

static unsigned calls;
static const int *script;

static int scripted(struct check_ctx *c, void *arg, uint64_t *v)
{
	(void)c;
	(void)arg;
	v[0] = 100 + calls;
	v[1] = 200 + calls;
	return script[calls++];
}

static void median_clean_skips_smi_windows(void **st)
{
	(void)st;
	struct check_ctx c = up("core2", SF_NONE, 0, 1);
	struct stat3 s[2];
	static const int smi_first[] = {1, 1, 0, 0, 0};
	static const int all_smi[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	static const int error[] = {0, -7};

	calls = 0;
	script = smi_first;
	assert_int_equal(m_median_clean(&c, 3, 2, scripted, 0, s), 3);
	assert_int_equal(calls, 5);
	assert_int_equal(s[0].min, 102);
	assert_int_equal(s[0].med, 103);
	assert_int_equal(s[1].max, 204);
	calls = 0;
	script = all_smi;
	assert_int_equal(m_median_clean(&c, 3, 1, scripted, 0, s), 0);
	assert_int_equal(calls, 2 * 3 + 3); /* bounded */
	calls = 0;
	script = error;
	assert_int_equal(m_median_clean(&c, 3, 1, scripted, 0, s), -7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(preload_pmi_remeasures_smi, teardown),
	    cmocka_unit_test_teardown(preload_pmi_smi_every_window, teardown),
	    cmocka_unit_test_teardown(preload_pmi_refused, teardown),
	    cmocka_unit_test_teardown(preload_pmi_not_run_named, teardown),
	    cmocka_unit_test_teardown(event_raw_negative_difference, teardown),
	    cmocka_unit_test_teardown(rearm_smi_every_window_skips, teardown),
	    cmocka_unit_test_teardown(median_clean_skips_smi_windows, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
