/* The hypervisor configurations (the models pinned_by this file): each
 * whole run, every effect of real silicon on, ends with its verdict and
 * says why in the lines a user reads. A restricted but healthy guest ends
 * PASS with its restrictions beside it; a guest without a PMU ends NO PMU
 * naming the hypervisor and its switch; a known hypervisor bug is named. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../sim/sim.h"
#include "sim_whole.h"

#define SEEDS 3

/* Every seed of model ends with exit e and a verdict line holding v. */
static void ends(const char *model, const char *args, enum pmh_exit e, const char *v)
{
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		enum pmh_exit got = run_whole(model, SF_NONE, SIM_REALISM_ALL, seed, args);
		if (got != e || !strstr(whole_log, v))
			fail_msg("%s seed %llu: exit %d, expected %d with \"%s\"; the run:\n%s",
				 model, (unsigned long long)seed, got, e, v, whole_log);
	}
}

static void kvm_filter_deny(void **st)
{
	(void)st;
	ends("skylake-kvm-deny", 0, PMH_EXIT_PASS,
	     "verdict: PASS (restricted by the hypervisor: 1 event not counted, fixed counter 2;");
	/* the real hypervisor behind QEMU's Hyper-V enlightenments */
	assert_line("cpu.hypervisor:", "KVM", "0x40000100", "Hyper-V");
	assert_line("pmu.restricted: BRANCH_MISSES_RETIRED:", "filtered by the hypervisor?",
		    "instructions retired counted");
	assert_line("pmu.restricted: fixed2:", "withheld by the hypervisor?");
}

static void kvm_architectural_only(void **st)
{
	(void)st;
	ends("skylake-kvm-arch", 0, PMH_EXIT_PASS,
	     "verdict: PASS (restricted by the hypervisor: 15 events not counted;");
	assert_line("pmu.restricted: L2_RQSTS.MISS:", "filtered by the hypervisor?");
}

/* The LVTPC-masking KVM on AMD: the harness unmasks after every PMI and
 * names the bug; told to unmask only where the APIC masks, it FAILs
 * naming the masked LVTPC. */
static void kvm_lvtpc_masked(void **st)
{
	(void)st;
	ends("zen4-kvm-lvtpc", 0, PMH_EXIT_PASS, "verdict: PASS (");
	assert_line("pmu.hypervisor_bug: LVTPC masked on PMI:", "a16eb25b09c0", "49ff3b4aec51");
	ends("zen4-kvm-lvtpc", "pmi_unmask=family", PMH_EXIT_FAIL, "verdict: FAIL (");
	assert_line("FAIL overflow.pmi", "PMI lost: LVTPC found masked", "pmi_unmask = family");
	/* the same option on a KVM that does not mask changes nothing */
	ends("zen4-kvm", "pmi_unmask=family", PMH_EXIT_PASS, "verdict: PASS (");
}

/* The duplicate-PMI releases: the bug needs an emulated instruction to
 * complete an overflow with the counter running (test_kvm_configs.c); the
 * harness's windows stop their counters first, so the run is a PASS. */
static void kvm_double_pmi_era(void **st)
{
	(void)st;
	ends("skylake-kvm-dpmi", 0, PMH_EXIT_PASS, "verdict: PASS (");
	ends("skylake-kvm-dpmi", "pmi=nmi", PMH_EXIT_PASS, "verdict: PASS (");
}

static void kvm_amd_pmu_off(void **st)
{
	(void)st;
	ends("zen4-kvm-pmuoff", 0, PMH_EXIT_PASS,
	     "verdict: PASS (restricted by the hypervisor: event-select bit 19 (pin control);");
	assert_line("pmu.driver: amd-legacy", "amd-legacy");
}

static void kvm_hybrid_host(void **st)
{
	(void)st;
	ends("alderlake-kvm", 0, PMH_EXIT_NO_PMU, "verdict: NO PMU (");
	assert_line("verdict: NO PMU", "hypervisor KVM exposes no PMU",
		    "KVM disables its vPMU on hybrid hosts");
}

static void xen_vpmu(void **st)
{
	(void)st;
	ends("xen-vpmu-off", 0, PMH_EXIT_NO_PMU, "verdict: NO PMU (");
	assert_line("verdict: NO PMU", "hypervisor Xen exposes no PMU", "vpmu=on");
	/* Xen's vPMU does not flag an overflow its PMI handler did not copy:
	 * a real failure, named */
	static const char *const modes[] = {"xen-vpmu-on", "xen-vpmu-ipc", "xen-vpmu-arch"};
	for (unsigned i = 0; i < 3; i++) {
		ends(modes[i], 0, PMH_EXIT_FAIL, "verdict: FAIL (2 checks failed)");
		assert_line("FAIL overflow.status", "known: Xen's vPMU shows GLOBAL_STATUS");
		assert_line("pmu.hypervisor_bug: overflow status without a PMI:", "core2_vpmu");
		assert_line("pmu.host: gp3:", "moves while disabled", "6be613f29b42");
		assert_line("cpu.hypervisor: Xen", "XenVMMXenVMM");
	}
	assert_line("pmu.restricted: event selects: listed events only:", "raised #GP");
	/* the last run, vpmu=arch: a model-specific event is refused */
	assert_line("pmu.restricted: L2_RQSTS.PF_HIT:", "refused by the hypervisor", "#GP");
	ends("xen-vpmu-ipc", 0, PMH_EXIT_FAIL, "verdict: FAIL (2 checks failed)");
	assert_line("SKIP count.branches:", "refused by the hypervisor"); /* ipc: no C4H */
}

static void vmware_counter_taken(void **st)
{
	(void)st;
	ends("vmware", 0, PMH_EXIT_PASS,
	     "verdict: PASS (restricted by the hypervisor: taken by "
	     "the host: gp");
	assert_line("pmu.host: gp", "counted earlier in the run and counts nothing now");
	/* a failure made a SKIP takes its further failures with it */
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		run_whole("vmware", SF_NONE, SIM_REALISM_ALL, seed, 0);
		if (strstr(whole_log, " of 0: "))
			fail_msg("seed %llu: a further failure of a SKIP:\n%s",
				 (unsigned long long)seed, whole_log);
	}
	assert_line("cpu.hypervisor: VMware", "VMwareVMware");
}

static void hyperv_without_pmu(void **st)
{
	(void)st;
	ends("hyperv", 0, PMH_EXIT_NO_PMU, "verdict: NO PMU (");
	assert_line("verdict: NO PMU", "hypervisor Hyper-V exposes no PMU", "Set-VMProcessor");
	assert_line("cpu.hypervisor: Hyper-V", "Microsoft Hv");
}

/* QEMU without KVM: TCG names itself and the way to a PMU. */
static void tcg_without_pmu(void **st)
{
	(void)st;
	ends("nopmu", 0, PMH_EXIT_NO_PMU, "verdict: NO PMU (");
	assert_line("cpu.hypervisor: QEMU TCG", "TCGTCGTCGTCG");
	assert_line("verdict: NO PMU", "QEMU TCG exposes no PMU", "-accel kvm");
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(kvm_filter_deny),	  cmocka_unit_test(kvm_architectural_only),
	    cmocka_unit_test(kvm_lvtpc_masked),	  cmocka_unit_test(kvm_double_pmi_era),
	    cmocka_unit_test(kvm_amd_pmu_off),	  cmocka_unit_test(kvm_hybrid_host),
	    cmocka_unit_test(xen_vpmu),		  cmocka_unit_test(vmware_counter_taken),
	    cmocka_unit_test(hyperv_without_pmu), cmocka_unit_test(tcg_without_pmu),
	};
	return cmocka_run_group_tests(t, 0, 0);
}
