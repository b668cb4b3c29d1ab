/* The PMI service (apic/pmi.c) with the real drivers against every simulated
 * family: the same scenarios as test_pmi.c (single overflow, two counters in
 * one window, periodic re-arm, NMI delivery, storm, lost PMI), each with the
 * exact number of overflows expected. The service only goes through the ops
 * (pmi_collect, pmu_preload, start, stop) and p->pmi_flags. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h> /* after the headers it needs */

#include "../../apic/apic.h"
#include "../../apic/isr.h"
#include "../../apic/pmi.h"
#include "../../pmu/pmu.h"
#include "../sim/sim.h"

static const char *const models[] = {
    "pentium3", "yonah",  "core2",   "skylake",	  "pentium4",
    "knc",	"athlon", "opteron", "bulldozer", "zen4",
};
#define N_MODELS (sizeof(models) / sizeof(models[0]))

static struct cpu_info ci;
static struct pmu p;
static struct apic_info ai;
static unsigned c0, c1; /* two GP counters that can count instructions */

static const struct workload one_insn = {
    .name = "test-one-instruction",
    .per_iter = {1, 0, 0, 1, 0, 0},
};

static void run(uint64_t iters)
{
	hw_run_workload(&one_insn, iters);
}

static void boot(const char *model, enum sim_fault f)
{
	assert_int_equal(sim_start(model, f), 0);
	cpu_identify(&ci);
	pmu_attach(&p, &ci);
	if (p.status != PMU_FUNCTIONAL)
		fail_msg("%s: pmu %s: %s", model, pmu_status_name(p.status), p.reason);
	assert_int_equal(apic_detect(&ai), 0);
	assert_int_equal(p.ops->reset(&p), 0);
	/* NetBurst counts instructions only on the counters its ESCR reaches */
	unsigned n = 0;
	for (unsigned i = 0; i < p.n_gp && n < 2; i++) {
		struct pmu_event ev;
		if (p.ops->generic_event(&p, GEN_INSTRUCTIONS, i, &ev) != 0)
			continue;
		if (ev.counters && !(ev.counters & (1u << i)))
			continue;
		if (n++ == 0)
			c0 = i;
		else
			c1 = i;
	}
	if (n < 2)
		fail_msg("%s: fewer than 2 counters count instructions", model);
}

/* Counts instructions in ring 0 with the interrupt enable on GP counter c. */
static void program(unsigned c)
{
	struct pmu_event ev;
	if (p.ops->generic_event(&p, GEN_INSTRUCTIONS, c, &ev) != 0)
		fail_msg("%s: no instructions event for counter %u", sim.m->name, c);
	if (p.ops->program(&p, c, &ev, PMU_F_OS | PMU_F_USR | PMU_F_INT) != 0)
		fail_msg("%s: programming counter %u failed", sim.m->name, c);
}

static void start(uint64_t mask)
{
	assert_int_equal(p.ops->start(&p, mask), 0);
	p.active = mask;
}

static int teardown(void **st)
{
	(void)st;
	pmi_disarm();
	return 0;
}

static uint32_t lvt_fields(void)
{
	return apic_lvt_pc_read() & (LVT_VECTOR_MASK | LVT_DM_MASK | LVT_MASKED);
}

static void single_overflow(void **st)
{
	(void)st;
	for (unsigned m = 0; m < N_MODELS; m++) {
		boot(models[m], SF_NONE);
		assert_int_equal(pmi_arm(&p, PMI_FIXED), 0);
		program(c0);
		assert_int_equal(pmu_preload(&p, c0, 100), 0);
		start(1ull << c0);
		run(99);
		assert_int_equal(pmi_stats()->total, 0);
		run(1);
		assert_true(pmi_wait(1, 1000));
		const volatile struct pmi_stats *s = pmi_stats();
		if (s->total != 1 || s->overflows[c0] != 1 || s->spurious != 0)
			fail_msg("%s: %llu PMIs, %llu overflows, %llu spurious", models[m],
				 (unsigned long long)s->total, (unsigned long long)s->overflows[c0],
				 (unsigned long long)s->spurious);
		assert_int_equal(sim.st.eoi, 1);
		/* auto-masking families get LVTPC unmasked again */
		assert_int_equal(s->lvt_masked_on_entry, sim.m->lvt_automask ? 1 : 0);
		assert_int_equal(lvt_fields(), VEC_PMI);
		/* pending overflow cleared and counting resumed */
		uint64_t pend = 1;
		assert_int_equal(p.ops->overflow_status(&p, &pend), 0);
		assert_int_equal(pend, 0);
		uint64_t a, b;
		assert_int_equal(p.ops->read(&p, c0, &a), 0);
		run(5);
		assert_int_equal(p.ops->read(&p, c0, &b), 0);
		assert_int_equal(b - a, 5);
		pmi_disarm();
	}
}

static void two_counters_one_window(void **st)
{
	(void)st;
	for (unsigned m = 0; m < N_MODELS; m++) {
		boot(models[m], SF_NONE);
		assert_int_equal(pmi_arm(&p, PMI_FIXED), 0);
		program(c0);
		program(c1);
		assert_int_equal(pmu_preload(&p, c0, 50), 0);
		assert_int_equal(pmu_preload(&p, c1, 50), 0);
		start(1ull << c0 | 1ull << c1);
		run(50);
		const volatile struct pmi_stats *s = pmi_stats();
		if (s->total != 1 || s->mask[0] != (1ull << c0 | 1ull << c1) ||
		    s->overflows[c0] != 1 || s->overflows[c1] != 1)
			fail_msg("%s: %llu PMIs, mask 0x%llx, overflows %llu/%llu", models[m],
				 (unsigned long long)s->total, (unsigned long long)s->mask[0],
				 (unsigned long long)s->overflows[c0],
				 (unsigned long long)s->overflows[c1]);
		pmi_disarm();
	}
}

static void periodic_both_counters(void **st)
{
	(void)st;
	for (unsigned m = 0; m < N_MODELS; m++) {
		for (unsigned nmi = 0; nmi < 2; nmi++) {
			boot(models[m], SF_NONE);
			assert_int_equal(pmi_arm(&p, nmi ? PMI_NMI : PMI_FIXED), 0);
			program(c0);
			program(c1);
			pmi_set_reload(c0, 7);
			pmi_set_reload(c1, 13);
			assert_int_equal(pmu_preload(&p, c0, 7), 0);
			assert_int_equal(pmu_preload(&p, c1, 13), 0);
			start(1ull << c0 | 1ull << c1);
			run(1000);
			const volatile struct pmi_stats *s = pmi_stats();
			uint64_t want_total = 1000 / 7 + 1000 / 13 - 1000 / 91;
			if (s->overflows[c0] != 1000 / 7 || s->overflows[c1] != 1000 / 13 ||
			    s->total != want_total || s->spurious)
				fail_msg("%s %s: overflows %llu/%llu (want %u/%u), %llu PMIs (want "
					 "%llu), %llu spurious",
					 models[m], nmi ? "nmi" : "fixed",
					 (unsigned long long)s->overflows[c0],
					 (unsigned long long)s->overflows[c1], 1000 / 7, 1000 / 13,
					 (unsigned long long)s->total,
					 (unsigned long long)want_total,
					 (unsigned long long)s->spurious);
			assert_int_equal(sim.st.eoi, nmi ? 0 : want_total);
			assert_int_equal(sim.st.pmi_dropped, 0);
			if (nmi)
				assert_int_equal(sim.st.nmi_delivered, want_total);
			pmi_disarm();
		}
	}
}

static void storm_stops_everything(void **st)
{
	(void)st;
	for (unsigned m = 0; m < N_MODELS; m++) {
		boot(models[m], SF_NONE);
		assert_int_equal(pmi_arm(&p, PMI_FIXED), 0);
		program(c0);
		pmi_set_reload(c0, 1);
		assert_int_equal(pmu_preload(&p, c0, 1), 0);
		start(1ull << c0);
		run(PMI_STORM_LIMIT + 100);
		const volatile struct pmi_stats *s = pmi_stats();
		assert_true(s->storm);
		assert_int_equal(s->total, PMI_STORM_LIMIT + 1);
		assert_int_equal(s->overflows[c0], PMI_STORM_LIMIT + 1);
		assert_true(apic_lvt_pc_read() & LVT_MASKED);
		uint64_t a, b;
		assert_int_equal(p.ops->read(&p, c0, &a), 0);
		run(10);
		assert_int_equal(p.ops->read(&p, c0, &b), 0);
		if (a != b)
			fail_msg("%s: counter still counts after the storm guard", models[m]);
		pmi_disarm();
	}
}

static void lost_pmi_detected(void **st)
{
	(void)st;
	for (unsigned m = 0; m < N_MODELS; m++) {
		if (sim_start(models[m], SF_LOST_PMI) != 0)
			continue; /* the model has no such fault */
		boot(models[m], SF_LOST_PMI);
		assert_int_equal(pmi_arm(&p, PMI_FIXED), 0);
		program(c0);
		assert_int_equal(pmu_preload(&p, c0, 10), 0);
		start(1ull << c0);
		run(20);
		assert_false(pmi_wait(1, 200));
		assert_int_equal(pmi_stats()->total, 0);
		assert_true(sim.st.pmi_raised >= 1);
		pmi_disarm();
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(single_overflow, teardown),
	    cmocka_unit_test_teardown(two_counters_one_window, teardown),
	    cmocka_unit_test_teardown(periodic_both_counters, teardown),
	    cmocka_unit_test_teardown(storm_stops_everything, teardown),
	    cmocka_unit_test_teardown(lost_pmi_detected, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
