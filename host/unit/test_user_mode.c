/* Ring 3 on the simulated CPU (host/sim/sim_user.c) and the checks that
 * use it: the workload's instructions at CPL 3 meet the USR bit and not
 * the OS bit, an interrupt's handler runs at CPL 0 again, RDPMC at CPL 3
 * obeys CR4.PCE, the firmware's TR comes back; count.user and rdpmc.user
 * PASS healthy and FAIL under the faults that break each. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../tests/suite.h"
#include "sim_suite.h"

#define N 1000u

/* Counter 0 counting instructions with flags, after one user run of N
 * iterations of wl_loop. */
static uint64_t user_count(const char *model, enum sim_fault f, uint32_t flags)
{
	struct pmu *p = drv_up(model, f);
	struct pmu_event ev;
	unsigned i = 0;
	uint64_t v;

	while (p->ops->generic_event(p, GEN_INSTRUCTIONS, i, &ev) != HW_OK)
		assert_true(++i < p->n);
	drv_program(p, i, GEN_INSTRUCTIONS, flags);
	assert_int_equal(p->ops->start(p, 1ull << i), HW_OK);
	assert_int_equal(hw_user_run(&wl_loop, N), HW_OK);
	assert_int_equal(p->ops->stop(p, 1ull << i), HW_OK);
	assert_int_equal(sim.cpl, 0);
	assert_int_equal(p->ops->read(p, i, &v), HW_OK);
	return v;
}

/* wl_loop retires 3 instructions an iteration: USR-only counts them all
 * (and the trampoline's few), OS-only none of them but the platform's
 * ring-0 code around them. */
static void usr_counts_user_code(void **st)
{
	(void)st;
	static const char *const models[] = {"skylake", "zen4",	    "pentium4",
					     "knc",	"pentium3", "opteron"};
	for (unsigned k = 0; k < sizeof(models) / sizeof(models[0]); k++) {
		uint64_t usr = user_count(models[k], SF_NONE, PMU_F_USR);
		uint64_t os = user_count(models[k], SF_NONE, PMU_F_OS);
		assert_true(usr >= 3 * N && usr < 3 * N + 16);
		assert_true(os > 0 && os < 3 * N / 10);
	}
}

/* user-as-os swaps the buckets at CPL 3. */
static void user_as_os_swaps(void **st)
{
	(void)st;
	assert_true(user_count("skylake", SF_USER_AS_OS, PMU_F_USR) < 3 * N / 10);
	assert_true(user_count("skylake", SF_USER_AS_OS, PMU_F_OS) >= 3 * N);
}

/* RDPMC at CPL 3: #GP without PCE, the counter with it; the model without
 * a PMU raises #UD with PCE (QEMU TCG), #GP without. */
static void rdpmc_obeys_pce(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);
	uint64_t v = 1;
	assert_int_equal(p->ops->write(p, 0, 0x1234, PMU_WRITE_PRELOAD), HW_OK);
	assert_int_equal(hw_user_rdpmc(0, false, &v), HW_FAULT_GP);
	assert_int_equal(v, 0);
	assert_int_equal(hw_user_rdpmc(0, true, &v), HW_OK);
	assert_int_equal(v, 0x1234);
	(void)drv_up("skylake", SF_PCE_IGNORED);
	assert_int_equal(hw_user_rdpmc(0, false, &v), HW_OK);
	(void)drv_attach("nopmu", SF_NONE);
	assert_int_equal(hw_user_rdpmc(0, false, &v), HW_FAULT_GP);
	assert_int_equal(hw_user_rdpmc(0, true, &v), HW_FAULT_UD);
}

/* The tables after an excursion are the firmware's; tr-leaked keeps the
 * harness's TSS loaded. CR4.PCE is back clear after a PCE read. */
static void tables_restored(void **st)
{
	(void)st;
	struct hw_cpu_tables a, b;
	uint64_t v;
	(void)drv_up("skylake", SF_NONE);
	hw_cpu_tables(&a);
	assert_int_not_equal(a.tr, 0);
	assert_int_equal(hw_user_run(&wl_loop, 10), HW_OK);
	(void)hw_user_rdpmc(0, true, &v);
	hw_cpu_tables(&b);
	assert_memory_equal(&a, &b, sizeof(a));
	(void)drv_up("skylake", SF_TR_LEAKED);
	hw_cpu_tables(&a);
	assert_int_equal(hw_user_run(&wl_loop, 10), HW_OK);
	hw_cpu_tables(&b);
	assert_int_not_equal(a.tr, b.tr);
}

/* A workload that touches memory is refused: its buffers are not mapped
 * for CPL 3. */
static void memory_workload_refused(void **st)
{
	(void)st;
	(void)drv_up("skylake", SF_NONE);
	assert_int_equal(hw_user_run(&wl_chase, 1), HW_REFUSED);
}

/* The checks: PASS healthy with every effect on, FAIL under their faults. */
static void checks_pass_and_fail(void **st)
{
	(void)st;
	static const struct {
		const char *id;
		enum sim_fault f;
		enum verdict v;
	} cases[] = {
	    {"count.user", SF_NONE, V_PASS},	    {"count.user", SF_USER_AS_OS, V_FAIL},
	    {"count.user", SF_OS_IGNORED, V_FAIL},  {"rdpmc.user", SF_NONE, V_PASS},
	    {"rdpmc.user", SF_PCE_IGNORED, V_FAIL},
	};
	static const char *const models[] = {"skylake", "zen4", "pentium4", "opteron"};
	for (unsigned k = 0; k < sizeof(models) / sizeof(models[0]); k++)
		for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			(void)up(models[k], cases[i].f, SIM_REALISM_ALL, 7);
			const struct result *r = run_check(cases[i].id);
			if (r->v != cases[i].v)
				fail_msg("%s %s %s: %s", models[k], cases[i].id,
					 sim_fault_name(cases[i].f), r->msg);
		}
}

/* A TR that names no TSS of the GDT (a Multiboot loader's selector read
 * against the BIOS kernel's own GDT) cannot be loaded back: ring3.entry
 * passes and says so; the same TR naming a TSS and left changed
 * (tr-leaked) fails. */
static void loader_tr_not_restorable(void **st)
{
	(void)st;
	(void)up("pentium3", SF_NONE, SIM_REALISM_ALL, 7);
	sim.tables.tr = 0x8;
	sim.tables.tr_tss = false;
	const struct result *r = run_check("ring3.entry");
	assert_int_equal(r->v, V_PASS);
	assert_non_null(strstr(r->msg, "TR 0x8 before named no TSS of this GDT (its loader's"));
	(void)up("pentium3", SF_TR_LEAKED, SIM_REALISM_ALL, 7);
	r = run_check("ring3.entry");
	assert_int_equal(r->v, V_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(usr_counts_user_code),	cmocka_unit_test(user_as_os_swaps),
	    cmocka_unit_test(rdpmc_obeys_pce),		cmocka_unit_test(tables_restored),
	    cmocka_unit_test(memory_workload_refused),	cmocka_unit_test(checks_pass_and_fail),
	    cmocka_unit_test(loader_tr_not_restorable),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
