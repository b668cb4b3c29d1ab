/* The Xen, VMware and Hyper-V guest models (host/sim/model_xen.c,
 * model_vmware.c, model_hyperv.c): each effect a hypervisor has on what the
 * guest sees, against the bare-metal "skylake" the guests run on, so that a
 * test fails when the model drops the effect. Register-level: the models,
 * not the harness's verdicts (host/unit/test_hv_verdicts.c pins those). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../sim/model_hv.h"

#define SEL_OS_EN (EVTSEL_OS | EVTSEL_EN)

static const char *const hv_models[] = {"xen-vpmu-off",	 "xen-vpmu-on", "xen-vpmu-ipc",
					"xen-vpmu-arch", "vmware",	"hyperv"};

static struct cpuid_regs leaf(uint32_t l)
{
	struct cpuid_regs r;
	hw_cpuid(l, 0, &r);
	return r;
}

static void assert_sig(uint32_t l, const char *sig)
{
	struct cpuid_regs r = leaf(l);
	char s[12];
	memcpy(s, &r.ebx, 4);
	memcpy(s + 4, &r.ecx, 4);
	memcpy(s + 8, &r.edx, 4);
	assert_memory_equal(s, sig, 12);
}

static int wr(uint32_t msr, uint64_t v)
{
	return hw_wrmsr(msr, v);
}

static int rd(uint32_t msr)
{
	uint64_t v;
	return hw_rdmsr(msr, &v);
}

/* GP counter k on event enc (umask << 8 | code) counting at CPL 0 with the
 * extra select bits, from -preload (0: from 0), enabled globally. */
static void program(unsigned k, uint64_t enc, uint64_t extra, uint64_t preload)
{
	assert_int_equal(wr(MSR_P6_EVNTSEL0 + k, enc | SEL_OS_EN | extra), HW_OK);
	assert_int_equal(wr(MSR_P6_PERFCTR0 + k, 0 - preload), HW_OK);
	assert_int_equal(wr(MSR_PERF_GLOBAL_CTRL, 1ull << k), HW_OK);
}

/* ---- identification ------------------------------------------------------ */

static void models_are_pinned_guests(void **st)
{
	(void)st;
	for (unsigned k = 0; k < sizeof(hv_models) / sizeof(hv_models[0]); k++) {
		const struct sim_model *m = sim_model_find(hv_models[k]);
		assert_non_null(m);
		assert_string_equal(m->host, "skylake");
		assert_string_equal(m->pinned_by, "test_hv_verdicts.c");
		assert_int_equal(m->faults, 0);
		for (unsigned f = 1; f < SF_COUNT; f++) {
			assert_non_null(m->fault_na[f]);
			assert_int_equal(sim_start(hv_models[k], (enum sim_fault)f), -1);
		}
		assert_int_equal(sim_start(hv_models[k], SF_NONE), 0);
		assert_true(leaf(1).ecx >> 31);
		assert_int_equal(leaf(1).ecx & CPUID_1_ECX_PDCM, 0); /* no PERF_CAPABILITIES */
		assert_int_equal(rd(MSR_PERF_CAPABILITIES), HW_FAULT_GP);
	}
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	assert_false(leaf(1).ecx >> 31);
	assert_int_equal(rd(MSR_PERF_CAPABILITIES), HW_OK);
}

static void xen_leaves(void **st)
{
	(void)st;
	const char *plain[] = {"xen-vpmu-off", "xen-vpmu-ipc", "xen-vpmu-arch"};
	for (unsigned k = 0; k < 3; k++) {
		assert_int_equal(sim_start(plain[k], SF_NONE), 0);
		assert_sig(0x40000000u, "XenVMMXenVMM");
		assert_int_equal(leaf(0x40000000u).eax, 0x40000005u);
		assert_int_equal(leaf(0x40000001u).eax, 4u << 16 | 17u);
		assert_int_equal(leaf(0x40000002u).eax, 1); /* one hypercall page */
		assert_int_equal(leaf(0x40000002u).ebx, 0x40000000u);
	}
	/* viridian=1: Hyper-V's interface first, Xen's 100h above it */
	assert_int_equal(sim_start("xen-vpmu-on", SF_NONE), 0);
	assert_sig(0x40000000u, "Microsoft Hv");
	assert_int_equal(leaf(0x40000001u).eax, 0x31237648u); /* "Hv#1" */
	assert_int_equal(leaf(0x40000002u).eax, 0);	      /* no guest OS identity written */
	assert_sig(0x40000100u, "XenVMMXenVMM");
	assert_int_equal(leaf(0x40000100u).eax, 0x40000105u);
	assert_int_equal(leaf(0x40000102u).ebx, 0x40000200u);
}

static void vmware_and_hyperv_leaves(void **st)
{
	(void)st;
	assert_int_equal(sim_start("vmware", SF_NONE), 0);
	assert_sig(0x40000000u, "VMwareVMware");
	assert_int_equal(leaf(0x40000000u).eax, 0x40000010u);
	assert_int_equal(leaf(0x40000010u).eax, 3400000u); /* TSC kHz */
	assert_int_equal(sim_start("hyperv", SF_NONE), 0);
	assert_sig(0x40000000u, "Microsoft Hv");
	assert_int_equal(leaf(0x40000001u).eax, 0x31237648u);
	assert_int_equal(leaf(0x40000002u).eax, 20348);
	assert_int_equal(leaf(0x40000002u).ebx, 10u << 16);
}

/* ---- no PMU: xen-vpmu-off, hyperv ------------------------------------------ */

static void xen_off_hides_the_pmu(void **st)
{
	(void)st;
	uint64_t v = 1;
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	assert_int_not_equal(leaf(CPUID_LEAF_PERFMON).eax, 0);
	assert_int_equal(sim_start("xen-vpmu-off", SF_NONE), 0);
	struct cpuid_regs r = leaf(CPUID_LEAF_PERFMON);
	assert_int_equal(r.eax | r.ebx | r.ecx | r.edx, 0);
	/* vpmu_do_msr's nop: listed MSRs read 0 and drop writes */
	assert_int_equal(wr(MSR_P6_EVNTSEL0, 0xc0 | SEL_OS_EN), HW_OK);
	assert_int_equal(wr(MSR_P6_PERFCTR0, 0x1234), HW_OK);
	assert_int_equal(wr(MSR_PERF_GLOBAL_CTRL, 1), HW_OK);
	assert_int_equal(drv_msr(MSR_P6_EVNTSEL0), 0);
	assert_int_equal(drv_msr(MSR_P6_PERFCTR0 + 7), 0);
	hw_run_workload(&wl_loop, 1000);
	assert_int_equal(drv_msr(MSR_P6_PERFCTR0), 0);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS), 0);
	/* the read list has EVNTSEL0-3 only; unlisted MSRs #GP */
	assert_int_equal(rd(MSR_P6_EVNTSEL0 + 4), HW_FAULT_GP);
	assert_int_equal(wr(MSR_P6_EVNTSEL0 + 4, 0), HW_OK);
	assert_int_equal(rd(MSR_IA32_PMC0), HW_FAULT_GP);
	assert_int_equal(rd(MSR_PERF_GLOBAL_STATUS_SET), HW_FAULT_GP);
	assert_int_equal(rd(MSR_SMI_COUNT), HW_FAULT_GP);
	/* MISC_ENABLE is the host's (EMON set) with BTS and PEBS unavailable */
	v = drv_msr(MSR_IA32_MISC_ENABLE);
	assert_true(v & MISC_ENABLE_EMON);
	assert_int_equal(v & (MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL),
			 MISC_BTS_UNAVAIL | MISC_PEBS_UNAVAIL);
	assert_int_equal(wr(MSR_IA32_MISC_ENABLE, v & ~MISC_ENABLE_EMON), HW_FAULT_GP);
	assert_int_equal(wr(MSR_IA32_MISC_ENABLE, v), HW_OK);
	/* RDPMC is not intercepted: the idle hardware counter */
	assert_int_equal(hw_rdpmc(0, &v), HW_OK);
	assert_int_equal(v, 0);
}

static void hyperv_has_no_pmu(void **st)
{
	(void)st;
	uint64_t v;
	assert_int_equal(sim_start("hyperv", SF_NONE), 0);
	struct cpuid_regs r = leaf(CPUID_LEAF_PERFMON);
	assert_int_equal(r.eax | r.ebx | r.ecx | r.edx, 0);
	const uint32_t msrs[] = {MSR_P6_EVNTSEL0,	  MSR_P6_PERFCTR0,
				 MSR_FIXED_CTR0,	  MSR_FIXED_CTR_CTRL,
				 MSR_PERF_GLOBAL_CTRL,	  MSR_PERF_GLOBAL_STATUS,
				 MSR_PERF_GLOBAL_OVF_CTRL};
	for (unsigned i = 0; i < sizeof(msrs) / sizeof(msrs[0]); i++) {
		assert_int_equal(rd(msrs[i]), HW_FAULT_GP);
		assert_int_equal(wr(msrs[i], 0), HW_FAULT_GP);
	}
	assert_int_equal(hw_rdpmc(0, &v), HW_FAULT_GP);
	assert_int_equal(drv_msr(MSR_IA32_MISC_ENABLE) & MISC_ENABLE_EMON, 0);
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	assert_int_equal(hw_rdpmc(0, &v), HW_OK);
	assert_int_equal(rd(MSR_P6_EVNTSEL0), HW_OK);
}

/* ---- Xen's vPMU ------------------------------------------------------------ */

static void xen_on_is_version_3_with_xens_masks(void **st)
{
	(void)st;
	assert_int_equal(sim_start("xen-vpmu-on", SF_NONE), 0);
	assert_int_equal(leaf(CPUID_LEAF_PERFMON).eax & 0xff, 3);
	assert_int_equal(leaf(CPUID_LEAF_PERFMON).edx & 0x1f, 3);
	/* the aliases are intercepted until the first vPMU access */
	assert_int_equal(rd(MSR_IA32_PMC0), HW_FAULT_GP);
	assert_int_equal(wr(MSR_P6_EVNTSEL0, 0xc0 | SEL_OS_EN), HW_OK);
	assert_int_equal(rd(MSR_IA32_PMC0), HW_OK);
	/* AnyThread (a v3 bit) and pin control refused; reserved bits too */
	assert_int_equal(wr(MSR_P6_EVNTSEL0, 0xc0 | SEL_OS_EN | EVTSEL_ANY), HW_FAULT_GP);
	assert_int_equal(wr(MSR_P6_EVNTSEL0, 0xc0 | SEL_OS_EN | EVTSEL_PC), HW_FAULT_GP);
	assert_int_equal(wr(MSR_FIXED_CTR_CTRL, 0x4), HW_FAULT_GP);
	assert_int_equal(wr(MSR_FIXED_CTR_CTRL, 0x333), HW_OK);
	assert_int_equal(wr(MSR_PERF_GLOBAL_CTRL, 1ull << 4), HW_FAULT_GP);
	assert_int_equal(wr(MSR_PERF_GLOBAL_STATUS, 0), HW_FAULT_GP);
	assert_int_equal(wr(MSR_PERF_GLOBAL_OVF_CTRL, 1ull << 61), HW_OK);
	assert_int_equal(wr(MSR_PERF_GLOBAL_OVF_CTRL, 1ull << 40), HW_FAULT_GP);
	assert_int_equal(rd(MSR_PERF_GLOBAL_STATUS_SET), HW_FAULT_GP);
	assert_int_equal(wr(MSR_HV_PEBS_ENABLE, 1), HW_FAULT_GP);
	assert_int_equal(wr(MSR_HV_PEBS_ENABLE, 0), HW_OK);
	assert_int_equal(wr(MSR_HV_DS_AREA, 0), HW_FAULT_GP);
	assert_int_equal(wr(MSR_P6_EVNTSEL0 + 4, 0), HW_FAULT_GP);
	assert_int_equal(wr(MSR_DEBUGCTL, 1ull << 12), HW_FAULT_GP);
	assert_int_equal(wr(MSR_DEBUGCTL, 1), HW_OK);
	/* the v4 host takes what Xen refuses */
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	assert_int_equal(wr(MSR_P6_EVNTSEL0, 0xc0 | SEL_OS_EN | EVTSEL_ANY), HW_OK);
	assert_int_equal(wr(MSR_FIXED_CTR_CTRL, 0x4), HW_OK);
	assert_int_equal(rd(MSR_PERF_GLOBAL_STATUS_SET), HW_OK);
}

/* The vPMU counts as the hardware does: GLOBAL_CTRL is 0 while Xen runs
 * and an intercepted instruction does not retire in the guest. */
static void xen_counts_the_guest_only(void **st)
{
	(void)st;
	const char *models[] = {"skylake", "xen-vpmu-on", "xen-vpmu-arch"};
	uint64_t n[3];
	for (unsigned k = 0; k < 3; k++) {
		assert_int_equal(sim_start(models[k], SF_NONE), 0);
		program(0, 0xc0, 0, 0);
		hw_run_workload(&wl_loop, 1000);
		assert_int_equal(wr(MSR_PERF_GLOBAL_CTRL, 0), HW_OK);
		n[k] = drv_msr(MSR_P6_PERFCTR0);
	}
	assert_true(n[0] > 1000);
	assert_int_equal(n[1], n[0]);
	assert_int_equal(n[2], n[0]);
}

static void xen_ipc_takes_three_events(void **st)
{
	(void)st;
	static const uint64_t ok[] = {0x003c, 0x013c, 0x00c0};
	static const uint64_t refused[] = {0, 0x00c4, 0x00c5, 0x4f2e, 0x412e, 0x00d1, 0x0124};
	assert_int_equal(sim_start("xen-vpmu-ipc", SF_NONE), 0);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(wr(MSR_P6_EVNTSEL0 + 1, ok[i] | SEL_OS_EN), HW_OK);
	for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_int_equal(wr(MSR_P6_EVNTSEL0 + 1, refused[i] | SEL_OS_EN), HW_FAULT_GP);
	assert_int_equal(wr(MSR_P6_EVNTSEL0, 0), HW_FAULT_GP); /* even a cleared select */
	assert_int_equal(wr(MSR_HV_PEBS_ENABLE, 0), HW_FAULT_GP);
	assert_int_equal(wr(MSR_FIXED_CTR_CTRL, 0x333), HW_OK); /* fixed: no filter */
	/* a refused write leaves the select as it was */
	assert_int_equal(drv_msr(MSR_P6_EVNTSEL0 + 1), 0x00c0 | SEL_OS_EN);
	assert_int_equal(sim_start("xen-vpmu-on", SF_NONE), 0);
	for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_int_equal(wr(MSR_P6_EVNTSEL0 + 1, refused[i] | SEL_OS_EN), HW_OK);
}

static void xen_arch_takes_the_architectural_events(void **st)
{
	(void)st;
	static const uint64_t ok[] = {0x003c, 0x013c, 0x00c0, 0x4f2e, 0x412e, 0x00c4, 0x00c5};
	static const uint64_t refused[] = {0, 0x00d1, 0x0124, 0x012e, 0x01c4, 0x00cc};
	assert_int_equal(sim_start("xen-vpmu-arch", SF_NONE), 0);
	for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_int_equal(wr(MSR_P6_EVNTSEL0 + 2, ok[i] | SEL_OS_EN), HW_OK);
	for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_int_equal(wr(MSR_P6_EVNTSEL0 + 2, refused[i] | SEL_OS_EN), HW_FAULT_GP);
	/* the same umask:event with other bits set passes the filter */
	assert_int_equal(wr(MSR_P6_EVNTSEL0 + 2, 0x00c4 | SEL_OS_EN | EVTSEL_INV | 1u << 24),
			 HW_OK);
}

static struct {
	unsigned taken, masked;
	uint64_t status, ctr;
} pmi;

static void status_handler(struct int_frame *f)
{
	(void)f;
	pmi.taken++;
	pmi.masked += (apic_read(APIC_LVT_PC) & LVT_MASKED) != 0;
	assert_int_equal(hw_rdmsr(MSR_PERF_GLOBAL_STATUS, &pmi.status), HW_OK);
	assert_int_equal(hw_rdmsr(MSR_P6_PERFCTR0, &pmi.ctr), HW_OK);
	assert_int_equal(hw_wrmsr(MSR_PERF_GLOBAL_OVF_CTRL, pmi.status), HW_OK);
	apic_write(APIC_LVT_PC, VEC_PMI);
	apic_eoi();
}

/* Counter 0 on cycles (one per wl_loop iteration) from -10 over n
 * iterations, INT as given, LVTPC armed with status_handler; GLOBAL_STATUS
 * as polled after. */
static uint64_t overflow_run(const char *model, bool intr, uint64_t n)
{
	assert_int_equal(sim_start(model, SF_NONE), 0);
	apic_detect(&drv_ai);
	memset(&pmi, 0, sizeof(pmi));
	isr_set_handler(VEC_PMI, status_handler);
	apic_write(APIC_LVT_PC, VEC_PMI);
	program(0, 0x3c, intr ? EVTSEL_INT : 0, 10);
	hw_run_workload(&wl_loop, n);
	return drv_msr(MSR_PERF_GLOBAL_STATUS);
}

/* The guest's GLOBAL_STATUS is the vPMU context's, filled by Xen's PMI
 * handler only: an overflow polled without a PMI is never flagged. */
static void xen_status_only_through_a_pmi(void **st)
{
	(void)st;
	assert_int_equal(overflow_run("skylake", false, 20), 1);
	assert_int_equal(overflow_run("xen-vpmu-on", false, 20), 0);
	assert_true(drv_msr(MSR_P6_PERFCTR0) >= 10); /* it did wrap */
	overflow_run("xen-vpmu-on", true, 20);
	assert_int_equal(pmi.taken, 1);
	assert_int_equal(pmi.status, 1);
	assert_int_equal(drv_msr(MSR_PERF_GLOBAL_STATUS), 0); /* acknowledged */
}

/* handle_pmc_quirk: a counter that overflowed and reads 0 when Xen takes
 * the PMI is written 1. */
static void xen_pmc_quirk_writes_one(void **st)
{
	(void)st;
	overflow_run("skylake", true, 10);
	assert_int_equal(pmi.taken, 1);
	assert_int_equal(pmi.ctr, 0);
	overflow_run("xen-vpmu-on", true, 10);
	assert_int_equal(pmi.taken, 1);
	assert_int_equal(pmi.ctr, 1);
}

/* The virtual LAPIC injects the PMI and leaves LVTPC unmasked; the
 * host's masks it on delivery. */
static void xen_lvtpc_not_masked(void **st)
{
	(void)st;
	overflow_run("skylake", true, 10);
	assert_int_equal(pmi.taken, 1);
	assert_int_equal(pmi.masked, 1);
	overflow_run("xen-vpmu-on", true, 10);
	assert_int_equal(pmi.taken, 1);
	assert_int_equal(pmi.masked, 0);
}

/* ---- VMware ---------------------------------------------------------------- */

/* Hybrid freeze mode: the exits of the window's own MSR writes count in
 * cycles, never in instructions or branches. */
static void vmware_cycles_count_the_hypervisor(void **st)
{
	(void)st;
	const char *models[] = {"skylake", "vmware"};
	uint64_t cyc[2], insn[2], br[2], from;
	unsigned taken, c, b;

	assert_int_equal(sim_start("vmware", SF_NONE), 0);
	sim_vmware_taken(&sim, &taken, &from);
	c = (taken + 1) % 4; /* two counters the host keeps */
	b = (taken + 2) % 4;
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(sim_start(models[k], SF_NONE), 0);
		assert_int_equal(wr(MSR_P6_EVNTSEL0 + c, 0x3c | SEL_OS_EN), HW_OK);
		assert_int_equal(wr(MSR_P6_EVNTSEL0 + b, 0xc4 | SEL_OS_EN), HW_OK);
		assert_int_equal(wr(MSR_FIXED_CTR_CTRL, 0x1), HW_OK); /* fixed 0: instructions */
		assert_int_equal(wr(MSR_PERF_GLOBAL_CTRL, 1ull << c | 1ull << b | 1ull << 32),
				 HW_OK);
		hw_run_workload(&wl_loop, 1000);
		assert_int_equal(wr(MSR_PERF_GLOBAL_CTRL, 0), HW_OK);
		cyc[k] = drv_msr(MSR_P6_PERFCTR0 + c);
		br[k] = drv_msr(MSR_P6_PERFCTR0 + b);
		insn[k] = drv_msr(MSR_FIXED_CTR0);
	}
	assert_true(cyc[0] >= 1000);
	assert_true(cyc[1] > cyc[0]);
	assert_true(insn[0] >= 1000);
	assert_int_equal(insn[1], insn[0]);
	assert_int_equal(br[1], br[0]);
}

/* The counter the host takes counted, then counts nothing for the rest of
 * the run; the others keep counting. */
static void vmware_host_takes_a_counter(void **st)
{
	(void)st;
	unsigned seen = 0;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		unsigned c;
		uint64_t from;
		assert_int_equal(sim_start_real("vmware", SF_NONE, 0, seed), 0);
		sim_vmware_taken(&sim, &c, &from);
		assert_true(c < 4);
		seen |= 1u << c;
		unsigned o = (c + 1) % 4;
		assert_int_equal(wr(MSR_P6_EVNTSEL0 + c, 0xc0 | SEL_OS_EN), HW_OK);
		assert_int_equal(wr(MSR_P6_EVNTSEL0 + o, 0xc0 | SEL_OS_EN), HW_OK);
		assert_int_equal(wr(MSR_PERF_GLOBAL_CTRL, 0xf), HW_OK);
		hw_run_workload(&wl_loop, 1000);
		uint64_t before = drv_msr(MSR_P6_PERFCTR0 + c);
		assert_true(before > 1000); /* it counted */
		while (sim.st.instructions < from)
			hw_run_workload(&wl_loop, 1000000);
		hw_run_workload(&wl_loop, 1000);
		uint64_t held = drv_msr(MSR_P6_PERFCTR0 + c), other = drv_msr(MSR_P6_PERFCTR0 + o);
		hw_run_workload(&wl_loop, 100000);
		assert_int_equal(drv_msr(MSR_P6_PERFCTR0 + c), held);
		assert_true(drv_msr(MSR_P6_PERFCTR0 + o) >= other + 100000);
		/* a write holds, and counts nothing either */
		assert_int_equal(wr(MSR_P6_PERFCTR0 + c, 5), HW_OK);
		hw_run_workload(&wl_loop, 1000);
		assert_int_equal(drv_msr(MSR_P6_PERFCTR0 + c), 5);
	}
	assert_true(seen & (seen - 1)); /* not always the same counter */
}

static void vmware_is_version_3(void **st)
{
	(void)st;
	assert_int_equal(sim_start("vmware", SF_NONE), 0);
	assert_int_equal(leaf(CPUID_LEAF_PERFMON).eax & 0xff, 3);
	assert_int_equal(rd(MSR_PERF_GLOBAL_STATUS_SET), HW_FAULT_GP);
	assert_int_equal(rd(MSR_IA32_PMC0), HW_FAULT_GP);
	assert_int_equal(rd(MSR_PERF_GLOBAL_STATUS), HW_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(models_are_pinned_guests),
	    cmocka_unit_test(xen_leaves),
	    cmocka_unit_test(vmware_and_hyperv_leaves),
	    cmocka_unit_test(xen_off_hides_the_pmu),
	    cmocka_unit_test(hyperv_has_no_pmu),
	    cmocka_unit_test(xen_on_is_version_3_with_xens_masks),
	    cmocka_unit_test(xen_counts_the_guest_only),
	    cmocka_unit_test(xen_ipc_takes_three_events),
	    cmocka_unit_test(xen_arch_takes_the_architectural_events),
	    cmocka_unit_test(xen_status_only_through_a_pmi),
	    cmocka_unit_test(xen_pmc_quirk_writes_one),
	    cmocka_unit_test(xen_lvtpc_not_masked),
	    cmocka_unit_test(vmware_cycles_count_the_hypervisor),
	    cmocka_unit_test(vmware_host_takes_a_counter),
	    cmocka_unit_test(vmware_is_version_3),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
