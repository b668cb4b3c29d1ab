/* AMD Zen table and generic events against Linux (amd_zen1_perfmon_event_map, amdzen1 JSON). */
#define _DEFAULT_SOURCE
#include "events_test.h"
#include <strings.h>

#include "generic_test.h"

#define ZEN PMU_DRV_AMD_CORE, 0x17, 0x01

/* (umask << 8) | event, Linux's config layout. */
static const struct {
	const char *name;
	unsigned enc;
} expect[] = {
    {"LS_NOT_HALTED_CYC", 0x0076}, {"EX_RET_INSTR", 0x00c0},	{"EX_RET_BRN", 0x00c2},
    {"EX_RET_BRN_MISP", 0x00c3},   {"L2_REQUESTS_ALL", 0xff60}, {"L2_MISSES_IC_DC", 0x0964},
};
static const unsigned gen_expect[GEN_COUNT] = {0x76, 0xc0, 0xc2, 0xc3, 0xff60, 0x0964, 0};

static void every_entry(void **st)
{
	(void)st;
	table_hygiene(&events_amd_zen);
	assert_int_equal(events_amd_zen.n, N_OF(expect));
	for (size_t i = 0; i < N_OF(expect); i++) {
		const struct event_def *e = &events_amd_zen.ev[i];
		assert_string_equal(e->name, expect[i].name);
		assert_int_equal(((unsigned)e->umask << 8) | e->code, expect[i].enc);
	}
}

/* The Fam17h+ map (Linux amd_zen1_perfmon_event_map) of the driver on Zen parts of each family; the
 * catalogue documents every encoding. */
static void generic(void **st)
{
	(void)st;
	static const unsigned fams[] = {0x17, 0x19, 0x1a};
	for (size_t f = 0; f < N_OF(fams); f++) {
		struct pmu *p = gen_attach("zen4", fams[f]);
		for (int g = 0; g < GEN_COUNT; g++) {
			struct pmu_event ev;
			int rc = p->ops->generic_event(p, (enum pmu_generic)g, 0, &ev);
			if (!gen_expect[g]) {
				assert_int_equal(rc, HW_UNSUPPORTED); /* no ref-cycles on AMD */
				continue;
			}
			assert_int_equal(rc, HW_OK);
			assert_int_equal(((unsigned)ev.umask << 8) | ev.code, gen_expect[g]);
			assert_false(ev.fixed_only);
			assert_int_equal(ev.counters, 0);
			/* a catalogue entry of its own */
			struct ev_result r = gen_catalogued(p, &ev);
			assert_non_null(r.def);
			assert_int_equal(r.ev.code, ev.code);
		}
	}
}

/* The map goes by family whatever the register layout (Linux amd_pmu_init): a
 * Fam17h part without the core extension (a hypervisor may hide it) gets
 * the Fam17h map from the legacy layout. */
static void generic_legacy_layout(void **st)
{
	(void)st;
	struct pmu_event ev;
	struct pmu *p = gen_attach("athlon", 0x17);
	assert_int_equal(p->ops->id, PMU_DRV_AMD_LEGACY);
	for (int g = 0; g < GEN_COUNT; g++)
		assert_int_equal(gen_enc(p, (enum pmu_generic)g, 3, &ev), gen_expect[g]);
}

static void twelve_bit_events(void **st)
{
	(void)st;
	struct ev_result r = resolve_expect(ZEN, "event=0x1cf", EV_WARN); /* not catalogued */
	assert_int_equal(r.ev.code, 0x1cf);
	r = resolve_expect(ZEN, "0x1000000cf", EV_WARN); /* bits 35:32 in the raw config */
	assert_int_equal(r.ev.code, 0x1cf);
	resolve_expect(ZEN, "event=0x1000", EV_REFUSED);
	resolve_expect(PMU_DRV_AMD_LEGACY, 0xf, 1, "event=0x1cf", EV_REFUSED); /* K8: 8 bits */
	r = resolve_expect(ZEN, "ex_ret_brn_misp", EV_OK);
	assert_int_equal(r.ev.code, 0xc3);
	resolve_expect(ZEN, "RETIRED_INSTRUCTIONS", EV_REFUSED); /* a K8 name */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_entry),
	    cmocka_unit_test(generic),
	    cmocka_unit_test(generic_legacy_layout),
	    cmocka_unit_test(twelve_bit_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
