/* The PMI service (apic/pmi.c) against the simulator, with a test-only CPU
 * model "pmitest" and a test-only driver: two 40-bit counters, an overflow
 * status register with a write-1-to-clear ack, a global enable, and a 1-bit
 * PMI line that rises only when status goes from zero to non-zero (KNC
 * §1.4.3.9). Whether the local APIC auto-masks LVTPC is switchable. Every
 * test checks the exact number of overflows: none lost, none counted twice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h> /* after the headers it needs */

#include "../../apic/apic.h"
#include "../../apic/isr.h"
#include "../../apic/pmi.h"
#include "../../pmu/msr.h"
#include "../../pmu/pmu.h"
#include "../sim/sim.h"

#include "pmi_testcpu.h"

/* ---- tests ----------------------------------------------------------------- */

static void arm_and_disarm_restore_lvt(void **st)
{
	(void)st;
	setup_cpu(SF_NONE, true, PMU_PMI_AUTOMASK);
	apic_lvt_pc_write(LVT_MASKED | 0x42);
	assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
	assert_int_equal(apic_lvt_pc_read(), VEC_PMI);
	pmi_disarm();
	assert_int_equal(apic_lvt_pc_read(), LVT_MASKED | 0x42);
	assert_int_equal(pmi_arm(&pmu, PMI_NMI), 0);
	assert_int_equal(apic_lvt_pc_read() & (LVT_DM_MASK | LVT_MASKED), LVT_DM_NMI);
	pmi_disarm();
	assert_int_equal(apic_lvt_pc_read(), LVT_MASKED | 0x42);
}

static void arm_fails_when_lvt_stuck_masked(void **st)
{
	(void)st;
	setup_cpu(SF_NONE, true, PMU_PMI_AUTOMASK);
	/* the same check on a model with the stuck-mask fault */
	pmitest.faults |= SIM_F(SF_LVT_STUCK_MASKED);
	assert_int_equal(sim_start("pmitest", SF_LVT_STUCK_MASKED), 0);
	pmitest.faults &= ~SIM_F(SF_LVT_STUCK_MASKED);
	assert_int_equal(apic_detect(&ai), 0);
	assert_int_not_equal(pmi_arm(&pmu, PMI_FIXED), 0);
}

static void single_overflow(void **st)
{
	(void)st;
	setup_cpu(SF_NONE, true, PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE);
	assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
	assert_int_equal(pmu_preload(&pmu, 0, 100), 0);
	go(1);
	run(99);
	assert_int_equal(pmi_stats()->total, 0);
	uint64_t rip_before = 0x100000 + sim.st.instructions;
	run(1);
	const volatile struct pmi_stats *s = pmi_stats();
	assert_true(pmi_wait(1, 1000));
	assert_int_equal(s->total, 1);
	assert_int_equal(s->overflows[0], 1);
	assert_int_equal(s->overflows[1], 0);
	assert_int_equal(s->spurious, 0);
	assert_int_equal(s->n_log, 1);
	assert_int_equal(s->mask[0], 1);
	/* the simulator's RIP at the overflowing step (it counts retired
	 * instructions); what matters here is that the service recorded it */
	assert_true(s->rip[0] == rip_before || s->rip[0] == rip_before + 1);
	assert_true(s->tsc[0] != 0);
	assert_int_equal(s->lvt_masked_on_entry, 1); /* the APIC auto-masked it */
	assert_int_equal(sim.st.eoi, 1);
	assert_int_equal(apic_lvt_pc_read(), VEC_PMI); /* unmasked again */
	assert_false(apic_in_service(VEC_PMI));
	assert_int_equal(sim.reg[R_STATUS], 0);
	/* restarted: counter 0 keeps counting after the PMI */
	uint64_t v0, v1;
	assert_int_equal(tops.read(&pmu, 0, &v0), HW_OK);
	run(5);
	assert_int_equal(tops.read(&pmu, 0, &v1), HW_OK);
	assert_int_equal(v1 - v0, 5);
	assert_int_equal(s->total, 1);
}

/* Without auto-mask the handler must not touch LVTPC at all. */
static void no_automask_leaves_lvt(void **st)
{
	(void)st;
	setup_cpu(SF_NONE, false, 0);
	assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
	pmi_set_reload(0, 10);
	assert_int_equal(pmu_preload(&pmu, 0, 10), 0);
	go(1);
	run(35);
	assert_int_equal(pmi_stats()->total, 3);
	assert_int_equal(pmi_stats()->overflows[0], 3);
	assert_int_equal(pmi_stats()->lvt_masked_on_entry, 0);
	assert_int_equal(sim.st.eoi, 3);
	assert_int_equal(sim.st.pmi_dropped, 0);
}

static void two_counters_same_window(void **st)
{
	(void)st;
	setup_cpu(SF_NONE, true, PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE);
	assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
	assert_int_equal(pmu_preload(&pmu, 0, 50), 0);
	assert_int_equal(pmu_preload(&pmu, 1, 50), 0);
	go(3);
	hw_irq_disable(); /* both overflow before the CPU can take the PMI */
	run(60);
	assert_int_equal(pmi_stats()->total, 0);
	hw_irq_enable();
	const volatile struct pmi_stats *s = pmi_stats();
	assert_int_equal(s->total, 1);
	assert_int_equal(s->mask[0], 3);
	assert_int_equal(s->overflows[0], 1);
	assert_int_equal(s->overflows[1], 1);
	assert_int_equal(s->spurious, 0);
	assert_int_equal(sim.st.eoi, 1);
	assert_int_equal(apic_lvt_pc_read(), VEC_PMI);
}

/* Counter 1 overflows after the PMI for counter 0 was delivered but before
 * the driver stopped the counters: it is started and overflows inside the
 * handler. Status already holds bit 0, so the 1-bit line makes no new edge
 * (KNC §1.4.3.9); the collect loop must still find and count it. */
static void overflow_counter1(void)
{
	assert_int_equal(tops.start(&pmu, 2), 0);
	run(1);
}

static void overflow_in_handler(bool automask, uint32_t flags)
{
	setup_cpu(SF_NONE, automask, flags);
	assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
	assert_int_equal(pmu_preload(&pmu, 0, 10), 0);
	assert_int_equal(pmu_preload(&pmu, 1, 1), 0);
	go(1); /* counter 1 is programmed but not counting yet */
	collect_hook = overflow_counter1;
	run(10);
	const volatile struct pmi_stats *s = pmi_stats();
	assert_int_equal(collect_calls, 1);
	assert_int_equal(s->total, 1);
	assert_int_equal(s->spurious, 0);
	assert_int_equal(s->mask[0], 3);
	assert_int_equal(s->overflows[0], 1);
	assert_int_equal(s->overflows[1], 1);
	assert_int_equal(sim.reg[R_STATUS], 0);
	assert_int_equal(sim.st.pmi_raised, 1);
	assert_int_equal(apic_lvt_pc_read(), VEC_PMI);
	/* afterwards the next overflow of counter 0 is taken normally */
	assert_int_equal(pmu_preload(&pmu, 0, 3), 0);
	run(3);
	assert_int_equal(s->total, 2);
	assert_int_equal(s->overflows[0], 2);
	assert_int_equal(s->overflows[1], 1);
}

static void overflow_during_handler(void **st)
{
	(void)st;
	overflow_in_handler(true, PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE);
	pmi_disarm();
	overflow_in_handler(true, PMU_PMI_AUTOMASK);
	pmi_disarm();
	overflow_in_handler(false, 0);
}

/* Under UNMASK_LATE the unmask waits until status is clear; otherwise the
 * service unmasks before collecting (Linux x86_pmu_handle_irq). */
static void unmask_order(void **st)
{
	(void)st;
	setup_cpu(SF_NONE, true, PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE);
	assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
	assert_int_equal(pmu_preload(&pmu, 0, 5), 0);
	go(1);
	run(5);
	assert_int_equal(collect_calls, 1);
	assert_true(lvt_masked_in_collect);
	pmi_disarm();

	setup_cpu(SF_NONE, true, PMU_PMI_AUTOMASK);
	assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
	assert_int_equal(pmu_preload(&pmu, 0, 5), 0);
	go(1);
	run(5);
	assert_int_equal(collect_calls, 1);
	assert_false(lvt_masked_in_collect);
	assert_int_equal(pmi_stats()->overflows[0], 1);
}

/* Periodic sampling on both counters: the exact number of overflows. */
static void periodic_exact_counts(void **st)
{
	(void)st;
	static const uint32_t flags[] = {0, PMU_PMI_AUTOMASK,
					 PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE};
	for (unsigned k = 0; k < 3; k++) {
		for (unsigned nmi = 0; nmi < 2; nmi++) {
			setup_cpu(SF_NONE, flags[k] != 0, flags[k]);
			assert_int_equal(pmi_arm(&pmu, nmi ? PMI_NMI : PMI_FIXED), 0);
			pmi_set_reload(0, 7);
			pmi_set_reload(1, 13);
			assert_int_equal(pmu_preload(&pmu, 0, 7), 0);
			assert_int_equal(pmu_preload(&pmu, 1, 13), 0);
			go(3);
			run(1000);
			const volatile struct pmi_stats *s = pmi_stats();
			assert_int_equal(s->overflows[0], 1000 / 7);
			assert_int_equal(s->overflows[1], 1000 / 13);
			/* overflows in the same step share the PMU's one interrupt
			 * line: at the common multiples of 7 and 13 one PMI
			 * collects both counters; no count is lost or doubled */
			assert_int_equal(s->total, 1000 / 7 + 1000 / 13 - 1000 / (7 * 13));
			assert_int_equal(s->spurious, 0);
			assert_int_equal(sim.st.pmi_dropped, 0);
			assert_int_equal(sim.st.eoi, nmi ? 0 : s->total);
			pmi_disarm();
		}
	}
}

static void storm_guard(void **st)
{
	(void)st;
	setup_cpu(SF_NONE, true, PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE);
	assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
	pmi_set_reload(0, 1); /* an overflow on every event */
	assert_int_equal(pmu_preload(&pmu, 0, 1), 0);
	go(1);
	run(PMI_STORM_LIMIT + 500);
	const volatile struct pmi_stats *s = pmi_stats();
	assert_true(s->storm);
	assert_int_equal(s->total, PMI_STORM_LIMIT + 1);
	assert_int_equal(s->overflows[0], PMI_STORM_LIMIT + 1);
	assert_int_equal(sim.reg[R_GLOBAL], 0); /* everything stopped */
	assert_true(apic_lvt_pc_read() & LVT_MASKED);
	assert_int_equal(sim.st.eoi, PMI_STORM_LIMIT + 1);
	uint64_t v0, v1;
	assert_int_equal(tops.read(&pmu, 0, &v0), HW_OK);
	run(100);
	assert_int_equal(tops.read(&pmu, 0, &v1), HW_OK);
	assert_int_equal(v0, v1);
	assert_int_equal(s->total, PMI_STORM_LIMIT + 1);
	/* a new arm window starts clean and puts LVTPC back on disarm */
	pmi_disarm();
	assert_int_equal(apic_lvt_pc_read(), LVT_MASKED);
	assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
	assert_false(pmi_stats()->storm);
}

static void lost_pmi_times_out(void **st)
{
	(void)st;
	setup_cpu(SF_LOST_PMI, true, PMU_PMI_AUTOMASK);
	assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
	assert_int_equal(pmu_preload(&pmu, 0, 20), 0);
	go(1);
	run(30);
	uint64_t t0 = sim.tsc;
	assert_false(pmi_wait(1, 500));
	uint64_t waited = sim.tsc - t0;
	assert_true(waited >= 500 * hw_tsc_per_us());
	/* bounded: past the limit by at most one spin step (up to 1 ms) */
	assert_true(waited < 1600 * hw_tsc_per_us());
	assert_int_equal(pmi_stats()->total, 0);
	uint64_t pending;
	assert_int_equal(tops.overflow_status(&pmu, &pending), HW_OK);
	assert_int_equal(pending, 1); /* the overflow happened, the PMI did not */
	assert_int_equal(sim.st.pmi_raised, 1);
}

static void spurious_pmi_counted(void **st)
{
	(void)st;
	setup_cpu(SF_SPURIOUS_PMI, false, 0);
	assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
	go(0);
	run(10); /* the fault raises one PMI per workload call */
	const volatile struct pmi_stats *s = pmi_stats();
	assert_int_equal(s->total, 1);
	assert_int_equal(s->spurious, 1);
	assert_int_equal(s->overflows[0] + s->overflows[1], 0);
	assert_int_equal(sim.st.eoi, 1);
}

/* A PMI that finds nothing pending is an echo only on a family that
 * documents late PMIs (PMU_PMI_LATE_ECHO), within PMI_ECHO_US of one that
 * collected something; otherwise, or with nothing before it, spurious. */
static void echo_or_spurious(void **st)
{
	(void)st;
	const volatile struct pmi_stats *s = pmi_stats();
	for (unsigned documented = 0; documented < 2; documented++) {
		setup_cpu(SF_NONE, false, documented ? PMU_PMI_LATE_ECHO : 0);
		assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
		sim_pmi_request(&sim); /* nothing before it */
		assert_int_equal(s->spurious, 1);
		assert_int_equal(pmu_preload(&pmu, 0, 10), 0);
		go(1);
		run(10); /* a real one */
		assert_int_equal(s->overflows[0], 1);
		sim_pmi_request(&sim); /* right after it */
		assert_int_equal(s->echo, documented ? 1 : 0);
		assert_int_equal(s->spurious, documented ? 1 : 2);
		sim.tsc += PMI_ECHO_US * hw_tsc_per_us(); /* the window is over */
		sim_pmi_request(&sim);
		assert_int_equal(s->echo, documented ? 1 : 0);
		assert_int_equal(s->spurious, documented ? 2 : 3);
		pmi_reset_stats(); /* a new window: nothing before */
		sim_pmi_request(&sim);
		assert_int_equal(s->echo, 0);
		assert_int_equal(s->spurious, 1);
		pmi_disarm();
	}
}

static void nmi_delivery_no_eoi(void **st)
{
	(void)st;
	setup_cpu(SF_NONE, true, PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE);
	assert_int_equal(pmi_arm(&pmu, PMI_NMI), 0);
	assert_int_equal(pmu_preload(&pmu, 0, 10), 0);
	go(1);
	run(10);
	const volatile struct pmi_stats *s = pmi_stats();
	assert_int_equal(s->total, 1);
	assert_int_equal(s->overflows[0], 1);
	assert_int_equal(sim.st.nmi_delivered, 1);
	assert_int_equal(sim.st.eoi, 0);
	assert_int_equal(apic_lvt_pc_read() & (LVT_DM_MASK | LVT_MASKED), LVT_DM_NMI);
	/* delivered even with IF = 0 */
	assert_int_equal(pmu_preload(&pmu, 0, 10), 0);
	hw_irq_disable();
	run(10);
	hw_irq_enable();
	assert_int_equal(s->total, 2);
	assert_int_equal(sim.st.eoi, 0);
}

/* x2APIC: LVTPC through MSR 0x834, EOI through 0x80B. */
static void x2apic_mode(void **st)
{
	(void)st;
	setup_cpu(SF_NONE, true, PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE);
	sim.apic_base |= APIC_BASE_X2APIC;
	assert_int_equal(apic_detect(&ai), 0);
	assert_int_equal(ai.mode, APIC_MODE_X2APIC);
	assert_int_equal(pmi_arm(&pmu, PMI_FIXED), 0);
	assert_int_equal(sim.lvt_pc, VEC_PMI);
	assert_int_equal(pmu_preload(&pmu, 0, 10), 0);
	go(1);
	run(10);
	assert_int_equal(pmi_stats()->overflows[0], 1);
	assert_int_equal(sim.st.eoi, 1);
	assert_int_equal(sim.lvt_pc, VEC_PMI);
}

/* ---- self-IPI and self-NMI helpers ----------------------------------------- */

static unsigned ipi_hits, nmi_hits;

static void on_ipi(struct int_frame *f)
{
	(void)f;
	ipi_hits++;
	apic_eoi();
}

static void on_nmi(struct int_frame *f)
{
	(void)f;
	nmi_hits++;
}

static void self_ipi_and_nmi(void **st)
{
	(void)st;
	for (unsigned x2 = 0; x2 < 2; x2++) {
		setup_cpu(SF_NONE, false, 0);
		if (x2)
			sim.apic_base |= APIC_BASE_X2APIC;
		assert_int_equal(apic_detect(&ai), 0);
		ipi_hits = nmi_hits = 0;
		isr_set_handler(VEC_SPURIOUS_TEST, on_ipi);
		isr_set_handler(VEC_NMI, on_nmi);
		assert_int_equal(apic_self_ipi(VEC_SPURIOUS_TEST), 0);
		assert_int_equal(ipi_hits, 1);
		assert_false(apic_in_service(VEC_SPURIOUS_TEST));
		assert_int_equal(apic_self_ipi(VEC_SPURIOUS_TEST), 0);
		assert_int_equal(ipi_hits, 2);
		assert_int_equal(apic_self_nmi(), 0);
		assert_int_equal(nmi_hits, 1);
		assert_int_equal(sim.st.eoi, 2);
		isr_set_handler(VEC_SPURIOUS_TEST, 0);
		isr_set_handler(VEC_NMI, 0);
	}
}

static unsigned nmi_context_lines;
static void count_line(const char *line)
{
	(void)line;
	nmi_context_lines++;
}

/* An NMI with no handler is counted and survived, not fatal, and nothing
 * is printed from NMI context (it may have interrupted the output's own
 * writer): the suite says it after the check. */
static void unexpected_nmi_reported(void **st)
{
	(void)st;
	setup_cpu(SF_NONE, false, 0);
	isr_set_fatal(count_line, NULL);
	uint64_t before = isr_unexpected_nmis();
	assert_int_equal(apic_self_nmi(), 0);
	assert_int_equal(isr_unexpected_nmis(), before + 1);
	assert_int_not_equal(isr_unexpected_nmi_rip(), 0);
	assert_int_equal(nmi_context_lines, 0);
	isr_set_fatal(NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(arm_and_disarm_restore_lvt, teardown),
	    cmocka_unit_test_teardown(arm_fails_when_lvt_stuck_masked, teardown),
	    cmocka_unit_test_teardown(single_overflow, teardown),
	    cmocka_unit_test_teardown(no_automask_leaves_lvt, teardown),
	    cmocka_unit_test_teardown(two_counters_same_window, teardown),
	    cmocka_unit_test_teardown(overflow_during_handler, teardown),
	    cmocka_unit_test_teardown(unmask_order, teardown),
	    cmocka_unit_test_teardown(periodic_exact_counts, teardown),
	    cmocka_unit_test_teardown(storm_guard, teardown),
	    cmocka_unit_test_teardown(lost_pmi_times_out, teardown),
	    cmocka_unit_test_teardown(spurious_pmi_counted, teardown),
	    cmocka_unit_test_teardown(echo_or_spurious, teardown),
	    cmocka_unit_test_teardown(nmi_delivery_no_eoi, teardown),
	    cmocka_unit_test_teardown(x2apic_mode, teardown),
	    cmocka_unit_test_teardown(self_ipi_and_nmi, teardown),
	    cmocka_unit_test_teardown(unexpected_nmi_reported, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
