/* The PMI service and the PMI checks under the simulator's realism: for each
 * fix the old logic (kept here only) gives the false FAIL the effect
 * predicts, the effect switched off it does not, and the service and the
 * checks as they are now pass: late-ack re-raise (unmask after the ack),
 * AMD's late PMIs (echo, reported not failed), skid in overflow.rearm (the
 * count follows from the measured skid and the handler's own count), the
 * firmware's timer in a PMI window (TPR), SMIs in a PMI window
 * (MSR_SMI_COUNT) and a fixed-vector PMI wait on an AP with IF = 0. */
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

#define ALL	  SIM_REALISM_ALL
#define EFFECT(e) (1u << (e))

static void passes(const char *model, const char *id, uint64_t seeds)
{
	for (uint64_t seed = 1; seed <= seeds; seed++) {
		up(model, SF_NONE, ALL, seed);
		const struct result *r = run_check(id);
		if (r->v != V_PASS)
			fail_msg("%s seed %llu: %s %s", model, (unsigned long long)seed, id,
				 r->msg);
	}
}

/* One window of w x iters on counter i from zero (interrupts off). */
static uint64_t window_from_zero(struct check_ctx *c, unsigned i, uint64_t iters)
{
	uint64_t v = 0;
	assert_int_equal(c->pmu->ops->write(c->pmu, i, 0, PMU_WRITE_PRELOAD), HW_OK);
	assert_int_not_equal(m_window(c, 1ull << i, &wl_loop, iters), M_FAULT);
	assert_int_equal(c->pmu->ops->read(c->pmu, i, &v), HW_OK);
	return v;
}

static int teardown(void **st)
{
	(void)st;
	pmi_disarm();
	return 0;
}

/* One overflow of counter 0 through the service with the driver's flags or
 * the ones given; the service's stats after it. */
static const volatile struct pmi_stats *one_pmi(struct check_ctx *c, uint32_t flags)
{
	drv_p.pmi_flags = flags;
	assert_int_equal(pmi_arm(&drv_p, PMI_FIXED), 0);
	assert_int_equal(m_setup(c, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT), M_OK);
	pmi_reset_stats();
	assert_int_equal(pmu_preload(&drv_p, 0, 1000), HW_OK);
	assert_int_not_equal(pmi_run(c, 1, &wl_loop, 1000), M_FAULT);
	pmi_wait(2, 10000);
	pmi_disarm();
	return pmi_stats();
}

/* ---- late ack (skylake) ----------------------------------------------------- */

/* Before: arch perfmon unmasked LVTPC first (the generic handler's order):
 * with GLOBAL_STATUS still set the Haswell-and-later core raises another
 * PMI, which finds nothing: a spurious PMI, overflow.pmi's FAIL. */
static void late_ack_old_unmask_false_fail(void **st)
{
	(void)st;
	const uint32_t old = PMU_PMI_AUTOMASK;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct check_ctx c = up("skylake", SF_NONE, EFFECT(SE_LATE_ACK), seed);
		uint32_t now = drv_p.pmi_flags;
		assert_int_equal(now, PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE);
		const volatile struct pmi_stats *s = one_pmi(&c, old);
		assert_int_equal(s->overflows[0], 1);
		assert_int_equal(s->spurious, 1); /* the false FAIL */
		c = up("skylake", SF_NONE, 0, seed);
		s = one_pmi(&c, old);
		assert_int_equal(s->spurious, 0); /* the effect is what bites */
		c = up("skylake", SF_NONE, EFFECT(SE_LATE_ACK), seed);
		s = one_pmi(&c, now);
		assert_int_equal(s->total, 1);
		assert_int_equal(s->spurious, 0);
	}
	passes("skylake", "overflow.pmi", 25);
}

/* ---- AMD's late PMI: an echo, reported ------------------------------------- */

/* Counter 1 overflows d events after counter 0, inside the PMI handler for
 * counter 0 when d is right: its own request (AMD does not mask LVTPC)
 * comes after the handler that already collected it. Returns the stats. */
static const volatile struct pmi_stats *late_one(struct check_ctx *c, uint64_t d)
{
	assert_int_equal(pmi_arm(&drv_p, PMI_FIXED), 0);
	assert_int_equal(m_setup(c, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT), M_OK);
	assert_int_equal(m_setup(c, 1, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT), M_OK);
	pmi_reset_stats();
	assert_int_equal(pmu_preload(&drv_p, 0, 300), HW_OK);
	assert_int_equal(pmu_preload(&drv_p, 1, 300 + d), HW_OK);
	assert_int_not_equal(pmi_run(c, 3, &wl_loop, 1000), M_FAULT);
	pmi_wait(3, 10000);
	pmi_disarm();
	return pmi_stats();
}

static void amd_late_pmi_is_echo(void **st)
{
	(void)st;
	unsigned echoes = 0;
	for (uint64_t d = 1; d < 300; d++) {
		struct check_ctx c = up("zen4", SF_NONE, EFFECT(SE_OVERHEAD), 1);
		const volatile struct pmi_stats *s = late_one(&c, d);
		assert_int_equal(s->spurious, 0); /* never a FAIL now */
		assert_int_equal(s->overflows[0] + s->overflows[1], 2);
		/* before, every PMI that found nothing was spurious */
		uint64_t old_spurious = s->spurious + s->echo;
		if (s->echo) {
			assert_true(old_spurious > 0);
			echoes++;
		}
	}
	assert_true(echoes > 0);
	/* ideal: the handler takes counter 1 before it overflows, no echo */
	for (uint64_t d = 1; d < 300; d++) {
		struct check_ctx c = up("zen4", SF_NONE, 0, 1);
		assert_int_equal(late_one(&c, d)->echo, 0);
	}
	/* a PMI with nothing before it stays a failure on AMD too */
	for (uint64_t seed = 1; seed <= 5; seed++) {
		up("zen4", SF_SPURIOUS_PMI, ALL, seed);
		const struct result *r = run_check("overflow.pmi");
		assert_int_equal(r->v, V_FAIL);
		assert_non_null(strstr(r->msg, "spurious PMI"));
	}
}

/* ---- overflow.rearm under skid ---------------------------------------------- */

/* Before: E / N overflows expected, 10 % fewer allowed, E from one window
 * without PMIs. */
static bool old_rearm_fails(struct check_ctx *c)
{
	const uint64_t n = 1000, iters = 10000;
	uint64_t e = 0;
	unsigned i = (unsigned)m_counter_for(c, GEN_INSTRUCTIONS, 0);
	assert_int_equal(m_setup(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR), M_OK);
	e = window_from_zero(c, i, iters);
	assert_int_equal(pmi_arm(c->pmu, PMI_FIXED), 0);
	uint64_t hi = e / n, lo = hi - hi / 10 - 1;
	assert_int_equal(m_setup(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT), M_OK);
	pmi_reset_stats();
	pmi_set_reload(i, n);
	assert_int_equal(pmu_preload(c->pmu, i, n), HW_OK);
	assert_int_not_equal(pmi_run(c, 1ull << i, &wl_loop, iters), M_FAULT);
	pmi_wait(lo, 100000);
	pmi_wait(hi + 1, 10000);
	uint64_t ovf = pmi_stats()->overflows[i];
	pmi_set_reload(i, 0);
	pmi_disarm();
	return ovf < lo || ovf > hi;
}

static void rearm_old_band_false_fail(void **st)
{
	(void)st;
	static const char *const models[] = {"zen4", "opteron", "pentium4"};
	for (unsigned k = 0; k < 3; k++) {
		for (uint64_t seed = 1; seed <= 5; seed++) {
			struct check_ctx c = up(models[k], SF_NONE, EFFECT(SE_SKID), seed);
			if (!old_rearm_fails(&c)) /* "PMIs lost" */
				fail_msg("%s seed %llu: the old band held", models[k],
					 (unsigned long long)seed);
			c = up(models[k], SF_NONE, 0, seed);
			assert_false(old_rearm_fails(&c));
		}
		passes(models[k], "overflow.rearm", 25);
	}
	passes("skylake", "overflow.rearm", 25);
}

/* overflow.rearm still sees an overflow counted twice: the count no longer
 * matches the measured events. */
static void rearm_sees_a_lost_pmi(void **st)
{
	(void)st;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		up("core2", SF_LOST_PMI, ALL, seed);
		const struct result *r = run_check("overflow.rearm");
		assert_int_equal(r->v, V_FAIL);
		assert_non_null(strstr(r->msg, "PMI lost"));
	}
}

/* ---- the firmware's timer and SMIs in a PMI window ------------------------- */

/* Before: a PMI window ran with interrupts on and the TPR as the firmware
 * left it. */
static void old_pmi_run(struct check_ctx *c, uint64_t mask, uint64_t iters)
{
	bool irq = hw_irq_enabled();
	hw_irq_enable();
	assert_int_equal(c->pmu->ops->start(c->pmu, mask), HW_OK);
	hw_run_workload(&wl_loop, iters);
	assert_int_equal(c->pmu->ops->stop(c->pmu, mask), HW_OK);
	if (!irq)
		hw_irq_disable();
}

static uint64_t window_count(struct check_ctx *c, bool old)
{
	uint64_t v = 0;
	assert_int_equal(m_setup(c, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR), M_OK);
	/* a tick due inside the window: it lands at the first access after */
	sim.real.timer_next = sim.tsc + 2000;
	if (old)
		old_pmi_run(c, 1, 20000);
	else
		assert_int_not_equal(pmi_run(c, 1, &wl_loop, 20000), M_FAULT);
	assert_int_equal(c->pmu->ops->read(c->pmu, 0, &v), HW_OK);
	return v;
}

static void timer_in_window_held_off(void **st)
{
	(void)st;
	static const char *const models[] = {"pentium3", "core2", "athlon"};
	for (unsigned k = 0; k < 3; k++) {
		struct check_ctx c = up(models[k], SF_NONE, EFFECT(SE_INTERRUPTS), 1);
		sim.real.smi_next = ~0ull; /* timer ticks only */
		uint64_t ticks = sim.st.timer_irqs, clean = 0;
		assert_int_equal(m_setup(&c, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR), M_OK);
		clean = window_from_zero(&c, 0, 20000);
		uint64_t old = window_count(&c, true);
		assert_true(sim.st.timer_irqs > ticks);
		assert_true(old > clean + 100); /* the tick's instructions counted */
		ticks = sim.st.timer_irqs;
		uint64_t now = window_count(&c, false);
		assert_int_equal(now, clean);
		assert_int_equal(apic_read(APIC_TPR), 0); /* put back */
		assert_true(sim.st.timer_irqs > ticks);	  /* taken after the window */
		c = up(models[k], SF_NONE, 0, 1);
		assert_int_equal(m_setup(&c, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR), M_OK);
		clean = window_from_zero(&c, 0, 20000);
		assert_int_equal(window_count(&c, true), clean);
	}
}

static void smi_in_window_counted(void **st)
{
	(void)st;
	struct check_ctx c = up("skylake", SF_NONE, EFFECT(SE_INTERRUPTS), 1);
	sim.real.timer_next = ~0ull;
	assert_int_equal(m_setup(&c, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR), M_OK);
	sim.real.smi_next = sim.tsc + 2000; /* due inside the window */
	assert_true(pmi_run(&c, 1, &wl_loop, 20000));
	assert_false(pmi_run(&c, 1, &wl_loop, 20000)); /* the next is ms away */
	/* without MSR_SMI_COUNT (before Nehalem) nothing can be told */
	c = up("core2", SF_NONE, EFFECT(SE_INTERRUPTS), 1);
	assert_int_equal(m_setup(&c, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR), M_OK);
	sim.real.smi_next = sim.tsc + 2000;
	assert_false(pmi_run(&c, 1, &wl_loop, 20000));
	assert_int_equal(sim.st.smis, 1);
}

/* ---- an AP's PMI wait with IF = 0 ------------------------------------------- */

/* Before: pmi_wait spun on the count whatever IF was. */
static bool old_wait(uint64_t total, uint64_t us)
{
	uint64_t t0 = hw_rdtsc();
	while (pmi_stats()->total < total && hw_rdtsc() - t0 < us * hw_tsc_per_us())
		hw_relax();
	return pmi_stats()->total >= total;
}

static void ap_wait_with_if0(void **st)
{
	(void)st;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		struct check_ctx c = up("opteron", SF_NONE, EFFECT(SE_SKID), seed);
		hw_irq_disable(); /* how the firmware runs an AP procedure */
		assert_int_equal(pmi_arm(&drv_p, PMI_FIXED), 0);
		assert_int_equal(m_setup(&c, 0, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT),
				 M_OK);
		pmi_reset_stats();
		/* the skid outlasts the window */
		assert_int_equal(pmu_preload(&drv_p, 0, 2990), HW_OK);
		assert_int_not_equal(pmi_run(&c, 1, &wl_loop, 1000), M_FAULT);
		assert_false(old_wait(1, 10000)); /* stuck in IRR: "PMI lost" */
		assert_true(pmi_wait(1, 10000));
		assert_false(hw_irq_enabled()); /* IF = 0 again */
		assert_int_equal(apic_read(APIC_TPR), 0);
		pmi_disarm();
		/* the whole check, on the AP */
		up("opteron", SF_NONE, ALL, seed);
		hw_irq_disable();
		const struct result *r = run_check("overflow.pmi");
		if (r->v != V_PASS)
			fail_msg("seed %llu: overflow.pmi with IF = 0: %s",
				 (unsigned long long)seed, r->msg);
	}
}

/* ---- an exception inside a PMI window ---------------------------------------- */

/* The recovery unwinds past pmi_window_close and calls pmi_disarm() only:
 * that must put the TPR and IF back, or the firmware gets the CPU with its
 * timer held off by the window's TPR. */
static void disarm_closes_window_left_open(void **st)
{
	(void)st;
	struct check_ctx c = up("core2", SF_NONE, ALL, 1);
	struct pmi_window w;
	(void)c;
	apic_tpr_swap(0x20); /* what the firmware left */
	hw_irq_disable();    /* an AP procedure */
	assert_int_equal(pmi_arm(&drv_p, PMI_FIXED), 0);
	pmi_window_open(&w);
	assert_int_equal(apic_read(APIC_TPR), PMI_TPR);
	assert_true(hw_irq_enabled());
	/* the exception: no pmi_window_close */
	pmi_disarm();
	assert_int_equal(apic_read(APIC_TPR), 0x20);
	assert_false(hw_irq_enabled());
	/* nested (a PMI wait inside a window): the outermost state comes back */
	hw_irq_enable();
	assert_int_equal(pmi_arm(&drv_p, PMI_FIXED), 0);
	pmi_window_open(&w);
	struct pmi_window inner;
	pmi_window_open(&inner);
	pmi_disarm();
	assert_int_equal(apic_read(APIC_TPR), 0x20);
	assert_true(hw_irq_enabled());
	/* a window closed as usual: disarm leaves TPR and IF alone */
	assert_int_equal(pmi_arm(&drv_p, PMI_FIXED), 0);
	pmi_window_open(&w);
	pmi_window_close(&w);
	apic_tpr_swap(0x30);
	hw_irq_disable();
	pmi_disarm();
	assert_int_equal(apic_read(APIC_TPR), 0x30);
	assert_false(hw_irq_enabled());
	/* not armed at all (an exception before any PMI check): the same */
	pmi_window_open(&w);
	pmi_disarm();
	assert_int_equal(apic_read(APIC_TPR), 0x30);
	assert_false(hw_irq_enabled());
	apic_tpr_swap(0);
}

static void ignore_pmi(struct int_frame *f)
{
	(void)f; /* an exception unwound out of the handler: no EOI */
}

/* An exception inside the PMI handler: disarm sends the EOI it missed. */
static void disarm_ends_pmi_left_in_service(void **st)
{
	(void)st;
	up("skylake", SF_NONE, 0, 1);
	assert_int_equal(pmi_arm(&drv_p, PMI_FIXED), 0);
	isr_set_handler(VEC_PMI, ignore_pmi);
	hw_irq_enable();
	apic_write(APIC_ICR_LO, ICR_DEST_SELF | VEC_PMI);
	assert_true(apic_in_service(VEC_PMI));
	pmi_disarm();
	assert_false(apic_in_service(VEC_PMI));
	/* nothing in service: disarm sends no EOI of its own */
	uint64_t eoi = sim.st.eoi;
	assert_int_equal(pmi_arm(&drv_p, PMI_FIXED), 0);
	pmi_disarm();
	assert_int_equal(sim.st.eoi, eoi);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(late_ack_old_unmask_false_fail, teardown),
	    cmocka_unit_test_teardown(amd_late_pmi_is_echo, teardown),
	    cmocka_unit_test_teardown(rearm_old_band_false_fail, teardown),
	    cmocka_unit_test_teardown(rearm_sees_a_lost_pmi, teardown),
	    cmocka_unit_test_teardown(timer_in_window_held_off, teardown),
	    cmocka_unit_test_teardown(smi_in_window_counted, teardown),
	    cmocka_unit_test_teardown(ap_wait_with_if0, teardown),
	    cmocka_unit_test_teardown(disarm_closes_window_left_open, teardown),
	    cmocka_unit_test_teardown(disarm_ends_pmi_left_in_service, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
