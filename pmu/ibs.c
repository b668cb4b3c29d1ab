/* AMD instruction-based sampling (AMD APM Vol. 2 13.3): present on AMD
 * and Hygon parts where CPUID 8000_0001h ECX[10] says so; its features
 * from 8000_001Bh EAX where the extended leaves reach it and its bit 0
 * (IBSFFV) says the flags are valid, else the fetch and op sampling every
 * IBS part has (Linux arch/x86/events/amd/ibs.c __get_ibs_caps,
 * IBS_CAPS_DEFAULT). */
#include "pmu.h"
#include "cpu.h"
#include "cpuid.h"
#include "hw.h"
#include "../lib/fmt.h"

/* 8000_001Bh EAX[0] IBSFFV: the leaf's flags are valid; [2:1] fetch and
 * op sampling (Linux perf_event.h IBS_CAPS_AVAIL, _FETCHSAM, _OPSAM) */
#define IBS_CAPS_AVAIL	 (1u << 0)
#define IBS_CAPS_DEFAULT 0x7u

void pmu_ibs_detect(const struct pmu *p, struct pmu_ibs *b)
{
	const struct cpu_info *ci = p->cpu;
	struct cpuid_regs r = {0};

	*b = (struct pmu_ibs){0};
	if (ci->vendor != VENDOR_AMD && ci->vendor != VENDOR_HYGON) {
		pmh_fmt(b->why, sizeof(b->why),
			"not an AMD processor: IBS is AMD's (AMD APM Vol. 2 13.3)");
		return;
	}
	if (!(ci->ids.ext1.ecx & CPUID_AMD1_ECX_IBS)) {
		pmh_fmt(b->why, sizeof(b->why), "no IBS: CPUID 8000_0001h ECX[10] clear%s%s",
			ci->hypervisor ? " under the hypervisor " : "",
			ci->hypervisor ? ci->hv.name : "");
		return;
	}
	b->caps = IBS_CAPS_DEFAULT;
	if (ci->ids.max_ext_leaf < CPUID_LEAF_AMD_IBS)
		return;
	hw_cpuid(CPUID_LEAF_AMD_IBS, 0, &r);
	if (r.eax & IBS_CAPS_AVAIL)
		b->caps = r.eax;
}
