/* The KVM configurations of host/sim/model_kvm_policy.c and
 * model_kvm_eras.c: each simulated effect against the same access on the
 * KVM guest it differs from (model_kvm.c), so that a test fails when the
 * effect is a no-op. Whole runs are pinned elsewhere (test_hv_verdicts.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../pmu/cpuid.h"

#define DENY   "skylake-kvm-deny"
#define ARCH   "skylake-kvm-arch"
#define DPMI   "skylake-kvm-dpmi"
#define LVTPC  "zen4-kvm-lvtpc"
#define PMUOFF "zen4-kvm-pmuoff"
#define ADL    "alderlake-kvm"
#define SKL    "skylake-kvm"
#define ZEN    "zen4-kvm"

#define SEL_ON	    (EVTSEL_EN | EVTSEL_OS | EVTSEL_USR)
#define CTR_TOP	    ((1ull << 48) - 1)
#define CHASE_LINES 65536 /* 4 MiB of 64-byte lines: past Skylake's L2 */

static void pinned_and_faultless(void **st)
{
	(void)st;
	static const char *const ms[] = {DENY, ARCH, DPMI, LVTPC, PMUOFF, ADL};
	for (unsigned k = 0; k < sizeof(ms) / sizeof(ms[0]); k++) {
		const struct sim_model *m = sim_model_find(ms[k]);
		assert_non_null(m);
		assert_non_null(m->host);
		assert_string_equal(m->pinned_by, "test_hv_verdicts.c");
		assert_int_equal(m->faults, 0);
		for (unsigned f = 1; f < SF_COUNT; f++) {
			assert_non_null(m->fault_na[f]);
			assert_int_equal(sim_start(ms[k], (enum sim_fault)f), -1);
		}
		assert_int_equal(sim_start(ms[k], SF_NONE), 0);
	}
}

/* ---- the PMU event filter -------------------------------------------------- */

/* Counter 0 of model on event sel (unit mask << 8 | code), from preload
 * over n iterations of w: the select is taken without #GP and reads back. */
static uint64_t count_sel(const char *model, uint16_t sel, const struct workload *w, uint64_t n,
			  uint64_t preload)
{
	assert_int_equal(sim_start(model, SF_NONE), 0);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0, sel | SEL_ON), HW_OK);
	assert_int_equal(drv_msr(MSR_P6_EVNTSEL0), sel | SEL_ON);
	assert_int_equal(hw_wrmsr(MSR_IA32_PMC0, preload), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 1), HW_OK);
	hw_run_workload(w, n);
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 0), HW_OK);
	return drv_msr(MSR_IA32_PMC0);
}

static struct wl_args chase_args;
static void *chase_raw;

/* A pointer chase over 4 MiB: LLC references and L2 requests. */
static const struct workload *chase(void)
{
	static struct workload w;
	if (!chase_raw) {
		chase_raw = calloc(1, CHASE_LINES * 64 + 4096);
		assert_non_null(chase_raw);
		chase_args.buf = (void *)(((uintptr_t)chase_raw + 4095) & ~(uintptr_t)4095);
		chase_args.lines = CHASE_LINES;
		chase_args.stride = 64;
		workload_chain(chase_args.buf, CHASE_LINES, 64, 1);
	}
	w = wl_chase;
	w.args = &chase_args;
	return &w;
}

/* A denied event counts nothing and keeps the counter's value; an
 * allowed one counts on the same counter. */
static void deny_list_freezes_counters(void **st)
{
	(void)st;
	assert_true(count_sel(SKL, 0x00c5, &wl_br_random, 1000, 7) > 7);
	assert_int_equal(count_sel(DENY, 0x00c5, &wl_br_random, 1000, 7), 7);
	assert_true(count_sel(SKL, 0x4f2e, chase(), 2, 0) > 0);
	assert_int_equal(count_sel(DENY, 0x4f2e, chase(), 2, 0), 0);
	assert_int_equal(count_sel(DENY, 0x412e, chase(), 2, 5), 5);
	/* the counter counts again once its select names an allowed event */
	uint64_t n = count_sel(DENY, 0x00c4, &wl_br_random, 1000, 0);
	assert_int_equal(n, count_sel(SKL, 0x00c4, &wl_br_random, 1000, 0));
	assert_true(n >= 1000);
}

static unsigned pmis;

static void pmi_count(struct int_frame *f)
{
	(void)f;
	pmis++;
	apic_write(APIC_LVT_PC, VEC_PMI);
	apic_eoi();
}

/* Counter 0 one event from overflow with INT on a denied event: no PMI,
 * no overflow flag; the same select on skylake-kvm overflows. */
static void denied_counter_never_overflows(void **st)
{
	(void)st;
	const char *ms[] = {SKL, DENY};
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(sim_start(ms[k], SF_NONE), 0);
		apic_detect(&drv_ai);
		pmis = 0;
		isr_set_handler(VEC_PMI, pmi_count);
		apic_write(APIC_LVT_PC, VEC_PMI);
		assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0, 0x00c5 | SEL_ON | EVTSEL_INT), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_IA32_PMC0, CTR_TOP), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 1), HW_OK);
		hw_run_workload(&wl_br_random, 1000);
		assert_int_equal(pmis, k ? 0 : 1);
		assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS) & 1, k ? 0 : 1);
		if (k)
			assert_int_equal(drv_msr(MSR_IA32_PMC0), CTR_TOP);
	}
}

/* Fixed counters 0-2 on (OS and USR) over wl_loop: the deny bitmap's
 * fixed counter 2 stays at 0, 0 and 1 count as on skylake-kvm. */
static void fixed_counters(const char *model, uint64_t *v)
{
	assert_int_equal(sim_start(model, SF_NONE), 0);
	assert_int_equal(hw_wrmsr(MSR_FIXED_CTR_CTRL, 0x333), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 7ull << 32), HW_OK);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 0), HW_OK);
	for (unsigned i = 0; i < 3; i++)
		v[i] = drv_msr(MSR_FIXED_CTR0 + i);
}

static void deny_bitmap_stops_fixed_counter_2(void **st)
{
	(void)st;
	uint64_t skl[3], deny[3], arch[3];
	fixed_counters(SKL, skl);
	fixed_counters(DENY, deny);
	fixed_counters(ARCH, arch);
	assert_true(skl[2] > 0);
	assert_int_equal(deny[2], 0);
	assert_int_equal(drv_msr(MSR_FIXED_CTR_CTRL), 0x333); /* taken as written */
	for (unsigned i = 0; i < 3; i++) {
		assert_true(skl[i] > 0);
		assert_int_equal(arch[i], skl[i]); /* the allow bitmap names 0-2 */
		if (i < 2)
			assert_int_equal(deny[i], skl[i]);
	}
}

/* The ARCHITECTURAL allow list: the non-LLC architectural events count,
 * LLC and model-specific events (Skylake's L2_RQSTS) do not. */
static void arch_allows_architectural_non_llc(void **st)
{
	(void)st;
	static const uint16_t ok[] = {0x003c, 0x00c0, 0x013c, 0x00c4, 0x00c5};
	for (unsigned k = 0; k < sizeof(ok) / sizeof(ok[0]); k++)
		assert_int_equal(count_sel(ARCH, ok[k], &wl_br_random, 1000, 0),
				 count_sel(SKL, ok[k], &wl_br_random, 1000, 0));
	assert_true(count_sel(SKL, 0x4f2e, chase(), 2, 0) > 0);
	assert_int_equal(count_sel(ARCH, 0x4f2e, chase(), 2, 0), 0);
	assert_true(count_sel(SKL, 0xe124, chase(), 2, 0) > 0);
	assert_int_equal(count_sel(ARCH, 0xe124, chase(), 2, 3), 3);
	assert_int_equal(count_sel(DENY, 0xe124, chase(), 2, 0),
			 count_sel(SKL, 0xe124, chase(), 2, 0));
}

static void read_sig(uint32_t leaf, uint32_t *eax, char sig[13])
{
	struct cpuid_regs r;
	hw_cpuid(leaf, 0, &r);
	*eax = r.eax;
	memcpy(sig, &r.ebx, 4);
	memcpy(sig + 4, &r.ecx, 4);
	memcpy(sig + 8, &r.edx, 4);
	sig[12] = 0;
}

/* QEMU's hv-* leaves first, KVM's moved to 4000_0100h. */
static void hyperv_leaves_then_kvm(void **st)
{
	(void)st;
	struct cpuid_regs r;
	uint32_t eax;
	char sig[13];
	assert_int_equal(sim_start(DENY, SF_NONE), 0);
	read_sig(0x40000000u, &eax, sig);
	assert_string_equal(sig, "Microsoft Hv");
	assert_int_equal(eax, 0x40000005u);
	hw_cpuid(0x40000001u, 0, &r);
	assert_memory_equal(&r.eax, "Hv#1", 4);
	hw_cpuid(0x40000002u, 0, &r);
	assert_int_equal(r.eax, 0x3839);
	assert_int_equal(r.ebx, 0x000a0000u);
	read_sig(0x40000100u, &eax, sig);
	assert_memory_equal(sig, "KVMKVMKVM\0\0\0", 12);
	assert_int_equal(eax, 0x40000101u);
	/* plain KVM: its own leaves first, nothing at 4000_0100h */
	assert_int_equal(sim_start(SKL, SF_NONE), 0);
	read_sig(0x40000000u, &eax, sig);
	assert_memory_equal(sig, "KVMKVMKVM\0\0\0", 12);
	read_sig(0x40000100u, &eax, sig);
	assert_int_equal(eax, 0);
}

/* ---- LVTPC masked on every PMI, AMD too -------------------------------------- */

static unsigned lvt_pmis;

static void lvt_keep(struct int_frame *f)
{
	(void)f;
	lvt_pmis++;
	apic_eoi(); /* LVTPC left as the APIC made it */
}

/* Counter 0 overflows on cycles (INT) after 100 loop iterations. */
static void overflow_once(struct pmu *p)
{
	assert_int_equal(p->ops->ack(p, 1), 0);
	assert_int_equal(pmu_preload(p, 0, 100), 0);
	assert_int_equal(p->ops->start(p, 1), 0);
	hw_run_workload(&wl_loop, 100);
	assert_int_equal(p->ops->stop(p, 1), 0);
}

static void lvtpc_masked_until_unmasked(void **st)
{
	(void)st;
	const char *ms[] = {ZEN, LVTPC};
	for (unsigned k = 0; k < 2; k++) {
		struct pmu *p = drv_up(ms[k], SF_NONE);
		lvt_pmis = 0;
		isr_set_handler(VEC_PMI, lvt_keep);
		apic_write(APIC_LVT_PC, VEC_PMI);
		drv_program(p, 0, GEN_CYCLES, PMU_F_OS | PMU_F_INT);
		overflow_once(p);
		assert_int_equal(lvt_pmis, 1);
		assert_int_equal(apic_read(APIC_LVT_PC) & LVT_MASKED, k ? LVT_MASKED : 0);
		overflow_once(p); /* masked: the APIC drops it */
		assert_int_equal(lvt_pmis, k ? 1 : 2);
		assert_int_equal(sim.st.pmi_dropped, k);
		apic_write(APIC_LVT_PC, VEC_PMI);
		overflow_once(p);
		assert_int_equal(lvt_pmis, k ? 2 : 3);
	}
}

/* What the older releases did at RESET and on RDPMC (6.9 changed both). */
static void older_releases_reset_and_rdpmc(void **st)
{
	(void)st;
	uint64_t v = 0;
	assert_int_equal(sim_start(SKL, SF_NONE), 0);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_CTRL), 0xf);
	assert_int_equal(hw_rdpmc(1u << 31, &v), HW_FAULT_GP);
	assert_int_equal(sim_start(DPMI, SF_NONE), 0);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_CTRL), 0);
	assert_int_equal(hw_wrmsr(MSR_IA32_PMC0, 0x123456789ull), HW_OK);
	assert_int_equal(hw_rdpmc(1u << 31, &v), HW_OK);
	assert_int_equal(v, 0x23456789u);
	assert_int_equal(hw_rdpmc(1u << 29, &v), HW_FAULT_GP);

	assert_int_equal(sim_start(ZEN, SF_NONE), 0);
	assert_int_equal(drv_msr(MSR_AMD_GLOBAL_CTL), 0x3f);
	assert_int_equal(hw_rdpmc(1u << 30, &v), HW_FAULT_GP);
	assert_int_equal(sim_start(LVTPC, SF_NONE), 0);
	assert_int_equal(drv_msr(MSR_AMD_GLOBAL_CTL), 0);
	assert_int_equal(hw_wrmsr(MSR_F15H_PERF_CTR0 + 2, 0x123456789ull), HW_OK);
	assert_int_equal(hw_rdpmc(1u << 30 | 1, &v), HW_OK);
	assert_int_equal(v, 0x123456789ull);
	assert_int_equal(hw_rdpmc(1u << 31 | 1, &v), HW_OK);
	assert_int_equal(v, 0x23456789u);
}

/* ---- two PMIs for one overflow ---------------------------------------------- */

static unsigned taken;

static void nmi_taken(struct int_frame *f)
{
	(void)f;
	taken++;
}

static void fixed_taken(struct int_frame *f)
{
	(void)f;
	taken++;
	apic_eoi();
}

/* Counter 0 on event ev (INT) overflows inside wl_loop; its PMI, delayed
 * by a skid of skid instructions (0: none), is still on its way when the
 * guest's next RDMSR exits. KVM emulates instructions (realism overhead).
 * The PMIs taken, NMI or fixed delivery. */
static unsigned pmis_for_one_overflow(const char *model, uint16_t ev, uint64_t skid, bool nmi)
{
	uint64_t v;
	assert_int_equal(sim_start_real(model, SF_NONE, 1u << SE_OVERHEAD, 1), 0);
	apic_detect(&drv_ai);
	taken = 0;
	isr_set_handler(VEC_NMI, nmi_taken);
	isr_set_handler(VEC_PMI, fixed_taken);
	apic_write(APIC_LVT_PC, nmi ? LVT_DM_NMI : VEC_PMI);
	sim_set_skid(skid);
	assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0, ev | EVTSEL_EN | EVTSEL_OS | EVTSEL_INT), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_IA32_PMC0, (1ull << 48) - 500), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 1), HW_OK);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(hw_rdmsr(MSR_PERF_GLOBAL_STATUS, &v), HW_OK);
	sim_set_skid(0);
	hw_relax(); /* time passes: a PMI still on its way arrives */
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_CTRL, 0), HW_OK);
	assert_int_equal(sim.st.pmi_raised, taken);
	return taken;
}

/* Two only where the bug was: the host takes the PMI during an exit that
 * emulates an instruction the overflowed counter counts, and LVTPC sends
 * NMIs. */
static void duplicate_pmi_only_under_the_bug(void **st)
{
	(void)st;
	const uint64_t late = 1000000; /* the PMI outlives the workload */
	assert_int_equal(pmis_for_one_overflow(DPMI, 0x00c0, late, true), 2);
	assert_int_equal(pmis_for_one_overflow(SKL, 0x00c0, late, true), 1);
	/* the PMI lands while the guest runs: KVM syncs the counter first */
	assert_int_equal(pmis_for_one_overflow(DPMI, 0x00c0, 0, true), 1);
	/* cycles: the emulated instruction does not bump the counter */
	assert_int_equal(pmis_for_one_overflow(DPMI, 0x003c, late, true), 1);
	/* a fixed vector: both requests meet in IRR before the guest runs */
	assert_int_equal(pmis_for_one_overflow(DPMI, 0x00c0, late, false), 1);
}

/* ---- pmu=off on AMD: the legacy counters still count ----------------------------- */

static void pmuoff_cpuid_says_no_core_extension(void **st)
{
	(void)st;
	struct cpuid_regs r;
	assert_int_equal(sim_start(PMUOFF, SF_NONE), 0);
	cpu_identify(&drv_ci);
	assert_true(drv_ci.hypervisor);
	assert_int_equal(drv_ci.driver, PMU_DRV_AMD_LEGACY);
	hw_cpuid(CPUID_LEAF_AMD_FEATURES, 0, &r);
	assert_int_equal(r.ecx & (1u << 23), 0);
	hw_cpuid(CPUID_LEAF_EXT_MAX, 0, &r);
	assert_int_equal(r.eax, 0x8000001eu);
	hw_cpuid(CPUID_LEAF_AMD_PERFMON, 0, &r);
	assert_int_equal(r.eax & 1, 0);
	hw_cpuid(1, 0, &r);
	assert_int_equal(r.eax, sim_fms(0x17, 1, 2));
	assert_int_equal(sim_start(ZEN, SF_NONE), 0);
	hw_cpuid(CPUID_LEAF_AMD_FEATURES, 0, &r);
	assert_int_equal(r.ecx & (1u << 23), 1u << 23);
}

static void pmuoff_legacy_counters_count(void **st)
{
	(void)st;
	uint64_t v;
	assert_int_equal(sim_start(PMUOFF, SF_NONE), 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(hw_wrmsr(MSR_K7_PERFCTR0 + i, 0), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_K7_EVNTSEL0 + i, 0xc0 | SEL_ON), HW_OK);
	}
	hw_run_workload(&wl_loop, 1000); /* no global enable to set */
	for (unsigned i = 0; i < 4; i++) {
		assert_true(drv_msr(MSR_K7_PERFCTR0 + i) >= 2000);
		assert_int_equal(hw_rdpmc(i, &v), HW_OK);
	}
	assert_int_equal(hw_rdpmc(4, &v), HW_FAULT_GP);
	assert_int_equal(hw_rdmsr(MSR_F15H_PERF_CTL0, &v), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_F15H_PERF_CTL0, 0), HW_FAULT_GP);
	assert_int_equal(hw_rdmsr(MSR_F15H_PERF_CTR0 + 10, &v), HW_FAULT_GP);
	assert_int_equal(hw_rdmsr(MSR_AMD_GLOBAL_CTL, &v), HW_FAULT_GP);
	assert_int_equal(hw_wrmsr(MSR_AMD_GLOBAL_STATUS_CLR, 1), HW_FAULT_GP);
	/* zen4-kvm serves the core extension and PerfMonV2 */
	assert_int_equal(sim_start(ZEN, SF_NONE), 0);
	assert_int_equal(hw_rdmsr(MSR_F15H_PERF_CTL0, &v), HW_OK);
	assert_int_equal(hw_rdmsr(MSR_AMD_GLOBAL_CTL, &v), HW_OK);
	assert_int_equal(hw_rdpmc(5, &v), HW_OK);
}

/* ---- a hybrid host: no vPMU ---------------------------------------------------- */

static void alderlake_guest_has_no_perfmon_leaf(void **st)
{
	(void)st;
	struct cpuid_regs r, host;
	assert_int_equal(sim_start("alderlake", SF_NONE), 0);
	hw_cpuid(CPUID_LEAF_PERFMON, 0, &host);
	assert_int_not_equal(host.eax, 0);
	assert_int_equal(sim_start(ADL, SF_NONE), 0);
	cpu_identify(&drv_ci);
	assert_true(drv_ci.hypervisor);
	assert_int_equal(drv_ci.driver, PMU_DRV_NONE);
	hw_cpuid(CPUID_LEAF_PERFMON, 0, &r);
	assert_int_equal(r.eax | r.ebx | r.ecx | r.edx, 0);
	hw_cpuid(CPUID_LEAF_EXT_FEATURES, 0, &r);
	assert_int_equal(r.edx & CPUID_7_EDX_HYBRID, 0);
	hw_cpuid(CPUID_LEAF_HYBRID, 0, &r);
	assert_int_equal(r.eax, 0);
	hw_cpuid(1, 0, &r);
	assert_int_equal(r.eax, sim_fms(6, 0x97, 2));
	assert_int_equal(r.ecx & CPUID_1_ECX_PDCM, 0);
	assert_non_null(strstr(drv_ci.brand, "12900K"));
}

static void alderlake_pmu_msrs_as_vpmu_off(void **st)
{
	(void)st;
	static const uint32_t gp[] = {
	    MSR_P6_PERFCTR0 + 2, MSR_P6_EVNTSEL0 + 2,  MSR_IA32_PMC0,	     MSR_FIXED_CTR0,
	    MSR_FIXED_CTR_CTRL,	 MSR_PERF_GLOBAL_CTRL, MSR_PERF_CAPABILITIES};
	uint64_t v;
	assert_int_equal(sim_start(ADL, SF_NONE), 0);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(hw_wrmsr(MSR_P6_EVNTSEL0 + i, 0xc0 | SEL_ON), HW_OK);
		assert_int_equal(hw_wrmsr(MSR_P6_PERFCTR0 + i, 0x1234), HW_OK);
	}
	hw_run_workload(&wl_loop, 1000);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(drv_msr(MSR_P6_EVNTSEL0 + i), 0);
		assert_int_equal(drv_msr(MSR_P6_PERFCTR0 + i), 0);
	}
	for (unsigned k = 0; k < sizeof(gp) / sizeof(gp[0]); k++) {
		assert_int_equal(hw_rdmsr(gp[k], &v), HW_FAULT_GP);
		assert_int_equal(hw_wrmsr(gp[k], 0), HW_FAULT_GP);
	}
	assert_int_equal(hw_rdpmc(0, &v), HW_FAULT_GP);
	assert_int_equal(drv_msr(MSR_IA32_MISC_ENABLE) & MISC_ENABLE_EMON, 0);
	assert_int_equal(hw_wrmsr(MSR_IA32_MISC_ENABLE, MISC_ENABLE_EMON), HW_OK);
	assert_int_equal(drv_msr(MSR_IA32_MISC_ENABLE) & MISC_ENABLE_EMON, 0);
	/* the host's counter 2 is real */
	assert_int_equal(sim_start("alderlake", SF_NONE), 0);
	assert_int_equal(hw_rdmsr(MSR_P6_PERFCTR0 + 2, &v), HW_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(pinned_and_faultless),
	    cmocka_unit_test(deny_list_freezes_counters),
	    cmocka_unit_test(denied_counter_never_overflows),
	    cmocka_unit_test(deny_bitmap_stops_fixed_counter_2),
	    cmocka_unit_test(arch_allows_architectural_non_llc),
	    cmocka_unit_test(hyperv_leaves_then_kvm),
	    cmocka_unit_test(lvtpc_masked_until_unmasked),
	    cmocka_unit_test(older_releases_reset_and_rdpmc),
	    cmocka_unit_test(duplicate_pmi_only_under_the_bug),
	    cmocka_unit_test(pmuoff_cpuid_says_no_core_extension),
	    cmocka_unit_test(pmuoff_legacy_counters_count),
	    cmocka_unit_test(alderlake_guest_has_no_perfmon_leaf),
	    cmocka_unit_test(alderlake_pmu_msrs_as_vpmu_off),
	};
	int rc = cmocka_run_group_tests(tests, 0, 0);
	free(chase_raw);
	return rc;
}
