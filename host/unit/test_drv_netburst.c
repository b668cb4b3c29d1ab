/* The intel-netburst driver against the simulated "pentium4" (SDM NetBurst,
 * Linux p4.c): ESCR/CCCR programming and binding, 40-bit counters, sticky
 * and unflagged overflow, the PMI collect step, and the injected faults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h> /* after the headers it needs */

#include "../sim/model_netburst.h"
#include "../sim/sim.h"
#include "drv_common.h"

#define CCCR_ENABLE	(1ull << 12)
#define CCCR_OVF	(1ull << 31)
#define CCCR_OVF_PMI_T0 (1ull << 26)
#define BIT39		(1ull << 39)
#define MASK40		((1ull << 40) - 1)

enum { C_CYCLES = 0, C_BR1 = 1, C_RBT = 4, C_INSTR = 12, C_BRANCH = 13, C_MISP = 16 };

static void boot(enum sim_fault f)
{
	boot_counting("pentium4", PMU_DRV_INTEL_NETBURST, f);
}

static void describe(void **st)
{
	struct pmu_msr_desc d[64];
	size_t n;
	bool seen_cru0 = false, seen_cccr12 = false;
	(void)st;
	boot(SF_NONE);
	check_gp40("intel-netburst", 18, 0x300, 0x360); /* counters and their CCCRs */
	assert_string_equal(p.ctr[0].name, "BPU_COUNTER0");
	assert_string_equal(p.ctr[7].name, "MS_COUNTER3");
	assert_string_equal(p.ctr[8].name, "FLAME_COUNTER0");
	assert_string_equal(p.ctr[17].name, "IQ_COUNTER5");
	assert_int_equal(p.caps & ~PMU_CAP_RDPMC,
			 PMU_CAP_STICKY_OVF | PMU_CAP_EDGE_INV_CMASK | PMU_CAP_FAST_RDPMC);
	assert_int_equal(p.pmi_flags, PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE);
	assert_int_equal(p.global_ctrl_msr, 0);
	assert_int_equal(p.global_status_msr, 0);
	assert_int_equal(pmu_max_period(&p, 12), 1ull << 39);

	n = p.ops->msrs(&p, d, 64);
	assert_int_equal(n, 18 + 18 + 10);
	for (size_t k = 0; k < n; k++) {
		if (d[k].addr == 0x3b8) {
			seen_cru0 = true;
			assert_string_equal(d[k].name, "CRU_ESCR0");
			assert_int_equal(d[k].rw_mask, 0x7fffffffull);
		}
		if (d[k].addr == 0x36c) {
			seen_cccr12 = true;
			assert_string_equal(d[k].name, "IQ_CCCR0");
			assert_int_equal(d[k].rw_mask & CCCR_OVF, 0);
		}
	}
	assert_true(seen_cru0 && seen_cccr12);
	assert_int_equal(p.ops->msrs(&p, d, 5), 5); /* respects max */
}

static void emon_clear_is_absent(void **st)
{
	(void)st;
	assert_int_equal(sim_start("pentium4", SF_NONE), 0);
	sim.reg[P4SIM_MISC_ENABLE] = 0;
	cpu_identify(&ci);
	pmu_attach(&p, &ci);
	assert_int_equal(p.status, PMU_ABSENT);
	assert_non_null(strstr(p.reason, "EMON"));
}

/* The driver on a CPU whose PMU MSRs do not exist (QEMU TCG, model nopmu). */
static void probe_on_nopmu(void **st)
{
	(void)st;
	boot_as("nopmu", SF_NONE, PMU_DRV_INTEL_NETBURST);
	assert_int_equal(p.status, PMU_ABSENT);
	assert_non_null(strstr(p.reason, "#GP"));
}

static void program_escr_then_cccr(void **st)
{
	struct pmu_event ev;
	uint64_t n0, escr, cccr;
	(void)st;
	boot(SF_NONE);
	assert_int_equal(p.ops->generic_event(&p, GEN_INSTRUCTIONS, C_INSTR, &ev), 0);
	assert_int_equal(ev.escr_msr, 0x3b8);
	assert_int_equal(ev.escr_select, 4);
	assert_int_equal(ev.code, 0x02);
	assert_int_equal(ev.escr_mask, 0x5);

	n0 = sim.reg[P4SIM_WLOG_N];
	assert_int_equal(p.ops->program(&p, C_INSTR, &ev, PMU_F_OS | PMU_F_USR | PMU_F_INT), 0);
	/* writes: CCCR (stop), ESCR, then the CCCR */
	assert_int_equal(sim.reg[P4SIM_WLOG_N] - n0, 3);
	assert_int_equal(sim.reg[P4SIM_WLOG(n0 + 1)], 0x3b8);
	assert_int_equal(sim.reg[P4SIM_WLOG(n0 + 2)], 0x36c);
	assert_int_equal(p.ctr[C_INSTR].aux_msr, 0x3b8);

	assert_int_equal(hw_rdmsr(0x3b8, &escr), HW_OK);
	assert_int_equal(escr, (0x02ull << 25) | (0x5ull << 9) | (1u << 3) | (1u << 2));
	assert_int_equal(hw_rdmsr(0x36c, &cccr), HW_OK);
	assert_int_equal(cccr, (4ull << 13) | (3ull << 16) | CCCR_OVF_PMI_T0); /* ENABLE clear */

	/* edge, threshold (compare) and complement from the P6-style flags */
	assert_int_equal(
	    p.ops->program(&p, C_INSTR, &ev, PMU_F_OS | PMU_F_EDGE | PMU_F_INV | PMU_F_CMASK(3)),
	    0);
	assert_int_equal(hw_rdmsr(0x36c, &cccr), HW_OK);
	assert_int_equal(cccr, (4ull << 13) | (3ull << 16) | (1ull << 18) | (1ull << 19) |
				   (3ull << 20) | (1ull << 24));
	assert_int_equal(hw_rdmsr(0x3b8, &escr), HW_OK);
	assert_int_equal(escr & 0xc, 0x8); /* T0_OS only */
	assert_int_equal(p.ops->program(&p, C_INSTR, &ev, PMU_F_OS | PMU_F_CMASK(16)), HW_REFUSED);
}

static void binding_refused(void **st)
{
	struct pmu_event ev;
	(void)st;
	boot(SF_NONE);
	assert_int_equal(p.ops->generic_event(&p, GEN_INSTRUCTIONS, C_INSTR, &ev), 0);
	/* not on the event's counters */
	assert_int_equal(p.ops->program(&p, 0, &ev, PMU_F_OS), HW_REFUSED);
	assert_int_equal(p.ops->program(&p, 14, &ev, PMU_F_OS), HW_REFUSED);
	/* with no counter list, the ESCR wiring still decides: CRU_ESCR0 feeds
	 * 12, 13 and 16 only */
	ev.counters = 0;
	assert_int_equal(p.ops->program(&p, 14, &ev, PMU_F_OS), HW_REFUSED);
	assert_int_equal(p.ops->program(&p, 4, &ev, PMU_F_OS), HW_REFUSED);
	assert_int_equal(p.ops->program(&p, 16, &ev, PMU_F_OS), 0);
	assert_int_equal(p.ctr[16].aux_msr, 0x3b8);
	/* CRU_ESCR1 is the thread-1 ESCR of the same event: counters 14,15,17 */
	ev.escr_msr = 0x3b9;
	assert_int_equal(p.ops->program(&p, 14, &ev, PMU_F_OS), 0);
	assert_int_equal(p.ops->program(&p, 12, &ev, PMU_F_OS), HW_REFUSED);
	/* a select that does not pick the ESCR */
	ev.escr_msr = 0x3b8;
	ev.escr_select = 5;
	assert_int_equal(p.ops->program(&p, 12, &ev, PMU_F_OS), HW_REFUSED);
	/* no such ESCR */
	ev.escr_select = 4;
	ev.escr_msr = 0x3c6;
	assert_int_equal(p.ops->program(&p, 12, &ev, PMU_F_OS), HW_REFUSED);
	/* RETIRED_BRANCH_TYPE: TBPU_ESCR0, select 2, MS counters 4,5 */
	memset(&ev, 0, sizeof(ev));
	ev.code = 0x04;
	ev.escr_mask = 0x1e;
	ev.escr_select = 2;
	ev.escr_msr = 0x3c2;
	assert_int_equal(p.ops->program(&p, C_RBT, &ev, PMU_F_OS), 0);
	assert_int_equal(p.ops->program(&p, 12, &ev, PMU_F_OS), HW_REFUSED);
	/* BSQ_CACHE_REFERENCE: BSU_ESCR0, select 7, counters 0 (1) */
	ev.code = 0x0c;
	ev.escr_mask = 0x73f;
	ev.escr_select = 7;
	ev.escr_msr = 0x3a0;
	assert_int_equal(p.ops->program(&p, 0, &ev, PMU_F_OS), 0);
	assert_int_equal(p.ops->program(&p, 2, &ev, PMU_F_OS), HW_REFUSED);
	assert_int_equal(p.ops->program(&p, 18, &ev, PMU_F_OS), HW_REFUSED);
}

static void generic_events(void **st)
{
	struct pmu_event ev;
	static const uint32_t allowed[GEN_COUNT] = {
	    [GEN_CYCLES] = 1u << 0,
	    [GEN_INSTRUCTIONS] = (1u << 12) | (1u << 13) | (1u << 16),
	    [GEN_BRANCHES] = (1u << 12) | (1u << 13) | (1u << 16),
	    [GEN_BRANCH_MISSES] = (1u << 12) | (1u << 13) | (1u << 16),
	};
	(void)st;
	boot(SF_NONE);
	for (unsigned g = 0; g < GEN_COUNT; g++)
		for (unsigned i = 0; i < 18; i++)
			assert_int_equal(p.ops->generic_event(&p, (enum pmu_generic)g, i, &ev),
					 !allowed[g]		 ? HW_UNSUPPORTED
					 : (allowed[g] >> i & 1) ? HW_OK
								 : HW_REFUSED);
	/* CCCR1's ENABLE is broken (Linux p4_pmu_enable_event): no generic event uses it */
	assert_int_equal(p.ops->generic_event(&p, GEN_CYCLES, C_BR1, &ev), HW_REFUSED);
	assert_int_equal(p.ops->generic_event(&p, GEN_CYCLES, 0, &ev), 0);
	assert_int_equal(ev.code, 0x13);
	assert_int_equal(ev.escr_mask, 0x1);
	assert_int_equal(ev.escr_msr, 0x3a2);
	assert_int_equal(ev.escr_select, 6);
	assert_int_equal(p.ops->generic_event(&p, GEN_BRANCHES, 13, &ev), 0);
	assert_int_equal(ev.code, 0x06);
	assert_int_equal(ev.escr_mask, 0xf);
	assert_int_equal(ev.escr_msr, 0x3cc);
	assert_int_equal(p.ops->generic_event(&p, GEN_BRANCH_MISSES, 16, &ev), 0);
	assert_int_equal(ev.code, 0x03);
	assert_int_equal(ev.escr_mask, 0x1);
}

static void counts_through_binding(void **st)
{
	(void)st;
	boot(SF_NONE);
	gen(GEN_CYCLES, C_CYCLES, PMU_F_OS);
	gen(GEN_INSTRUCTIONS, C_INSTR, PMU_F_OS);
	gen(GEN_BRANCHES, C_BRANCH, PMU_F_OS);
	uint64_t all = (1ull << C_CYCLES) | (1ull << C_INSTR) | (1ull << C_BRANCH);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(ctr(C_INSTR), 0); /* not started: ENABLE clear */
	assert_int_equal(p.ops->start(&p, all), 0);
	assert_int_equal(p.active, all);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(ctr(C_CYCLES), 1000);
	assert_int_equal(ctr(C_INSTR), 3 * 1000 + 3);
	assert_int_equal(ctr(C_BRANCH), 1000 + 2);
	/* MISPRED_BRANCH_RETIRED needs CRU_ESCR0 too: refused while counter 12
	 * runs INSTR_RETIRED through it, taken over once it is stopped */
	struct pmu_event ev;
	assert_int_equal(p.ops->generic_event(&p, GEN_BRANCH_MISSES, C_MISP, &ev), 0);
	assert_int_equal(p.ops->program(&p, C_MISP, &ev, PMU_F_OS), HW_REFUSED);
	assert_int_equal(p.ctr[C_INSTR].aux_msr, 0x3b8);
	assert_int_equal(p.ops->stop(&p, all), 0);
	assert_int_equal(p.ops->program(&p, C_MISP, &ev, PMU_F_OS), 0);
	assert_int_equal(p.ctr[C_INSTR].aux_msr, 0);
	assert_int_equal(p.ctr[C_MISP].aux_msr, 0x3b8);
	assert_int_equal(p.ops->start(&p, 1ull << C_MISP), 0);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(ctr(C_MISP), 0); /* the loop branch is always predicted */
	assert_int_equal(p.ops->stop(&p, 1ull << C_MISP), 0);
	gen(GEN_INSTRUCTIONS, C_INSTR, PMU_F_OS);
	assert_int_equal(p.ops->start(&p, all), 0);

	/* the ESCR the CCCR selects decides the event: moving counter 12's
	 * select from 4 (CRU_ESCR0) to 5 (CRU_ESCR2, BRANCH_RETIRED) makes it
	 * count branches */
	assert_int_equal(p.ops->stop(&p, all), 0);
	assert_int_equal(p.ops->write(&p, C_INSTR, 0, PMU_WRITE_FULL), 0);
	sim.reg[P4SIM_CCCR(C_INSTR)] ^= 1ull << 13;
	assert_int_equal(p.ops->start(&p, 1ull << C_INSTR), 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(C_INSTR), 10 + 2);
	/* a select with no ESCR behind it in the group counts nothing */
	assert_int_equal(p.ops->write(&p, C_INSTR, 0, PMU_WRITE_FULL), 0);
	sim.reg[P4SIM_CCCR(C_INSTR)] |= 7ull << 13;
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(C_INSTR), 0);
	/* a USR-only event counts nothing in ring 0 (ESCR T0_OS clear) */
	gen(GEN_INSTRUCTIONS, C_INSTR, PMU_F_USR);
	assert_int_equal(p.ops->start(&p, 1ull << C_INSTR), 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(C_INSTR), 0);
	gen(GEN_INSTRUCTIONS, C_INSTR, PMU_F_OS);
	assert_int_equal(p.ops->start(&p, 1ull << C_INSTR), 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(ctr(C_INSTR), 33);
}

/* CCCR1's ENABLE bit does not work (Linux p4_pmu_enable_event): the model keeps counter
 * 1 still, which is why no generic event is offered on it. */
static void cccr1_erratum(void **st)
{
	struct pmu_event ev;
	(void)st;
	boot(SF_NONE);
	assert_int_equal(p.ops->generic_event(&p, GEN_CYCLES, 0, &ev), 0);
	ev.counters = 0; /* FSB_ESCR0 is wired to counters 0 and 1 */
	assert_int_equal(p.ops->program(&p, 0, &ev, PMU_F_OS), 0);
	assert_int_equal(p.ops->program(&p, C_BR1, &ev, PMU_F_OS), 0);
	assert_int_equal(p.ops->start(&p, 3), 0);
	assert_true(sim.reg[P4SIM_CCCR(C_BR1)] & CCCR_ENABLE);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(ctr(0), 100);
	assert_int_equal(ctr(C_BR1), 0);
}

static void read_write_40bit(void **st)
{
	uint64_t v;
	(void)st;
	boot(SF_NONE);
	assert_int_equal(p.ops->write(&p, C_INSTR, MASK40, PMU_WRITE_LEGACY), 0);
	assert_int_equal(ctr(C_INSTR), MASK40);
	assert_int_equal(p.armed, 1ull << C_INSTR);
	assert_int_equal(p.ops->write(&p, C_INSTR, 0x123456789aull, PMU_WRITE_PRELOAD), 0);
	assert_int_equal(ctr(C_INSTR), 0x123456789aull);
	assert_int_equal(p.armed, 0); /* bit 39 clear: not armed */
	assert_int_equal(p.ops->write(&p, 5, 0xab00000000000001ull, PMU_WRITE_FULL), 0);
	assert_int_equal(ctr(5), 0x0000000001ull);
	assert_int_equal(pmu_preload(&p, C_INSTR, 1ull << 39), 0);
	assert_int_equal(ctr(C_INSTR), BIT39);
	assert_int_equal(pmu_preload(&p, C_INSTR, (1ull << 39) + 1), HW_REFUSED);
	assert_int_equal(hw_rdpmc(C_INSTR, &v), HW_OK);
	assert_int_equal(v, BIT39);
}

static void start_stop(void **st)
{
	(void)st;
	boot(SF_NONE);
	gen(GEN_CYCLES, C_CYCLES, PMU_F_OS);
	assert_int_equal(p.ops->start(&p, 1), 0);
	assert_true(sim.reg[P4SIM_CCCR(0)] & CCCR_ENABLE);
	hw_run_workload(&wl_loop, 50);
	assert_int_equal(p.ops->stop(&p, 1), 0);
	assert_false(sim.reg[P4SIM_CCCR(0)] & CCCR_ENABLE);
	assert_int_equal(p.active, 0);
	hw_run_workload(&wl_loop, 50);
	assert_int_equal(ctr(C_CYCLES), 50);
	/* the rest of the CCCR survives start/stop */
	assert_int_equal(sim.reg[P4SIM_CCCR(0)], (6ull << 13) | (3ull << 16));
}

/* Preload -N: N-1 events do not overflow, the Nth does. */
static void overflow_at_n(void **st)
{
	(void)st;
	for (uint64_t n = 1; n <= 1000; n = n * 10 + 1) {
		boot(SF_NONE);
		gen(GEN_CYCLES, C_CYCLES, PMU_F_OS);
		assert_int_equal(pmu_preload(&p, C_CYCLES, n), 0);
		assert_int_equal(p.ops->start(&p, 1), 0);
		if (n > 1)
			hw_run_workload(&wl_loop, n - 1);
		assert_int_equal(ovf_mask(), 0);
		assert_true(ctr(C_CYCLES) & BIT39);
		hw_run_workload(&wl_loop, 1);
		assert_int_equal(ovf_mask(), 1);
		assert_true(sim.reg[P4SIM_CCCR(0)] & CCCR_OVF);
		assert_int_equal(p.drv[0], 0); /* flagged */
		assert_int_equal(ctr(C_CYCLES), 0);
	}
}

static void sticky_until_ack(void **st)
{
	(void)st;
	boot(SF_NONE);
	gen(GEN_CYCLES, C_CYCLES, PMU_F_OS);
	gen(GEN_INSTRUCTIONS, C_INSTR, PMU_F_OS);
	assert_int_equal(pmu_preload(&p, C_CYCLES, 10), 0);
	assert_int_equal(p.ops->write(&p, C_INSTR, 0, PMU_WRITE_FULL), 0);
	assert_int_equal(p.ops->start(&p, 1 | (1ull << C_INSTR)), 0);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(ovf_mask(), 1);
	/* more counting, then stopping, leave OVF set */
	assert_int_equal(p.ops->write(&p, C_CYCLES, 5, PMU_WRITE_FULL), 0);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(p.ops->stop(&p, 1), 0);
	assert_int_equal(ovf_mask(), 1);
	/* acking another counter leaves it alone */
	assert_int_equal(p.ops->ack(&p, 1ull << C_INSTR), 0);
	assert_int_equal(ovf_mask(), 1);
	assert_int_equal(p.ops->ack(&p, 1), 0);
	assert_int_equal(ovf_mask(), 0);
	assert_false(sim.reg[P4SIM_CCCR(0)] & CCCR_OVF);
	/* the rest of the CCCR is kept by the ack */
	assert_int_equal(sim.reg[P4SIM_CCCR(0)], (6ull << 13) | (3ull << 16));
}

/* Bit 39 clear on an armed counter without OVF (Linux p4_pmu_clear_cccr_ovf). */
static void unflagged_overflow(void **st)
{
	(void)st;
	boot(SF_NONE);
	gen(GEN_CYCLES, C_CYCLES, PMU_F_OS);
	assert_int_equal(pmu_preload(&p, C_CYCLES, 10), 0);
	assert_int_equal(p.ops->start(&p, 1), 0);
	hw_run_workload(&wl_loop, 10);
	sim.reg[P4SIM_CCCR(0)] &= ~P4SIM_CCCR_OVF; /* the hardware forgot the flag */
	assert_int_equal(ovf_mask(), 1);
	assert_int_equal(p.drv[0], 1);
	assert_int_equal(p.ops->ack(&p, 1), 0);
	assert_int_equal(ovf_mask(), 0);
	assert_int_equal(p.drv[0], 0);
	/* a counter that was never armed is not read as overflowed */
	assert_int_equal(p.ops->write(&p, C_CYCLES, 3, PMU_WRITE_FULL), 0);
	assert_int_equal(ovf_mask(), 0);
}

static void pmi_and_collect(void **st)
{
	uint64_t m = 0;
	(void)st;
	boot(SF_NONE);
	gen(GEN_CYCLES, C_CYCLES, PMU_F_OS | PMU_F_INT);
	gen(GEN_INSTRUCTIONS, C_INSTR, PMU_F_OS | PMU_F_INT);
	assert_int_equal(pmu_preload(&p, C_CYCLES, 100), 0);
	assert_int_equal(pmu_preload(&p, C_INSTR, 30), 0);
	unmask_lvt();
	assert_int_equal(p.ops->start(&p, 1 | (1ull << C_INSTR)), 0);
	hw_run_workload(&wl_loop, 9); /* 30 instructions: counter 12 overflows */
	assert_int_equal(pmis, 1);
	assert_true(apic_read(APIC_LVT_PC) & LVT_MASKED); /* auto-masked */
	assert_int_equal(ovf_mask(), 1ull << C_INSTR);

	assert_int_equal(p.ops->pmi_collect(&p, &m), 0);
	assert_int_equal(m, 1ull << C_INSTR);
	assert_int_equal(ovf_mask(), 0);
	/* counting stopped, p->active kept for the restart */
	assert_false(sim.reg[P4SIM_CCCR(0)] & CCCR_ENABLE);
	assert_false(sim.reg[P4SIM_CCCR(C_INSTR)] & CCCR_ENABLE);
	assert_int_equal(p.active, 1 | (1ull << C_INSTR));
	uint64_t c0 = ctr(C_CYCLES);
	hw_run_workload(&wl_loop, 5);
	assert_int_equal(ctr(C_CYCLES), c0);

	/* restart: the cycles counter overflows and interrupts again */
	unmask_lvt();
	assert_int_equal(p.ops->start(&p, p.active), 0);
	hw_run_workload(&wl_loop, 200);
	assert_int_equal(pmis, 2);
	/* an unflagged overflow is collected too */
	sim.reg[P4SIM_CCCR(0)] &= ~P4SIM_CCCR_OVF;
	assert_int_equal(p.ops->pmi_collect(&p, &m), 0);
	assert_int_equal(m, 1);
	assert_int_equal(p.drv[0], 1);
	assert_int_equal(p.ops->pmi_collect(&p, &m), 0);
	assert_int_equal(m, 0);
}

static void reset_clears(void **st)
{
	(void)st;
	boot(SF_NONE);
	gen(GEN_CYCLES, C_CYCLES, PMU_F_OS | PMU_F_INT);
	assert_int_equal(pmu_preload(&p, C_CYCLES, 5), 0);
	assert_int_equal(p.ops->start(&p, 1), 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(p.ops->reset(&p), 0);
	assert_int_equal(sim.reg[P4SIM_CCCR(0)], 0);
	assert_int_equal(sim.reg[P4SIM_ESCR(12)], 0); /* FSB_ESCR0 */
	assert_int_equal(ctr(C_CYCLES), 0);
	assert_int_equal(p.armed | p.active, 0);
	assert_int_equal(p.ctr[0].aux_msr, 0);
	assert_int_equal(ovf_mask(), 0);
}

/* Runs cycles (ctr 0) and instructions (ctr 12) with -N preloads. */
static void run_basic(uint64_t n_cyc, uint64_t iters, uint32_t extra)
{
	gen(GEN_CYCLES, C_CYCLES, PMU_F_OS | extra);
	gen(GEN_INSTRUCTIONS, C_INSTR, PMU_F_OS | extra);
	assert_int_equal(pmu_preload(&p, C_CYCLES, n_cyc), 0);
	assert_int_equal(p.ops->write(&p, C_INSTR, 0, PMU_WRITE_FULL), 0);
	assert_int_equal(p.ops->start(&p, 1 | (1ull << C_INSTR)), 0);
	hw_run_workload(&wl_loop, iters);
}

static void faults_change_results(void **st)
{
	uint64_t v;
	struct pmu_event ev;
	(void)st;

	assert_int_equal(sim_start("pentium4", SF_NO_SIGN_EXTEND), -1);
	assert_int_equal(sim_start("pentium4", SF_GLOBAL_CTRL_IGNORED), -1);

	boot(SF_STUCK_COUNTER);
	run_basic(1000, 100, 0);
	assert_int_equal(ctr(C_CYCLES), (0 - 1000ull) & MASK40);

	boot(SF_NARROW_COUNTER);
	assert_int_equal(p.ops->write(&p, C_INSTR, MASK40, PMU_WRITE_FULL), 0);
	assert_int_equal(ctr(C_INSTR), 0xffffffffull);

	boot(SF_NO_OVERFLOW_STATUS);
	run_basic(10, 10, 0);
	assert_int_equal(ovf_mask(), 1); /* still seen: bit 39 went clear */
	assert_int_equal(p.drv[0], 1);	 /* but only as an unflagged overflow */

	boot(SF_LOST_PMI);
	unmask_lvt();
	run_basic(10, 10, PMU_F_INT);
	check_pmi_missing();

	boot(SF_SPURIOUS_PMI);
	check_spurious_pmi();

	boot(SF_ENABLE_IGNORED);
	gen(GEN_INSTRUCTIONS, C_INSTR, PMU_F_OS);
	hw_run_workload(&wl_loop, 10); /* never started */
	assert_int_equal(ctr(C_INSTR), 33);

	boot(SF_WRONG_EVENT);
	run_basic(1000, 10, 0);
	assert_int_equal(ctr(C_INSTR), 10 + 2); /* branches, not 33 instructions */

	boot(SF_MSR_FAULT);
	assert_int_equal(p.ops->read(&p, 1, &v), HW_FAULT_GP);
	assert_int_equal(p.ops->write(&p, 1, 0, PMU_WRITE_FULL), HW_FAULT_GP);
	memset(&ev, 0, sizeof(ev));
	ev.code = 0x0c;
	ev.escr_select = 7;
	ev.escr_msr = 0x3a0;
	assert_int_equal(p.ops->program(&p, 1, &ev, PMU_F_OS), HW_FAULT_GP);
	assert_int_equal(p.ops->start(&p, 3), HW_FAULT_GP);
	assert_int_equal(p.active, 1);

	boot(SF_OVERCOUNT);
	run_basic(1000, 10, 0);
	assert_int_equal(ctr(C_INSTR), 44); /* 33 + one extra per step: 10 iterations + call */

	boot(SF_LVT_STUCK_MASKED);
	unmask_lvt();
	run_basic(10, 10, PMU_F_INT);
	check_pmi_missing();
	assert_int_equal(sim.st.pmi_dropped, 1);

	boot(SF_ACK_IGNORED);
	run_basic(10, 10, 0);
	check_ack_ignored();
}

/* Healthy baselines for the fault runs above: the same sequences give the
 * documented results without a fault. */
static void healthy_baseline(void **st)
{
	uint64_t m;
	(void)st;
	boot(SF_NONE);
	unmask_lvt();
	run_basic(10, 10, PMU_F_INT);
	assert_int_equal(pmis, 1);
	assert_int_equal(ovf_mask(), 1);
	assert_int_equal(p.drv[0], 0);
	assert_int_equal(ctr(C_INSTR), 33);
	assert_int_equal(p.ops->pmi_collect(&p, &m), 0);
	assert_int_equal(m, 1);
	assert_int_equal(ovf_mask(), 0);
	boot(SF_NONE);
	run_basic(1000, 100, 0);
	assert_int_equal(ctr(C_CYCLES), (0 - 900ull) & MASK40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(describe),
	    cmocka_unit_test(emon_clear_is_absent),
	    cmocka_unit_test(probe_on_nopmu),
	    cmocka_unit_test(program_escr_then_cccr),
	    cmocka_unit_test(binding_refused),
	    cmocka_unit_test(generic_events),
	    cmocka_unit_test(counts_through_binding),
	    cmocka_unit_test(cccr1_erratum),
	    cmocka_unit_test(read_write_40bit),
	    cmocka_unit_test(start_stop),
	    cmocka_unit_test(overflow_at_n),
	    cmocka_unit_test(sticky_until_ack),
	    cmocka_unit_test(unflagged_overflow),
	    cmocka_unit_test(pmi_and_collect),
	    cmocka_unit_test(reset_clears),
	    cmocka_unit_test(healthy_baseline),
	    cmocka_unit_test(faults_change_results),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
