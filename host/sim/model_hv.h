/* Shared by the simulated Xen, VMware and Hyper-V guests (model_xen.c,
 * model_vmware.c, model_hyperv.c): the registers they keep beside their
 * host model's and what each of them does to the host's CPUID values. */
#ifndef PMH_SIM_MODEL_HV_H
#define PMH_SIM_MODEL_HV_H

#include "../../apic/apic.h"
#include "../../pmu/cpuid.h"
#include "../../pmu/msr.h"
#include "model_arch.h"

/* The guest's own state, far above the host's registers (model_arch.h
 * uses 0-20). */
#define REG_HV(i) (100 + (i))

/* MSRs the host model does not name. */
#define MSR_HV_PEBS_ENABLE 0x3f1
#define MSR_HV_DS_AREA	   0x600
#define MISC_BTS_UNAVAIL   (1ull << 11)
#define MISC_PEBS_UNAVAIL  (1ull << 12)
#define DEBUGCTL_LBR_BTF   0x3ull /* LBR (0) and BTF (1) */

/* Clears clr and sets set in register reg (0 EAX .. 3 EDX) of a leaf the
 * host gave. */
static inline void hv_cpuid_edit(struct sim_cpu *s, uint32_t leaf, unsigned reg, uint32_t clr,
				 uint32_t set)
{
	for (unsigned i = 0; i < s->n_cpuid; i++) {
		if (s->cpuid[i].leaf != leaf)
			continue;
		uint32_t *r = reg == 0	 ? &s->cpuid[i].r.eax
			      : reg == 1 ? &s->cpuid[i].r.ebx
			      : reg == 2 ? &s->cpuid[i].r.ecx
					 : &s->cpuid[i].r.edx;
		*r = (*r & ~clr) | set;
	}
}

/* A 12-byte signature in EBX, ECX, EDX of leaf, EAX the highest leaf. */
static inline void hv_signature(struct sim_cpu *s, uint32_t leaf, uint32_t max, const char *sig)
{
	uint32_t w[3] = {0, 0, 0};
	for (unsigned i = 0; i < 12 && sig[i]; i++)
		w[i / 4] |= (uint32_t)(unsigned char)sig[i] << (8 * (i % 4));
	sim_set_cpuid(s, leaf, 0, max, w[0], w[1], w[2]);
}

/* What every guest here gets: the hypervisor bit; no PDCM, DS, DTES64 or
 * DS-CPL (none of the three offers PERF_CAPABILITIES or a debug store);
 * leaf 6 empty, so no MPERF/APERF; no TSX_FORCE_ABORT (CPUID.7:EDX[13],
 * "not offered to guests by hypervisors", Xen xen/arch/x86/tsx.c); the
 * guest firmware leaves xAPIC mode and no LIMIT_CPUID. */
static inline void hv_guest_identity(struct sim_cpu *s, const char *brand)
{
	hv_cpuid_edit(s, 1, 2, CPUID_1_ECX_PDCM | (1u << 2) | (1u << 4), CPUID_1_ECX_HYPERVISOR);
	hv_cpuid_edit(s, 1, 3, 1u << 21, 0);
	hv_cpuid_edit(s, 7, 3, 1u << 13, 0);
	sim_set_cpuid(s, CPUID_LEAF_POWER, 0, 0, 0, 0, 0);
	s->aperfmperf = false;
	s->apic_base &= ~APIC_BASE_X2APIC;
	s->real.limit_cpuid = false;
	sim_brand(s, brand);
}

/* The host model's PMU idle: selects, counters and enables written 0. */
static inline void hv_host_pmu_idle(struct sim_cpu *s, unsigned n_gp, unsigned n_fixed)
{
	for (unsigned i = 0; i < n_gp; i++) {
		sim_host_wrmsr(s, MSR_P6_EVNTSEL0 + i, 0);
		sim_host_wrmsr(s, MSR_P6_PERFCTR0 + i, 0);
	}
	for (unsigned i = 0; i < n_fixed; i++)
		sim_host_wrmsr(s, MSR_FIXED_CTR0 + i, 0);
	sim_host_wrmsr(s, MSR_FIXED_CTR_CTRL, 0);
	sim_host_wrmsr(s, MSR_PERF_GLOBAL_CTRL, 0);
}

/* VMware's counter the host takes (model_vmware.c): its number and the
 * workload instruction count (sim_stats.instructions) from which it stops
 * counting; for unit tests. */
void sim_vmware_taken(const struct sim_cpu *s, unsigned *ctr, uint64_t *from);

#endif
