/* overflow.preload's boundary and its verdict: a late PMI with nothing
 * pending that the family documents (AMD, apic/pmi.c echo) is not a second
 * PMI of the -(E-1) preset; the -E preset reads exactly 0 with the overflow
 * flag set or not yet set (the SDM note kvm-unit-tests quotes in x86/pmu.c
 * measure_for_overflow); and a counter whose reference windows cannot be
 * used is named in the PASS line instead of turning the check into a SKIP. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../tests/suite.h"
#include "sim_suite.h"
#include "../../pmu/msr.h"

static struct sim_model echo_model;
static bool (*real_overflow)(struct sim_cpu *s, unsigned i);

/* AMD's NMI latency: the PMI of an overflow arrives, and the handler has
 * already collected it by the time a second, late one comes. */
static bool overflow_then_echo(struct sim_cpu *s, unsigned i)
{
	bool pmi = real_overflow(s, i);
	if (pmi)
		sim_pmi_request(s);
	return pmi;
}

static void echo_is_not_a_second_pmi(void **st)
{
	(void)st;
	(void)up("zen4", SF_NONE, 0, 1);
	echo_model = *sim.m;
	real_overflow = echo_model.overflow;
	echo_model.overflow = overflow_then_echo;
	sim.m = &echo_model;
	const struct result *r = run_check("overflow.preload");
	assert_int_equal(r->v, V_PASS);
	assert_non_null(strstr(r->msg, "1 PMI for a preset one event past it"));
	/* the same late PMI without the echo rule is a FAIL elsewhere: on an
	 * Intel part it is a spurious PMI */
}

/* The -E case: a core whose overflow flag shows one event after the wrap
 * (a counter that reads exactly 0 has its IA32_PERF_GLOBAL_STATUS bit not
 * yet set; SDM Vol. 3B 20.2.2). */
static void status_late(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	if (msr == MSR_PERF_GLOBAL_STATUS)
		for (unsigned i = 0; i < 4; i++)
			if (!s->ctr[i])
				*v &= ~(1ull << i);
}

static void flag_late_at_exact_wrap(void **st)
{
	(void)st;
	(void)up("skylake", SF_NONE, 0, 1);
	sim_rdmsr_filter = status_late;
	const struct result *r = run_check("overflow.preload");
	sim_rdmsr_filter = 0;
	assert_int_equal(r->v, V_PASS);
	/* the flag must still come once the count is past the wrap */
	(void)up("skylake", SF_NO_OVERFLOW_STATUS, 0, 1);
	assert_int_equal(run_check("overflow.preload")->v, V_FAIL);
}

/* With every reference window of gp0 ruined, the others are still judged
 * and the verdict is theirs. */
static void one_counter_unused_keeps_the_verdict(void **st)
{
	(void)st;
	(void)up("skylake", SF_STUCK_COUNTER, 0, 1);
	const struct result *r = run_check("overflow.preload");
	/* gp0 never counts: its reference is too short, the others pass */
	assert_int_equal(r->v, V_PASS);
	assert_non_null(strstr(r->msg, "; 1 not judged (gp0: reference window of 0 events)"));
	assert_non_null(strstr(r->msg, "4 of 5 counters overflow"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(echo_is_not_a_second_pmi),
	    cmocka_unit_test(flag_late_at_exact_wrap),
	    cmocka_unit_test(one_counter_unused_keeps_the_verdict),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
