/* The intel-knc driver against the simulated "knc" (KNC #327357 §1.4.3,
 * Linux knc.c): event selects, 40-bit counters, EVNTSEL.EN AND GLOBAL_CTRL
 * gating, sticky status and OVF_CTRL, the 1-bit PMI line, the PMI collect
 * loop, and the injected faults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h> /* after the headers it needs */

#include "../sim/model_knc.h"
#include "../sim/sim.h"
#include "drv_common.h"

#define MASK40 ((1ull << 40) - 1)

static void boot(enum sim_fault f)
{
	boot_counting("knc", PMU_DRV_INTEL_KNC, f);
}

static void describe(void **st)
{
	struct pmu_msr_desc d[16];
	size_t n;
	(void)st;
	boot(SF_NONE);
	check_gp40("intel-knc", 2, 0x20, 0x28); /* 0x28, not knc_pmu_enable_event's 0x2A */
	assert_int_equal(p.global_ctrl_msr, 0x2f);
	assert_int_equal(p.global_status_msr, 0x2d);
	assert_int_equal(p.global_ovf_msr, 0x2e);
	assert_int_equal(p.global_status_set_msr, 0);
	assert_int_equal(p.caps & ~PMU_CAP_RDPMC,
			 PMU_CAP_GLOBAL_CTRL | PMU_CAP_STATUS_REG | PMU_CAP_EDGE_INV_CMASK);
	assert_int_equal(p.pmi_flags, PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE); /* §1.4.3.9 */
	assert_int_equal(pmu_max_period(&p, 1), 1ull << 39);

	n = p.ops->msrs(&p, d, 16);
	assert_int_equal(n, 8);
	for (size_t k = 0; k < n; k++) {
		switch (d[k].addr) {
		case 0x2d:
			assert_int_equal(d[k].access, PMU_MSR_RO);
			break;
		case 0x2e:
			assert_int_equal(d[k].access, PMU_MSR_WO);
			break;
		case 0x2f:
			assert_int_equal(d[k].access, PMU_MSR_RW);
			assert_int_equal(d[k].rw_mask, 3);
			break;
		case 0x28:
		case 0x29:
			assert_int_equal(d[k].rw_mask, 0xfff7ffffull); /* bit 19 reserved */
			break;
		case 0x20:
		case 0x21:
			assert_int_equal(d[k].rw_mask, MASK40);
			break;
		case 0x2c:
			break;
		default:
			fail_msg("unexpected MSR 0x%x", d[k].addr);
		}
	}
	assert_int_equal(p.ops->msrs(&p, d, 3), 3);
}

static void probe_on_nopmu(void **st)
{
	(void)st;
	check_probe_refused(PMU_DRV_INTEL_KNC, "0x20");
}

static void program_evntsel(void **st)
{
	struct pmu_event ev;
	uint64_t v;
	(void)st;
	boot(SF_NONE);
	gen(GEN_INSTRUCTIONS, 1,
	    PMU_F_OS | PMU_F_USR | PMU_F_INT | PMU_F_EDGE | PMU_F_INV | PMU_F_CMASK(2));
	assert_int_equal(hw_rdmsr(0x29, &v), HW_OK);
	assert_int_equal(v, 0x16 | (1u << 16) | (1u << 17) | (1u << 18) | (1u << 20) | (1u << 23) |
				(2u << 24)); /* EN clear */
	assert_int_equal(hw_rdmsr(0x28, &v), HW_OK);
	assert_int_equal(v, 0);

	memset(&ev, 0, sizeof(ev));
	ev.code = 0xcb; /* L2_READ_MISS: counter 0 only (Linux knc_event_constraints) */
	ev.umask = 0x10;
	assert_int_equal(p.ops->program(&p, 1, &ev, PMU_F_OS), HW_REFUSED);
	assert_int_equal(p.ops->program(&p, 0, &ev, PMU_F_OS), 0);
	assert_int_equal(hw_rdmsr(0x28, &v), HW_OK);
	assert_int_equal(v, 0x10cb | (1u << 17));
	ev.code = 0x16;
	ev.umask = 0;
	assert_int_equal(p.ops->program(&p, 0, &ev, PMU_F_OS | (1u << 19)), HW_REFUSED); /* no PC */
	assert_int_equal(p.ops->program(&p, 2, &ev, PMU_F_OS), HW_REFUSED);
	ev.counters = 1u << 1;
	assert_int_equal(p.ops->program(&p, 0, &ev, PMU_F_OS), HW_REFUSED);
	ev.counters = 0;
	ev.fixed_only = true;
	assert_int_equal(p.ops->program(&p, 0, &ev, PMU_F_OS), HW_REFUSED);
}

static void generic_events(void **st)
{
	static const uint16_t code[GEN_COUNT] = {
	    [GEN_CYCLES] = 0x2a,	[GEN_INSTRUCTIONS] = 0x16, [GEN_BRANCHES] = 0x12,
	    [GEN_BRANCH_MISSES] = 0x2b, [GEN_CACHE_REFS] = 0x28,   [GEN_CACHE_MISSES] = 0x29,
	};
	struct pmu_event ev;
	(void)st;
	boot(SF_NONE);
	for (unsigned g = 0; g < GEN_COUNT; g++) {
		for (unsigned i = 0; i < 2; i++) {
			int rc = p.ops->generic_event(&p, (enum pmu_generic)g, i, &ev);
			if (g == GEN_REF_CYCLES) {
				assert_int_equal(rc, HW_UNSUPPORTED);
				continue;
			}
			assert_int_equal(rc, 0);
			assert_int_equal(ev.code, code[g]);
			assert_int_equal(ev.umask, 0);
		}
	}
	assert_int_equal(p.ops->generic_event(&p, GEN_CYCLES, 2, &ev), HW_REFUSED);
}

static void read_write_40bit(void **st)
{
	uint64_t v;
	(void)st;
	boot(SF_NONE);
	assert_int_equal(p.ops->write(&p, 0, MASK40, PMU_WRITE_LEGACY), 0);
	assert_int_equal(ctr(0), MASK40); /* all 40 bits, no sign extension */
	assert_int_equal(p.ops->write(&p, 1, 0x80000000ull, PMU_WRITE_PRELOAD), 0);
	assert_int_equal(ctr(1), 0x80000000ull);
	assert_int_equal(p.ops->write(&p, 1, 0xff00001234567890ull, PMU_WRITE_FULL), 0);
	assert_int_equal(ctr(1), 0x1234567890ull);
	assert_int_equal(hw_rdpmc(1, &v), HW_OK);
	assert_int_equal(v, 0x1234567890ull);
	assert_int_equal(pmu_preload(&p, 0, 1ull << 39), 0);
	assert_int_equal(ctr(0), 1ull << 39);
}

/* Counting needs EVNTSEL.EN AND GLOBAL_CTRL bit i (KNC §1.4.1). */
static void global_gating(void **st)
{
	uint64_t v;
	(void)st;
	boot(SF_NONE);
	gen(GEN_INSTRUCTIONS, 0, PMU_F_OS);
	gen(GEN_BRANCHES, 1, PMU_F_OS);
	assert_int_equal(p.ops->start(&p, 3), 0);
	assert_int_equal(p.active, 3);
	assert_int_equal(hw_rdmsr(0x2f, &v), HW_OK);
	assert_int_equal(v, 3);
	assert_true(sim.reg[KNCSIM_EVNTSEL(0)] & EVTSEL_EN);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(ctr(0), 303);
	assert_int_equal(ctr(1), 102);

	/* EN set, global bit clear */
	assert_int_equal(hw_wrmsr(0x2f, 2), HW_OK);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(ctr(0), 303);
	assert_int_equal(ctr(1), 204);
	/* global bit set, EN clear */
	assert_int_equal(hw_wrmsr(0x2f, 3), HW_OK);
	assert_int_equal(hw_wrmsr(0x28, sim.reg[KNCSIM_EVNTSEL(0)] & ~EVTSEL_EN), HW_OK);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(ctr(0), 303);
	assert_int_equal(ctr(1), 306);

	/* stop clears the global bit and EN */
	assert_int_equal(p.ops->start(&p, 1), 0);
	assert_int_equal(p.ops->stop(&p, 2), 0);
	assert_int_equal(hw_rdmsr(0x2f, &v), HW_OK);
	assert_int_equal(v, 1);
	assert_false(sim.reg[KNCSIM_EVNTSEL(1)] & EVTSEL_EN);
	assert_int_equal(p.active, 1);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(ctr(0), 606);
	assert_int_equal(ctr(1), 306);
}

static void overflow_at_n(void **st)
{
	(void)st;
	for (uint64_t n = 1; n <= 1000; n = n * 10 + 1) {
		boot(SF_NONE);
		gen(GEN_CYCLES, 1, PMU_F_OS); /* 1 cycle per iteration, none fixed */
		assert_int_equal(pmu_preload(&p, 1, n), 0);
		assert_int_equal(p.ops->start(&p, 2), 0);
		if (n > 1)
			hw_run_workload(&wl_loop, n - 1);
		assert_int_equal(ovf_mask(), 0);
		hw_run_workload(&wl_loop, 1);
		assert_int_equal(ovf_mask(), 2); /* set without INT too (§1.4.3.5) */
		assert_int_equal(ctr(1), 0);
	}
}

static void sticky_until_ack(void **st)
{
	uint64_t v;
	(void)st;
	boot(SF_NONE);
	gen(GEN_CYCLES, 0, PMU_F_OS);
	gen(GEN_CYCLES, 1, PMU_F_OS);
	assert_int_equal(pmu_preload(&p, 0, 10), 0);
	assert_int_equal(pmu_preload(&p, 1, 20), 0);
	assert_int_equal(p.ops->start(&p, 3), 0);
	hw_run_workload(&wl_loop, 15);
	assert_int_equal(ovf_mask(), 1);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(p.ops->stop(&p, 3), 0);
	assert_int_equal(ovf_mask(), 3);
	assert_int_equal(p.ops->ack(&p, 2), 0);
	assert_int_equal(ovf_mask(), 1);
	assert_int_equal(p.ops->ack(&p, 1), 0);
	assert_int_equal(ovf_mask(), 0);
	/* the status register is read-only (§1.4.3.5) */
	assert_int_equal(hw_wrmsr(0x2d, 0), HW_FAULT_GP);
	assert_int_equal(hw_rdmsr(0x2d, &v), HW_OK);
}

/* The 1-bit line (§1.4.3.9): a second overflow while the status is not
 * zero raises no PMI; once the status is cleared, the next one does. */
static void one_bit_edge(void **st)
{
	(void)st;
	boot(SF_NONE);
	gen(GEN_CYCLES, 0, PMU_F_OS | PMU_F_INT);
	gen(GEN_CYCLES, 1, PMU_F_OS | PMU_F_INT);
	assert_int_equal(pmu_preload(&p, 0, 10), 0);
	assert_int_equal(pmu_preload(&p, 1, 20), 0);
	unmask_lvt();
	assert_int_equal(p.ops->start(&p, 3), 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(pmis, 1);
	assert_true(apic_read(APIC_LVT_PC) & LVT_MASKED); /* masked on delivery */
	assert_int_equal(sim.st.pmi_raised, 1);

	unmask_lvt();		       /* unmasked with status still 1: the wrong order */
	hw_run_workload(&wl_loop, 10); /* counter 1 overflows */
	assert_int_equal(ovf_mask(), 3);
	assert_int_equal(sim.st.pmi_raised, 1); /* no 0->1 change, no PMI */
	assert_int_equal(pmis, 1);

	assert_int_equal(p.ops->ack(&p, 1), 0); /* status still 2: line stays up */
	assert_int_equal(pmu_preload(&p, 0, 5), 0);
	hw_run_workload(&wl_loop, 5);
	assert_int_equal(pmis, 1);

	assert_int_equal(p.ops->ack(&p, 3), 0);
	assert_int_equal(pmu_preload(&p, 0, 5), 0);
	hw_run_workload(&wl_loop, 5);
	assert_int_equal(pmis, 2);
}

static void pmi_collect_protocol(void **st)
{
	uint64_t m = 0, v;
	(void)st;
	boot(SF_NONE);
	gen(GEN_CYCLES, 0, PMU_F_OS | PMU_F_INT);
	gen(GEN_INSTRUCTIONS, 1, PMU_F_OS | PMU_F_INT);
	assert_int_equal(pmu_preload(&p, 0, 10), 0);
	assert_int_equal(pmu_preload(&p, 1, 30), 0);
	unmask_lvt();
	assert_int_equal(p.ops->start(&p, 3), 0);
	hw_run_workload(&wl_loop, 9); /* 9 cycles, 30 instructions */
	assert_int_equal(pmis, 1);
	hw_run_workload(&wl_loop, 1);
	assert_int_equal(ovf_mask(), 3);

	assert_int_equal(p.ops->pmi_collect(&p, &m), 0);
	assert_int_equal(m, 3);
	assert_int_equal(ovf_mask(), 0);
	assert_int_equal(hw_rdmsr(0x2f, &v), HW_OK);
	assert_int_equal(v, 0); /* counting stopped */
	assert_int_equal(p.active, 3);
	uint64_t c0 = ctr(0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(0), c0);

	/* status is 0 now, so after unmasking the next overflow interrupts */
	unmask_lvt();
	assert_int_equal(pmu_preload(&p, 0, 5), 0);
	assert_int_equal(p.ops->start(&p, p.active), 0);
	hw_run_workload(&wl_loop, 5);
	assert_int_equal(pmis, 2);
	assert_int_equal(p.ops->pmi_collect(&p, &m), 0);
	assert_int_equal(m, 1);
	assert_int_equal(p.ops->pmi_collect(&p, &m), 0);
	assert_int_equal(m, 0);
}

static void reset_clears(void **st)
{
	uint64_t v;
	(void)st;
	boot(SF_NONE);
	gen(GEN_CYCLES, 0, PMU_F_OS);
	assert_int_equal(pmu_preload(&p, 0, 5), 0);
	assert_int_equal(p.ops->start(&p, 1), 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(p.ops->reset(&p), 0);
	assert_int_equal(ovf_mask(), 0);
	assert_int_equal(hw_rdmsr(0x2f, &v), HW_OK);
	assert_int_equal(v, 0);
	assert_int_equal(sim.reg[KNCSIM_EVNTSEL(0)], 0);
	assert_int_equal(ctr(0), 0);
	assert_int_equal(p.active, 0);
}

static void run_basic(uint64_t n0, uint64_t iters, uint32_t extra)
{
	gen(GEN_CYCLES, 0, PMU_F_OS | extra);
	gen(GEN_INSTRUCTIONS, 1, PMU_F_OS);
	assert_int_equal(pmu_preload(&p, 0, n0), 0);
	assert_int_equal(p.ops->write(&p, 1, 0, PMU_WRITE_FULL), 0);
	assert_int_equal(p.ops->start(&p, 3), 0);
	hw_run_workload(&wl_loop, iters);
}

static void healthy_baseline(void **st)
{
	uint64_t m;
	(void)st;
	boot(SF_NONE);
	unmask_lvt();
	run_basic(10, 10, PMU_F_INT);
	assert_int_equal(pmis, 1);
	assert_int_equal(ovf_mask(), 1);
	assert_int_equal(ctr(1), 33);
	assert_int_equal(p.ops->pmi_collect(&p, &m), 0);
	assert_int_equal(m, 1);
	boot(SF_NONE);
	run_basic(1000, 100, 0);
	assert_int_equal(ctr(0), (0 - 900ull) & MASK40);
}

static void faults_change_results(void **st)
{
	uint64_t v;
	(void)st;

	assert_int_equal(sim_start("knc", SF_NO_SIGN_EXTEND), -1);

	boot(SF_STUCK_COUNTER);
	run_basic(1000, 100, 0);
	assert_int_equal(ctr(0), (0 - 1000ull) & MASK40);

	boot(SF_NARROW_COUNTER);
	assert_int_equal(p.ops->write(&p, 1, MASK40, PMU_WRITE_FULL), 0);
	assert_int_equal(ctr(1), 0xffffffffull);

	boot(SF_NO_OVERFLOW_STATUS);
	run_basic(10, 10, 0);
	assert_int_equal(ctr(0), 0);	 /* it did overflow */
	assert_int_equal(ovf_mask(), 0); /* but the status never says so */

	boot(SF_LOST_PMI);
	unmask_lvt();
	run_basic(10, 10, PMU_F_INT);
	check_pmi_missing();

	boot(SF_SPURIOUS_PMI);
	check_spurious_pmi();

	boot(SF_ENABLE_IGNORED);
	gen(GEN_INSTRUCTIONS, 1, PMU_F_OS);
	assert_int_equal(hw_wrmsr(0x2f, 2), HW_OK); /* global on, EN clear */
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(1), 33);

	boot(SF_GLOBAL_CTRL_IGNORED);
	gen(GEN_INSTRUCTIONS, 1, PMU_F_OS);
	assert_int_equal(p.ops->start(&p, 2), 0);
	assert_int_equal(hw_wrmsr(0x2f, 0), HW_OK); /* EN set, global off */
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(1), 33);

	boot(SF_WRONG_EVENT);
	run_basic(1000, 10, 0);
	assert_int_equal(ctr(1), 12);

	boot(SF_MSR_FAULT);
	assert_int_equal(p.ops->read(&p, 1, &v), HW_FAULT_GP);
	gen(GEN_CYCLES, 0, PMU_F_OS);
	{
		struct pmu_event ev;
		assert_int_equal(p.ops->generic_event(&p, GEN_CYCLES, 1, &ev), 0);
		assert_int_equal(p.ops->program(&p, 1, &ev, PMU_F_OS), HW_FAULT_GP);
	}
	assert_int_equal(p.ops->start(&p, 3), HW_FAULT_GP);
	assert_int_equal(p.active, 1);
	assert_int_equal(hw_rdpmc(1, &v), HW_FAULT_GP);

	boot(SF_OVERCOUNT);
	run_basic(1000, 10, 0);
	assert_int_equal(ctr(1), 44); /* 33 + one extra per step: 10 iterations + call */

	boot(SF_LVT_STUCK_MASKED);
	unmask_lvt();
	run_basic(10, 10, PMU_F_INT);
	check_pmi_missing();
	assert_int_equal(sim.st.pmi_dropped, 1);

	boot(SF_ACK_IGNORED);
	run_basic(10, 10, 0);
	check_ack_ignored();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(describe),
	    cmocka_unit_test(probe_on_nopmu),
	    cmocka_unit_test(program_evntsel),
	    cmocka_unit_test(generic_events),
	    cmocka_unit_test(read_write_40bit),
	    cmocka_unit_test(global_gating),
	    cmocka_unit_test(overflow_at_n),
	    cmocka_unit_test(sticky_until_ack),
	    cmocka_unit_test(one_bit_edge),
	    cmocka_unit_test(pmi_collect_protocol),
	    cmocka_unit_test(reset_clears),
	    cmocka_unit_test(healthy_baseline),
	    cmocka_unit_test(faults_change_results),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
