/* The intel-arch driver against the simulated yonah (v1), core2 (v2) and
 * skylake (v4) (SDM Vol. 3B 20.2, Linux intel/core.c): CPUID.0AH decoding,
 * the three write paths, per-counter and global enables, status-register and
 * sign-bit overflow, the PMI loop, STATUS_SET, and every injected fault
 * changing what the driver reports. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
/* clang-format on */

#include "sim_drv.h"
#include "../../pmu/cpuid.h"

/* Replaces CPUID.0AH of the running model (before cpu_identify). */
static void set_leaf0a(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	sim_set_cpuid(&sim, CPUID_LEAF_PERFMON, 0, a, b, c, d);
}

static struct pmu *reattach(void)
{
	cpu_identify(&drv_ci);
	pmu_attach(&drv_p, &drv_ci);
	return &drv_p;
}

static unsigned find_msr(const struct pmu_msr_desc *d, size_t n, uint32_t addr)
{
	for (unsigned i = 0; i < n; i++)
		if (d[i].addr == addr)
			return i;
	fail_msg("MSR 0x%x not listed", addr);
	return 0;
}

/* ---- identification ------------------------------------------------------- */

static void describe_yonah(void **st)
{
	(void)st;
	struct pmu *p = drv_up("yonah", SF_NONE);
	struct pmu_msr_desc d[32];
	size_t n;

	assert_string_equal(p->ops->name, "intel-arch");
	assert_int_equal(p->version, 1);
	assert_int_equal(p->n_gp, 2);
	assert_int_equal(p->n_fixed, 0);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(p->ctr[i].width, 40);
		assert_int_equal(p->ctr[i].preload_bits, 32);
		assert_true(p->ctr[i].sign_extends);
		assert_int_equal(p->ctr[i].ctr_msr, 0xc1 + i);
		assert_int_equal(p->ctr[i].ctl_msr, 0x186 + i);
		assert_int_equal(p->ctr[i].full_msr, 0);
	}
	assert_int_equal(p->caps & ~PMU_CAP_RDPMC, PMU_CAP_SIGN_OVERFLOW | PMU_CAP_EDGE_INV_CMASK);
	assert_int_equal(p->global_ctrl_msr | p->global_status_msr | p->global_ovf_msr |
			     p->global_status_set_msr,
			 0);
	assert_int_equal(p->pmi_flags, PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE);
	n = p->ops->msrs(p, d, 32);
	assert_int_equal(n, 4);
	assert_int_equal(d[find_msr(d, n, 0x186)].rw_mask & EVTSEL_ANY, 0); /* ANY needs v3 */
	assert_int_equal(drv_ai.mode, APIC_MODE_XAPIC);
}

static void describe_core2(void **st)
{
	(void)st;
	struct pmu *p = drv_up("core2", SF_NONE);
	struct pmu_msr_desc d[32];
	size_t n;

	assert_int_equal(p->version, 2);
	assert_int_equal(p->n_gp, 2);
	assert_int_equal(p->n_fixed, 3);
	assert_int_equal(p->n, 5);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(p->ctr[i].width, 40);
		assert_int_equal(p->ctr[i].preload_bits, 32);
		assert_int_equal(p->ctr[i].full_msr, 0);
	}
	for (unsigned i = 0; i < 3; i++) {
		const struct pmu_counter *c = &p->ctr[2 + i];
		char name[16];
		snprintf(name, sizeof(name), "fixed%u", i);
		assert_int_equal(c->kind, PMU_CTR_FIXED);
		assert_int_equal(c->index, i);
		assert_int_equal(c->width, 40);
		assert_int_equal(c->preload_bits, 40);
		assert_false(c->sign_extends);
		assert_int_equal(c->ctr_msr, 0x309 + i);
		assert_int_equal(c->ctl_msr, 0x38d);
		assert_int_equal(c->rdpmc, (1u << 30) | i);
		assert_string_equal(c->name, name);
	}
	assert_int_equal(p->caps & ~PMU_CAP_RDPMC, PMU_CAP_GLOBAL_CTRL | PMU_CAP_STATUS_REG |
						       PMU_CAP_FIXED | PMU_CAP_EDGE_INV_CMASK |
						       PMU_CAP_FREEZE_PMI);
	assert_int_equal(p->global_ctrl_msr, 0x38f);
	assert_int_equal(p->global_status_msr, 0x38e);
	assert_int_equal(p->global_ovf_msr, 0x390);
	assert_int_equal(p->global_status_set_msr, 0);
	assert_int_equal(p->pmi_flags, PMU_PMI_AUTOMASK | PMU_PMI_UNMASK_LATE);
	assert_int_equal(pmu_max_period(p, 0), 1ull << 31);
	assert_int_equal(pmu_max_period(p, 3), 1ull << 39);
	n = p->ops->msrs(p, d, 32);
	assert_int_equal(n, 2 * 2 + 3 + 1 + 3);
	assert_int_equal(d[find_msr(d, n, 0x38f)].rw_mask, 0x700000003ull);
	assert_int_equal(d[find_msr(d, n, 0x38d)].rw_mask, 0xbbbull);
	assert_int_equal(d[find_msr(d, n, 0x38e)].access, PMU_MSR_RO);
	assert_int_equal(d[find_msr(d, n, 0x390)].access, PMU_MSR_WO);
	assert_int_equal(d[find_msr(d, n, 0x30b)].rw_mask, 0xffffffffffull);
}

static void describe_skylake(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);
	struct pmu_msr_desc d[32];
	size_t n;

	assert_int_equal(p->version, 4);
	assert_int_equal(p->n_gp, 4);
	assert_int_equal(p->n_fixed, 3);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(p->ctr[i].width, 48);
		assert_int_equal(p->ctr[i].preload_bits, 48);
		assert_true(p->ctr[i].sign_extends); /* the 0xC1 path still does */
		assert_int_equal(p->ctr[i].full_msr, 0x4c1 + i);
		assert_int_equal(p->ctr[i].rdpmc, i);
	}
	for (unsigned i = 4; i < 7; i++)
		assert_int_equal(p->ctr[i].width, 48);
	assert_int_equal(p->caps & ~PMU_CAP_RDPMC, PMU_CAP_GLOBAL_CTRL | PMU_CAP_STATUS_REG |
						       PMU_CAP_FIXED | PMU_CAP_STATUS_SET |
						       PMU_CAP_FULL_WIDTH | PMU_CAP_EDGE_INV_CMASK |
						       PMU_CAP_FREEZE_PMI | PMU_CAP_FREEZE_CTR_FRZ);
	assert_int_equal(p->global_status_set_msr, 0x391);
	assert_int_equal(pmu_max_period(p, 0), 1ull << 47);
	n = p->ops->msrs(p, d, 32);
	assert_int_equal(n, 4 * 3 + 3 + 1 + 3 + 1 + 1);
	assert_int_equal(d[find_msr(d, n, 0x4c3)].rw_mask, 0xffffffffffffull);
	assert_int_equal(d[find_msr(d, n, 0x345)].access, PMU_MSR_RO);
	assert_int_equal(d[find_msr(d, n, 0x391)].access, PMU_MSR_WO);
	assert_int_equal(d[find_msr(d, n, 0x38f)].rw_mask, 0x70000000full);
	assert_int_equal(d[find_msr(d, n, 0x38d)].rw_mask, 0xfffull); /* AnyThread v3+ */
	/* a short buffer is filled, never overrun */
	assert_int_equal(p->ops->msrs(p, d, 5), 3);
	/* x2APIC mode, as the model's firmware left it */
	assert_int_equal(drv_ai.mode, APIC_MODE_X2APIC);
	assert_true(drv_ci.x2apic_capable);
}

/* Linux intel_pmu_init's fixed-counter count: v2-v4 at least 3 on bare metal, as-is under
 * a hypervisor; v5 takes the ECX bitmask; width falls back to the GP one. */
static void fixed_counter_count(void **st)
{
	(void)st;
	struct pmu *p;

	assert_int_equal(sim_start("core2", SF_NONE), 0);
	set_leaf0a(0x07280202, 0, 0, 0);
	p = reattach();
	assert_int_equal(p->n_fixed, 3);
	assert_int_equal(p->ctr[2].width, 40);

	assert_int_equal(sim_start("core2", SF_NONE), 0);
	set_leaf0a(0x07280202, 0, 0, 0);
	struct cpuid_regs r;
	hw_cpuid(1, 0, &r);
	sim_set_cpuid(&sim, 1, 0, r.eax, r.ebx, r.ecx | CPUID_1_ECX_HYPERVISOR, r.edx);
	p = reattach();
	assert_int_equal(p->n_fixed, 0);
	assert_int_equal(p->caps & PMU_CAP_FIXED, 0);

	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	set_leaf0a(0x07300405, 0, 0xb, 0x600); /* v5, fixed 0, 1, 3 by bitmask */
	p = reattach();
	assert_int_equal(p->version, 5);
	assert_int_equal(p->n_fixed, 3);
	assert_int_equal(p->ctr[4].index, 0);
	assert_int_equal(p->ctr[5].index, 1);
	assert_int_equal(p->ctr[6].index, 3);
	assert_string_equal(p->ctr[6].name, "fixed3");
	assert_int_equal(p->ctr[6].ctr_msr, 0x30c);
	assert_int_equal(p->ctr[6].rdpmc, (1u << 30) | 3);

	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	set_leaf0a(0x06300404, 0, 0, 0x603); /* mask length 6: Linux gives up */
	p = reattach();
	assert_int_equal(p->status, PMU_ABSENT);
	assert_non_null(strstr(p->reason, "mask length"));
}

/* EBX: a set bit makes that architectural event unavailable (SDM Vol. 3B 20.2.1.2). */
static void unavailable_events(void **st)
{
	(void)st;
	struct pmu *p;
	struct pmu_event ev;

	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	set_leaf0a(0x07300404, (1u << 1) | (1u << 5) | (1u << 2), 0, 0x603);
	p = reattach();
	assert_int_equal(p->status, PMU_FUNCTIONAL);
	assert_int_equal(p->arch_ebx, 0x26);
	assert_int_equal(p->ops->generic_event(p, GEN_INSTRUCTIONS, 0, &ev), HW_UNSUPPORTED);
	assert_int_equal(p->ops->generic_event(p, GEN_BRANCHES, 1, &ev), HW_UNSUPPORTED);
	/* no GP encoding for ref-cycles whatever EBX says (Linux perf_event.h) */
	assert_int_equal(p->ops->generic_event(p, GEN_REF_CYCLES, 2, &ev), HW_REFUSED);
	assert_int_equal(p->ops->generic_event(p, GEN_CYCLES, 0, &ev), 0);
	assert_int_equal(p->ops->generic_event(p, GEN_BRANCH_MISSES, 0, &ev), 0);
	/* fixed counters are enumerated by EDX, not EBX */
	assert_int_equal(p->ops->generic_event(p, GEN_INSTRUCTIONS, 4, &ev), 0);
}

static void generic_events(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);
	struct pmu_event ev;
	static const struct drv_gen_enc map[] = {
	    {GEN_CYCLES, 0x003c},	 {GEN_INSTRUCTIONS, 0x00c0}, {GEN_BRANCHES, 0x00c4},
	    {GEN_BRANCH_MISSES, 0x00c5}, {GEN_CACHE_REFS, 0x4f2e},   {GEN_CACHE_MISSES, 0x412e}};
	drv_check_gen_map(p, map, sizeof(map) / sizeof(map[0]), 3);
	/* ref-cycles is fixed counter 2's pseudo-encoding 0x0300 alone (facts
	 * §4); 0x013c on a GP counter is Linux's bus-cycles */
	assert_int_equal(p->ops->generic_event(p, GEN_REF_CYCLES, 3, &ev), HW_REFUSED);
	/* fixed0 instructions, fixed1 cycles, fixed2 ref-cycles, nothing else */
	static const enum pmu_generic fixed_g[3] = {GEN_INSTRUCTIONS, GEN_CYCLES, GEN_REF_CYCLES};
	static const uint16_t fixed_enc[3] = {0x00c0, 0x003c, 0x0300};
	for (unsigned f = 0; f < 3; f++) {
		for (unsigned g = 0; g < GEN_COUNT; g++) {
			int rc = p->ops->generic_event(p, (enum pmu_generic)g, 4 + f, &ev);
			if (g != fixed_g[f]) {
				assert_int_equal(rc, HW_REFUSED);
				continue;
			}
			assert_int_equal(rc, 0);
			assert_int_equal(ev.umask << 8 | ev.code, fixed_enc[f]);
			assert_int_equal(ev.counters, 1u << (4 + f));
			assert_int_equal(ev.fixed_only, f == 2);
		}
	}
}

/* ---- write paths ----------------------------------------------------------- */

static void legacy_write_sign_extends(void **st)
{
	(void)st;
	static const char *const models[] = {"yonah", "core2", "skylake"};
	for (unsigned m = 0; m < 3; m++) {
		struct pmu *p = drv_up(models[m], SF_NONE);
		uint64_t w = pmu_width_mask(p->ctr[0].width);
		const struct {
			uint64_t in, out;
		} cases[] = {
		    {0x7fffffff, 0x7fffffff},		     /* below 2^31 */
		    {0x80000000, 0xffffffff80000000ull & w}, /* at 2^31 */
		    {0xffffffff, w},
		    {0xff0123456789ull, 0x23456789}, /* upper bits are not written */
		    {0xffffffff87654321ull, 0xffffffff87654321ull & w},
		};
		for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			assert_int_equal(p->ops->write(p, 1, cases[i].in, PMU_WRITE_LEGACY), 0);
			assert_int_equal(drv_read(p, 1), cases[i].out);
			assert_int_equal(drv_msr(0xc2), cases[i].out);
		}
	}
}

static void full_width_write(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);
	uint64_t v;

	assert_int_equal(p->ops->write(p, 2, 0x123456789abcull, PMU_WRITE_FULL), 0);
	assert_int_equal(drv_read(p, 2), 0x123456789abcull);
	assert_int_equal(drv_msr(0x4c3), 0x123456789abcull);
	assert_int_equal(p->ops->write(p, 2, 0x00007fff00000000ull, PMU_WRITE_FULL), 0);
	assert_int_equal(drv_read(p, 2), 0x00007fff00000000ull); /* no sign extension */
	assert_int_equal(p->ops->write(p, 2, 0xffff123456789abcull, PMU_WRITE_FULL), 0);
	assert_int_equal(drv_read(p, 2), 0x123456789abcull); /* width-masked */
	/* the preload path takes the full width too: -2^40 */
	assert_int_equal(pmu_preload(p, 0, 1ull << 40), 0);
	assert_int_equal(drv_read(p, 0), 0xff0000000000ull);
	assert_int_equal(p->armed & 1, 1);
	assert_int_not_equal(pmu_preload(p, 0, (1ull << 47) + 1), 0);

	/* core2 and yonah have no 0x4C1 alias: a full write is refused */
	p = drv_up("core2", SF_NONE);
	assert_int_not_equal(p->ops->write(p, 0, 0x123456789ull, PMU_WRITE_FULL), 0);
	assert_int_equal(hw_rdmsr(0x4c1, &v), HW_FAULT_GP);
	assert_int_equal(hw_rdmsr(0x345, &v), HW_FAULT_GP); /* no PDCM, no PERF_CAPABILITIES */
	assert_int_equal(pmu_preload(p, 0, 1ull << 31), 0);
	assert_int_equal(drv_read(p, 0), 0xff80000000ull);
}

/* Fixed counters take the full width on every path (kvm-unit-tests x86/pmu.c). */
static void fixed_full_width(void **st)
{
	(void)st;
	static const char *const models[] = {"core2", "skylake"};
	for (unsigned m = 0; m < 2; m++) {
		struct pmu *p = drv_up(models[m], SF_NONE);
		unsigned f = p->n_gp + 1;
		uint64_t w = pmu_width_mask(p->ctr[f].width);
		static const enum pmu_write_path paths[3] = {PMU_WRITE_LEGACY, PMU_WRITE_FULL,
							     PMU_WRITE_PRELOAD};
		for (unsigned k = 0; k < 3; k++) {
			assert_int_equal(p->ops->write(p, f, 0x0000001234567890ull, paths[k]), 0);
			assert_int_equal(drv_read(p, f), 0x1234567890ull & w);
			assert_int_equal(drv_msr(0x30a), 0x1234567890ull & w);
			assert_int_equal(p->ops->write(p, f, 0x0000000080000000ull, paths[k]), 0);
			assert_int_equal(drv_read(p, f), 0x80000000ull);
		}
		assert_int_equal(pmu_max_period(p, f), 1ull << (p->ctr[f].width - 1));
	}
}

static void rdpmc_encoding(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);
	uint64_t v;

	assert_true(p->caps & PMU_CAP_RDPMC);
	assert_int_equal(p->ops->write(p, 5, 0xabcd12345678ull, PMU_WRITE_LEGACY), 0);
	assert_int_equal(p->ops->write(p, 1, 0x1111, PMU_WRITE_LEGACY), 0);
	assert_int_equal(hw_rdpmc(p->ctr[5].rdpmc, &v), HW_OK);
	assert_int_equal(v, 0xabcd12345678ull);
	assert_int_equal(hw_rdpmc((1u << 30) | 1, &v), HW_OK);
	assert_int_equal(v, 0xabcd12345678ull);
	assert_int_equal(hw_rdpmc(1, &v), HW_OK); /* GP 1, not fixed 1 */
	assert_int_equal(v, 0x1111);
	/* ECX[31], the fast read, is reserved on arch perfmon (SDM Vol. 2B RDPMC) */
	assert_int_equal(hw_rdpmc((1u << 31) | (1u << 30) | 1, &v), HW_FAULT_GP);
	assert_int_equal(hw_rdpmc((1u << 30) | 3, &v), HW_FAULT_GP);
	assert_int_equal(hw_rdpmc(4, &v), HW_FAULT_GP);

	drv_up("yonah", SF_NONE); /* v1: no fixed counters to read */
	assert_int_equal(hw_rdpmc(1u << 30, &v), HW_FAULT_GP);
}

/* ---- programming and enables ---------------------------------------------- */

static void program_encodings(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);
	struct pmu_event ev;

	drv_program(p, 2, GEN_BRANCHES, PMU_F_OS | PMU_F_USR | PMU_F_INT | PMU_F_CMASK(1));
	assert_int_equal(drv_msr(0x188), 0x011300c4ull); /* EN clear until start */
	drv_program(p, 5, GEN_CYCLES, PMU_F_OS | PMU_F_INT);
	drv_program(p, 4, GEN_INSTRUCTIONS, PMU_F_USR);
	assert_int_equal(drv_msr(0x38d), 0); /* fixed fields stay off until start */
	assert_int_equal(p->ops->start(p, 0x30), 0);
	assert_int_equal(drv_msr(0x38d), 0x92); /* fixed0 USR, fixed1 OS|PMI */
	assert_int_equal(drv_msr(0x38f), 0x300000000ull);
	/* a fixed counter accepts only its own event */
	assert_int_equal(p->ops->generic_event(p, GEN_CYCLES, 0, &ev), 0);
	assert_int_not_equal(p->ops->program(p, 4, &ev, PMU_F_OS), 0);
	/* the ref-cycles pseudo event cannot go on a GP counter */
	assert_int_equal(p->ops->generic_event(p, GEN_REF_CYCLES, 6, &ev), 0);
	assert_int_not_equal(p->ops->program(p, 0, &ev, PMU_F_OS), 0);
	assert_int_equal(p->ops->program(p, 6, &ev, PMU_F_OS), 0);
	/* reprogramming a fixed counter stops it */
	drv_program(p, 5, GEN_CYCLES, PMU_F_OS);
	assert_int_equal(drv_msr(0x38d), 0x02);
}

/* v1: each counter has its own EN; no global registers (SDM Vol. 3B 20.2.1). */
static void v1_enable_bits(void **st)
{
	(void)st;
	struct pmu *p = drv_up("yonah", SF_NONE);
	uint64_t v;

	assert_int_equal(hw_rdmsr(0x38f, &v), HW_FAULT_GP);
	drv_program(p, 0, GEN_CYCLES, PMU_F_OS);
	drv_program(p, 1, GEN_CYCLES, PMU_F_OS);
	assert_int_equal(p->ops->start(p, 2), 0);
	assert_int_equal(drv_msr(0x186) & EVTSEL_EN, 0);
	assert_int_equal(drv_msr(0x187), EVTSEL_EN | 0x2003c);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(drv_read(p, 0), 0);
	assert_int_equal(drv_read(p, 1), 100);
	assert_int_equal(p->ops->start(p, 1), 0);
	assert_int_equal(p->ops->stop(p, 2), 0);
	assert_int_equal(drv_msr(0x187), 0x2003c);
	hw_run_workload(&wl_loop, 7);
	assert_int_equal(drv_read(p, 0), 7);
	assert_int_equal(drv_read(p, 1), 100);
}

/* v2+: start sets EN and GLOBAL_CTRL; stop clears only GLOBAL_CTRL. */
static void global_enable(void **st)
{
	(void)st;
	struct pmu *p = drv_up("core2", SF_NONE);

	drv_program(p, 0, GEN_CYCLES, PMU_F_OS);
	drv_program(p, 1, GEN_BRANCHES, PMU_F_OS);
	drv_program(p, 2, GEN_INSTRUCTIONS, PMU_F_OS);
	drv_program(p, 3, GEN_CYCLES, PMU_F_OS);
	drv_program(p, 4, GEN_REF_CYCLES, PMU_F_OS);
	assert_int_equal(p->ops->start(p, 0x1f), 0);
	assert_int_equal(drv_msr(0x38f), 0x700000003ull);
	assert_int_equal(drv_msr(0x38d), 0x111);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(drv_read(p, 0), 1000);
	assert_int_equal(drv_read(p, 1), 1002);
	assert_int_equal(drv_read(p, 2), 3003);
	assert_int_equal(drv_read(p, 3), 1000);
	assert_int_equal(drv_read(p, 4), 1000);
	assert_int_equal(p->ops->stop(p, 0x09), 0);
	assert_int_equal(drv_msr(0x38f), 0x500000002ull);
	assert_int_equal(drv_msr(0x186) & EVTSEL_EN, 0); /* EN cleared after the global bit */
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(drv_read(p, 0), 1000);
	assert_int_equal(drv_read(p, 3), 1000);
	assert_int_equal(drv_read(p, 2), 3036);
	/* USR-only counts nothing in ring 0 */
	drv_program(p, 0, GEN_CYCLES, PMU_F_USR);
	assert_int_equal(p->ops->start(p, 1), 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(drv_read(p, 0), 1000);
}

/* ---- overflow ---------------------------------------------------------------- */

static void overflow_exact(void **st)
{
	(void)st;
	static const char *const models[] = {"yonah", "core2", "skylake"};
	for (unsigned m = 0; m < 3; m++) {
		struct pmu *p = drv_up(models[m], SF_NONE);
		for (unsigned c = 0; c < p->n; c++) {
			if (p->ctr[c].kind == PMU_CTR_FIXED && p->ctr[c].index == 0)
				continue; /* instructions: not one per iteration */
			bool ref = p->ctr[c].kind == PMU_CTR_FIXED && p->ctr[c].index == 2;
			drv_program(p, c, ref ? GEN_REF_CYCLES : GEN_CYCLES, PMU_F_OS);
			const uint64_t ns[] = {1, 2, 1000, pmu_max_period(p, c)};
			for (unsigned i = 0; i < 4; i++)
				drv_overflow_at(p, c, ns[i]);
		}
	}
}

static void status_register(void **st)
{
	(void)st;
	struct pmu *p = drv_up("core2", SF_NONE);

	drv_program(p, 1, GEN_CYCLES, PMU_F_OS);
	drv_program(p, 3, GEN_CYCLES, PMU_F_OS);
	assert_int_equal(pmu_preload(p, 1, 10), 0);
	assert_int_equal(pmu_preload(p, 3, 20), 0);
	assert_int_equal(p->ops->start(p, 0xa), 0);
	hw_run_workload(&wl_loop, 20);
	assert_int_equal(drv_msr(0x38e), 0x200000002ull); /* PMC1, FIXED1 */
	assert_int_equal(drv_ovf(p), 0xa);
	assert_int_equal(p->ops->ack(p, 2), 0);
	assert_int_equal(drv_msr(0x38e), 0x200000000ull);
	assert_int_equal(drv_ovf(p), 0x8);
	assert_int_equal(p->ops->ack(p, 8), 0);
	assert_int_equal(drv_ovf(p), 0);
}

static void status_set(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);
	uint64_t m = 0;

	assert_int_equal(hw_wrmsr(0x391, (1ull << 2) | (1ull << 32)), HW_OK);
	assert_int_equal(drv_msr(0x38e), (1ull << 2) | (1ull << 32));
	assert_int_equal(drv_ovf(p), (1ull << 2) | (1ull << 4));
	assert_int_equal(p->ops->pmi_collect(p, &m), 0);
	assert_int_equal(m, (1ull << 2) | (1ull << 4));
	assert_int_equal(drv_msr(0x38e), 0);
	assert_int_equal(hw_wrmsr(0x391, 0), HW_OK); /* writing 0 sets nothing */
	assert_int_equal(drv_ovf(p), 0);

	drv_up("core2", SF_NONE); /* v2 has no STATUS_SET */
	assert_int_equal(hw_wrmsr(0x391, 1), HW_FAULT_GP);
}

static void pmi_collect_v2(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);
	uint64_t m = 0;

	drv_program(p, 0, GEN_CYCLES, PMU_F_OS);
	drv_program(p, 5, GEN_CYCLES, PMU_F_OS);
	drv_program(p, 2, GEN_CYCLES, PMU_F_OS);
	assert_int_equal(pmu_preload(p, 0, 5), 0);
	assert_int_equal(pmu_preload(p, 5, 8), 0);
	assert_int_equal(pmu_preload(p, 2, 100), 0);
	assert_int_equal(p->ops->start(p, 0x25), 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(p->ops->pmi_collect(p, &m), 0);
	assert_int_equal(m, 0x21);
	assert_int_equal(drv_msr(0x38f), 0); /* counting stopped */
	assert_int_equal(drv_msr(0x38e), 0); /* every bit acked */
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(drv_read(p, 0), 5);
	assert_int_equal(p->active, 0x25);
	assert_int_equal(p->ops->start(p, p->active), 0); /* resume */
	assert_int_equal(drv_msr(0x38f), 0x200000005ull);
	hw_run_workload(&wl_loop, 90);
	assert_int_equal(p->ops->pmi_collect(p, &m), 0);
	assert_int_equal(m, 0x4);
	assert_int_equal(p->ops->pmi_collect(p, &m), 0);
	assert_int_equal(m, 0);
}

static void pmi_collect_v1(void **st)
{
	(void)st;
	struct pmu *p = drv_up("yonah", SF_NONE);
	uint64_t m = 0;

	drv_cycles_pair(p, 50, 5);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(p->ops->pmi_collect(p, &m), 0);
	assert_int_equal(m, 2);
	assert_int_equal(drv_msr(0x186) & EVTSEL_EN, 0);
	assert_int_equal(drv_msr(0x187) & EVTSEL_EN, 0);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(drv_read(p, 1), 5);
	assert_int_equal(p->ops->start(p, p->active), 0);
	hw_run_workload(&wl_loop, 40);
	assert_int_equal(p->ops->pmi_collect(p, &m), 0);
	assert_int_equal(m, 1);
}

static void pmi_delivery(void **st)
{
	(void)st;
	static const char *const models[] = {"yonah", "core2", "skylake"};
	for (unsigned k = 0; k < 3; k++) {
		struct pmu *p = drv_up(models[k], SF_NONE);
		unsigned c = p->n_fixed ? p->n_gp + 1 : 1;
		drv_pmi_arm();
		drv_program(p, c, GEN_CYCLES, PMU_F_OS | PMU_F_INT);
		drv_program(p, 0, GEN_CYCLES, PMU_F_OS); /* no INT */
		assert_int_equal(pmu_preload(p, c, 100), 0);
		assert_int_equal(pmu_preload(p, 0, 10), 0);
		assert_int_equal(p->ops->start(p, (1ull << c) | 1), 0);
		hw_run_workload(&wl_loop, 99);
		assert_int_equal(drv_pmi.taken, 0);
		hw_run_workload(&wl_loop, 1);
		assert_int_equal(drv_pmi.taken, 1);
		assert_int_equal(drv_pmi.collect_rc, 0);
		assert_int_equal(drv_pmi.collected, (1ull << c) | 1);
		assert_int_equal(drv_pmi.masked_on_entry, 1); /* arch: LVTPC auto-masked */
	}
}

static void reset_clears(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NONE);

	drv_program(p, 0, GEN_CYCLES, PMU_F_OS);
	drv_program(p, 5, GEN_CYCLES, PMU_F_OS);
	assert_int_equal(pmu_preload(p, 0, 3), 0);
	assert_int_equal(pmu_preload(p, 5, 3), 0);
	assert_int_equal(p->ops->start(p, 0x21), 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_not_equal(drv_msr(0x38e), 0);
	assert_int_equal(p->ops->reset(p), 0);
	assert_int_equal(drv_msr(0x38e), 0);
	assert_int_equal(drv_msr(0x38f), 0);
	assert_int_equal(drv_msr(0x38d), 0);
	for (unsigned i = 0; i < p->n; i++)
		assert_int_equal(drv_read(p, i), 0);
	for (unsigned i = 0; i < p->n_gp; i++)
		assert_int_equal(drv_msr(0x186 + i), 0);
	assert_int_equal(p->active | p->armed, 0);
}

/* ---- injected faults ---------------------------------------------------------- */

static void fault_no_sign_extend(void **st)
{
	(void)st;
	static const char *const models[] = {"yonah", "core2", "skylake"};
	for (unsigned k = 0; k < 3; k++) {
		struct pmu *p = drv_up(models[k], SF_NO_SIGN_EXTEND);
		assert_int_equal(p->ops->write(p, 0, 0x80000000, PMU_WRITE_LEGACY), 0);
		assert_int_equal(drv_read(p, 0), 0x80000000);
	}
	/* skylake's preload goes through 0x4C1 and is unaffected */
	struct pmu *p = drv_up("skylake", SF_NO_SIGN_EXTEND);
	assert_int_equal(pmu_preload(p, 0, 1ull << 31), 0);
	assert_int_equal(drv_read(p, 0), 0xffff80000000ull);
}

static void fault_no_overflow_status(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_NO_OVERFLOW_STATUS);
	uint64_t m = 0;
	drv_cycles_at(p, 0, 10, PMU_F_OS);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(drv_read(p, 0), 0); /* it wrapped */
	assert_int_equal(drv_ovf(p), 0);     /* but no status says so */
	assert_int_equal(p->ops->pmi_collect(p, &m), 0);
	assert_int_equal(m, 0);
}

static void fault_ack_ignored(void **st)
{
	(void)st;
	struct pmu *p = drv_up("core2", SF_ACK_IGNORED);
	uint64_t m = 0;
	drv_cycles_at(p, 0, 10, PMU_F_OS);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(p->ops->ack(p, 1), 0);
	assert_int_equal(drv_ovf(p), 1);			/* still pending */
	assert_int_equal(p->ops->pmi_collect(p, &m), HW_STUCK); /* gives up after 100 rounds */
	assert_int_equal(m, 1);
}

static void fault_global_ctrl_ignored(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_GLOBAL_CTRL_IGNORED);
	drv_program(p, 0, GEN_CYCLES, PMU_F_OS);
	assert_int_equal(p->ops->start(p, 1), 0);
	assert_int_equal(hw_wrmsr(0x38f, 0), 0); /* EN set, the global enable clear */
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(drv_read(p, 0), 10); /* healthy: 0 */
}

static void fault_enable_ignored(void **st)
{
	(void)st;
	struct pmu *p = drv_up("yonah", SF_ENABLE_IGNORED);
	drv_program(p, 0, GEN_CYCLES, PMU_F_OS);
	hw_run_workload(&wl_loop, 10); /* never started */
	assert_int_equal(drv_read(p, 0), 10);

	p = drv_up("skylake", SF_ENABLE_IGNORED);
	drv_program(p, 0, GEN_CYCLES, PMU_F_OS);
	assert_int_equal(hw_wrmsr(0x38f, 1), HW_OK); /* global on, EN clear */
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(drv_read(p, 0), 10);
}

static void fault_msr_fault(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_MSR_FAULT);
	uint64_t v;
	assert_int_equal(p->ops->write(p, 1, 1, PMU_WRITE_LEGACY), HW_FAULT_GP);
	assert_int_equal(p->ops->write(p, 1, 1, PMU_WRITE_FULL), HW_FAULT_GP);
	assert_int_equal(p->ops->read(p, 1, &v), HW_FAULT_GP);
	assert_int_equal(p->ops->start(p, 2), HW_FAULT_GP);
	assert_int_equal(p->ops->write(p, 2, 1, PMU_WRITE_FULL), HW_OK);
}

static void fault_counting(void **st)
{
	(void)st;
	struct pmu *p = drv_up("skylake", SF_STUCK_COUNTER);
	drv_program(p, 0, GEN_CYCLES, PMU_F_OS);
	drv_program(p, 1, GEN_CYCLES, PMU_F_OS);
	assert_int_equal(p->ops->start(p, 3), 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(drv_read(p, 0), 0);
	assert_int_equal(drv_read(p, 1), 10);

	p = drv_up("core2", SF_WRONG_EVENT);
	drv_program(p, 0, GEN_INSTRUCTIONS, PMU_F_OS);
	drv_program(p, 2, GEN_INSTRUCTIONS, PMU_F_OS);
	assert_int_equal(p->ops->start(p, 5), 0);
	hw_run_workload(&wl_loop, 10);
	assert_int_equal(drv_read(p, 0), 12); /* branches */
	assert_int_equal(drv_read(p, 2), 12);

	drv_check_overcount("skylake");

	p = drv_up("skylake", SF_NARROW_COUNTER);
	assert_int_equal(p->ops->write(p, 0, 0x123456789abcull, PMU_WRITE_FULL), 0);
	assert_int_equal(drv_read(p, 0), 0x56789abc);
}

static void fault_pmi(void **st)
{
	(void)st;
	drv_check_lost_pmi("skylake");
	drv_check_lvt_stuck_masked("core2");
	drv_pmi_run("yonah", SF_SPURIOUS_PMI);
	assert_int_equal(drv_pmi.taken, 1); /* at the start, before any overflow */
	assert_int_equal(drv_pmi.collected, 0);
}

static void faults_not_applicable(void **st)
{
	(void)st;
	static const char *const models[] = {"yonah", "core2", "skylake"};
	assert_int_equal(sim_start("yonah", SF_NO_OVERFLOW_STATUS), -1);
	assert_int_equal(sim_start("yonah", SF_ACK_IGNORED), -1);
	assert_int_equal(sim_start("yonah", SF_GLOBAL_CTRL_IGNORED), -1);
	for (unsigned k = 0; k < 3; k++) {
		const struct sim_model *m = sim_model_find(models[k]);
		assert_non_null(m);
		for (unsigned f = 1; f < SF_COUNT; f++)
			assert_true((m->faults & SIM_F(f)) || m->fault_na[f]);
	}
	/* core2 has no PERF_CAPABILITIES, so no full-width alias to break,
	 * and no TSX, so no IN_TX */
	assert_int_equal(sim_model_find("core2")->faults | SIM_F(SF_FULL_WIDTH_NO_GP) |
			     SIM_F(SF_IN_TX_IGNORED) | SIM_LBR_FAULTS | SIM_PEBS_FAULTS |
			     SIM_BTS_FAULTS,
			 sim_model_find("skylake")->faults);
	/* skylake: all but the fast RDPMC, reserved on arch perfmon, and other
	 * families' registers (AMD's legacy aliases, KNC's SPFLT), and KVM's
	 * emulation (a guest's, skylake-kvm-fep), and PERF_METRICS (perfmon v5
	 * on: Alder Lake P-cores, Arrow Lake) */
	assert_int_equal(sim_model_find("skylake")->faults | SIM_F(SF_FAST_RDPMC_FULL),
			 (SIM_F(SF_COUNT) - 1) & ~SIM_F(SF_NONE) & ~SIM_F(SF_ALIAS_BROKEN) &
			     ~SIM_F(SF_SPFLT_IGNORED) & ~SIM_F(SF_EMULATED_UNCOUNTED) &
			     ~SIM_F(SF_METRICS_UNSCALED) & ~SIM_IBS_FAULTS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(describe_yonah),
	    cmocka_unit_test(describe_core2),
	    cmocka_unit_test(describe_skylake),
	    cmocka_unit_test(fixed_counter_count),
	    cmocka_unit_test(unavailable_events),
	    cmocka_unit_test(generic_events),
	    cmocka_unit_test(legacy_write_sign_extends),
	    cmocka_unit_test(full_width_write),
	    cmocka_unit_test(fixed_full_width),
	    cmocka_unit_test(rdpmc_encoding),
	    cmocka_unit_test(program_encodings),
	    cmocka_unit_test(v1_enable_bits),
	    cmocka_unit_test(global_enable),
	    cmocka_unit_test(overflow_exact),
	    cmocka_unit_test(status_register),
	    cmocka_unit_test(status_set),
	    cmocka_unit_test(pmi_collect_v2),
	    cmocka_unit_test(pmi_collect_v1),
	    cmocka_unit_test(pmi_delivery),
	    cmocka_unit_test(reset_clears),
	    cmocka_unit_test(fault_no_sign_extend),
	    cmocka_unit_test(fault_no_overflow_status),
	    cmocka_unit_test(fault_ack_ignored),
	    cmocka_unit_test(fault_global_ctrl_ignored),
	    cmocka_unit_test(fault_enable_ignored),
	    cmocka_unit_test(fault_msr_fault),
	    cmocka_unit_test(fault_counting),
	    cmocka_unit_test(fault_pmi),
	    cmocka_unit_test(faults_not_applicable),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
