/* Intel architectural events against SDM Vol. 3B 20.2.1.2 (CPUID.0AH:EBX bit order,
 * Linux's event map, fixed counters and pseudo-encodings). */
#define _DEFAULT_SOURCE
#include "events_test.h"
#include <strings.h>

#define ARCH PMU_DRV_INTEL_ARCH, 6, 0x3c

/* EBX bit i: core cycles, instructions retired, reference cycles, LLC
 * reference, LLC miss, branch instructions retired, branch misses retired;
 * encodings as (umask << 8) | event, from Linux's intel_perfmon_event_map (ref cycles 0x013c). */
static const unsigned arch_enc[7] = {0x003c, 0x00c0, 0x013c, 0x4f2e, 0x412e, 0x00c4, 0x00c5};
static const struct {
	const char *name;
	unsigned enc;
} fixed[4] = {
    {"INST_RETIRED.ANY", 0x00c0},
    {"CPU_CLK_UNHALTED.CORE", 0x003c},
    {"CPU_CLK_UNHALTED.REF", 0x0300},
    {"TOPDOWN.SLOTS", 0x0400},
};

static void every_entry(void **st)
{
	(void)st;
	table_hygiene(&events_intel_arch);
	assert_int_equal(events_intel_arch.n, 7 + 4);
	unsigned seen_bits = 0, seen_fixed = 0;
	for (size_t i = 0; i < events_intel_arch.n; i++) {
		const struct event_def *e = &events_intel_arch.ev[i];
		unsigned enc = ((unsigned)e->umask << 8) | e->code;
		if (e->flags & EVF_FIXED) {
			assert_true(e->fixed_index >= 0 && e->fixed_index < 4);
			assert_string_equal(e->name, fixed[e->fixed_index].name);
			assert_int_equal(enc, fixed[e->fixed_index].enc);
			assert_int_equal(e->cpuid_bit, -1);
			seen_fixed |= 1u << e->fixed_index;
		} else {
			assert_true(e->cpuid_bit >= 0 && e->cpuid_bit < 7);
			assert_int_equal(enc, arch_enc[e->cpuid_bit]);
			assert_int_equal((size_t)e->cpuid_bit, i); /* listed in EBX bit order */
			seen_bits |= 1u << e->cpuid_bit;
		}
	}
	assert_int_equal(seen_bits, 0x7f);
	assert_int_equal(seen_fixed, 0xf);
}

static void fixed_pseudo_events(void **st)
{
	(void)st;
	for (int i = 0; i < 4; i++) {
		struct ev_result r = resolve_expect(ARCH, fixed[i].name, EV_OK);
		assert_true(r.ev.fixed_only);
		assert_int_equal(events_fixed_index(&r.ev), i);
		char msg[160];
		assert_int_equal(events_check_counter(&r.ev, 0, msg, sizeof(msg)), EV_REFUSED);
		assert_non_null(strstr(msg, "fixed"));
		resolve_expect(ARCH, "", EV_REFUSED);
	}
	/* Raw pseudo-encodings resolve to fixed events; 0x00c0 stays programmable. */
	struct ev_result r = resolve_expect(ARCH, "0x0300", EV_OK);
	assert_true(r.ev.fixed_only);
	assert_string_equal(r.def->name, "CPU_CLK_UNHALTED.REF");
	r = resolve_expect(ARCH, "0x00c0", EV_OK);
	assert_false(r.ev.fixed_only);
	assert_string_equal(r.def->name, "INSTRUCTION_RETIRED");
	resolve_expect(ARCH, "INST_RETIRED.ANY,counter=0", EV_REFUSED);
	struct pmu_event gp = {.code = 0xc0};
	assert_int_equal(events_fixed_index(&gp), -1);
}

static void lookup(void **st)
{
	(void)st;
	struct ev_result r = resolve_expect(ARCH, "llc_misses", EV_OK);
	assert_int_equal(r.ev.code, 0x2e);
	assert_int_equal(r.ev.umask, 0x41);
	r = resolve_expect(ARCH, "event=0x2e,umask=0x4f", EV_OK);
	assert_string_equal(r.def->name, "LLC_REFERENCE");
	/* Model-specific events are outside this table: allowed, flagged unchecked. */
	r = resolve_expect(ARCH, "event=0xd1,umask=0x01", EV_WARN);
	assert_non_null(strstr(r.msg, "not in the catalogue"));
	resolve_expect(ARCH, "event=0x100", EV_REFUSED); /* 8-bit event select */
	resolve_expect(ARCH, "UOPS_RETIRED.ALL", EV_REFUSED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_entry),
	    cmocka_unit_test(fixed_pseudo_events),
	    cmocka_unit_test(lookup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
