/* Model "nopmu": a Pentium III identity under a hypervisor whose PMU MSRs
 * read as 0 and drop writes, and whose RDPMC raises #UD: what QEMU without
 * KVM presents. The harness must say not-functional and SKIP, never PASS. */
#include "sim.h"
#include "../../pmu/msr.h"

static void reset(struct sim_cpu *s)
{
	sim_vendor(s, 2, "GenuineIntel");
	/* CPUID.1: family 6 model 7, hypervisor bit (ECX[31]) */
	sim_set_cpuid(s, 1, 0, sim_fms(6, 7, 3), 0, 1u << 31, 0);
	sim_set_cpuid(s, 0x80000000u, 0, 0x80000004u, 0, 0, 0);
	sim_brand(s, "Simulated CPU without a working PMU");
	sim_set_cpuid(s, 0x40000000u, 0, 0x40000001u, 0x54474354u, 0x43544743u, 0x47435447u);
	s->n_ctr = 0;
}

static int rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	(void)s;
	if (msr == MSR_P6_PERFCTR0 || msr == MSR_P6_PERFCTR0 + 1 || msr == MSR_P6_EVNTSEL0 ||
	    msr == MSR_P6_EVNTSEL0 + 1) {
		*v = 0;
		return HW_OK;
	}
	return HW_FAULT_GP;
}

static int wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	uint64_t dummy;
	(void)v;
	return rdmsr(s, msr, &dummy); /* accepted and dropped */
}

uint64_t sim_no_rate(struct sim_cpu *s, unsigned i, const struct workload_vector *v)
{
	(void)s;
	(void)i;
	(void)v;
	return 0;
}

bool sim_no_overflow(struct sim_cpu *s, unsigned i)
{
	(void)s;
	(void)i;
	return false;
}

static const struct sim_model nopmu = {
    .name = "nopmu",
    .doc = "QEMU TCG behaviour (DEVELOPERS guide): PMU MSRs read 0, writes dropped, RDPMC #UD",
    .driver = PMU_DRV_INTEL_P6,
    .faults = SIM_APIC_FAULTS,
    .fault_na = {SIM_NA_TOPDOWN,
		 [SF_STUCK_COUNTER] = "no counter counts on this model",
		 SIM_NA_TSX_FEP("no counter counts on this model"),
		 [SF_ENABLE_IGNORED_ONE] = "no counter counts on this model",
		 [SF_GLOBAL_IGNORED_GP] = "no counter counts on this model",
		 [SF_WIDTH_HIGH_BITS] = "no counter holds a value on this model",
		 [SF_WRITE_DROPPED] = "every PMU MSR already drops its writes here",
		 [SF_STATUS_NOT_STICKY] = "no overflow status on this model",
		 [SF_PMI_STORM] = "no counter overflows on this model",
		 [SF_WRONG_VECTOR] = "no counter overflows, no PMI on this model",
		 [SF_DUPLICATE_PMI] = "no counter overflows, no PMI on this model",
		 [SF_OS_IGNORED] = "no counter counts on this model",
		 [SF_USER_AS_OS] = "no counter counts on this model",
		 [SF_EDGE_IGNORED] = "no counter counts on this model",
		 [SF_INV_IGNORED] = "no counter counts on this model",
		 [SF_CMASK_IGNORED] = "no counter counts on this model",
		 [SF_CYCLES_SLOW] = "no counter counts on this model",
		 [SF_CYCLES_REF] = "no counter counts on this model",
		 [SF_WRITE_RESETS] = "no counter holds a value on this model",
		 [SF_OVERFLOW_FREEZES] = "no counter overflows on this model",
		 [SF_FAST_RDPMC_FULL] = "RDPMC raises #UD on this model",
		 [SF_FULL_WIDTH_NO_GP] = "no counter holds a value on this model",
		 SIM_NA_FAMILY_REGS,
		 SIM_NA_NO_SMP,
		 SIM_NA_EVENT("no counter counts on this model")},
    .reset = reset,
    .rdmsr = rdmsr,
    .wrmsr = wrmsr,
    .rdpmc = 0,
    .rate = sim_no_rate,
    .overflow = sim_no_overflow,
    .lvt_automask = false,
};
SIM_MODEL(nopmu);
