/* Debug store detection for the NetBurst driver (pmu/intel_netburst.c):
 * PEBS as the Pentium 4 and Intel Xeon have it (Intel SDM Vol. 3B 18.15.7
 * "Processor Event-Based Sampling (PEBS)" and 18.15.7.1 "Detection of the
 * Availability of the PEBS Facilities", 18.16.3 with Hyper-Threading,
 * 17.4.9 "BTS and DS Save Area"):
 *  - "The DS feature flag (bit 21) returned by the CPUID instruction
 *    indicates (when set) the availability of the DS mechanism";
 *  - "The PEBS_UNAVAILABLE flag in the IA32_MISC_ENABLE MSR indicates (when
 *    clear) the availability of the PEBS facilities, including the
 *    MSR_PEBS_ENABLE MSR" (bit 12; Linux msr-index.h); an IA32_DS_AREA or
 *    MSR_PEBS_ENABLE that #GPs all the same: none (ours);
 *  - the counter: "PEBS can only be carried out using the one performance
 *    counter, the MSR_IQ_COUNTER4 MSR" (counter 16); with Hyper-Threading
 *    IQ_CCCR4 "for logical processor 0 and MSR_IQ_CCCR5 (MSR address 371H)
 *    for logical processor 1" (18.16.3): counter 17 where the harness runs
 *    on logical processor 1, found as the driver finds it (CPUID.1 HTT, more
 *    than one logical processor, initial APIC ID bit 0);
 *  - the event: front_end_event (08H, NBOGUS in pebs_umask: the ESCR event
 *    mask), one of the three at-retirement events PEBS takes ("PEBS is
 *    supported only for a subset of the at-retirement events:
 *    Execution_event, Front_end_event, and Replay_event"); instr_retired
 *    cannot ("Can Support PEBS: No"). The μops it counts are those uop_type
 *    tags (18.15.6.2), which the check programs (tests/checks/pebs_netburst.c);
 *  - the record: no format number (IA32_PERF_CAPABILITIES came later):
 *    format 0; its IP is the next instruction's, "the instruction executed
 *    after the instruction that caused the event" (18.4.4): pebs_trap; no
 *    adaptive PEBS; ds64 is CPUID.1:ECX[2] DTES64, the 64-bit layout in
 *    every mode (in IA-32e mode the 64-bit layout holds without it too,
 *    17.4.9.1: the check's to apply);
 *  - BTS: not checked on NetBurst: its MSR_DEBUGCTLA has TR, BTS and BTINT
 *    at bits 2-4 (SDM Vol. 3B 18.5.1), not where bts.trace writes them.
 * Under a hypervisor: none (ours: QEMU TCG emulates no debug store, KVM
 * gives a guest PEBS on Ice Lake server hosts and later only). */
#include "pmu.h"
#include "cpu.h"
#include "cpuid.h"
#include "msr.h"
#include "hw.h"
#include "sampling.h"
#include "../lib/fmt.h"

#define NB_IQ_COUNTER4 16
#define NB_IQ_COUNTER5 17
#define NB_FRONT_END   0x08 /* front_end_event */
#define NB_NBOGUS      0x01 /* its ESCR event mask: the non-bogus μops */

/* Logical processor 1 of a Hyper-Threading package (SDM Vol. 3A 8.6; the
 * driver's thread1). */
static bool thread1(const struct cpu_info *ci)
{
	const struct cpuid_regs *r = &ci->ids.leaf1;
	return (r->edx & CPUID_1_EDX_HTT) && CPUID_1_EBX_LOGICAL(r->ebx) > 1 &&
	       (CPUID_1_EBX_APIC_ID(r->ebx) & 1);
}

/* Why the CPU has no NetBurst PEBS the harness can use before any MSR is
 * read, or NULL. */
static const char *no_pebs(const struct pmu *p)
{
	const struct cpu_info *ci = p->cpu;

	if (!p->ops || p->ops->id != PMU_DRV_INTEL_NETBURST)
		return "not the NetBurst driver: its PEBS is the Pentium 4's (SDM Vol. 3B 18.15.7)";
	if (ci->hypervisor)
		return "under a hypervisor: none gives a NetBurst guest PEBS (ours: QEMU TCG has "
		       "no debug store)";
	if (!(ci->ids.leaf1.edx & CPUID_1_EDX_DS))
		return "CPUID.1:EDX[21] DS clear: no debug store";
	if (p->status != PMU_FUNCTIONAL)
		return "the PMU is not functional";
	return 0;
}

void pmu_ds_detect_netburst(const struct pmu *p, struct pmu_ds *d)
{
	const char *why = no_pebs(p);
	uint64_t misc = 0, v = 0;

	*d = (struct pmu_ds){0};
	pmh_fmt(d->why_bts, sizeof(d->why_bts),
		"NetBurst BTS not checked: MSR_DEBUGCTLA has TR/BTS/BTINT at bits 2-4 (SDM Vol. "
		"3B 18.5.1)");
	if (!why && hw_rdmsr(MSR_IA32_MISC_ENABLE, &misc) != HW_OK)
		why = "IA32_MISC_ENABLE (1A0H) raised #GP: whether PEBS exists is unknown";
	if (!why && (misc & MISC_ENABLE_PEBS_UNAVAIL))
		why = "IA32_MISC_ENABLE[12] PEBS_UNAVAILABLE set (SDM Vol. 3B 18.15.7.1)";
	if (!why && (hw_rdmsr(MSR_IA32_DS_AREA, &v) != HW_OK ||
		     hw_rdmsr(MSR_IA32_PEBS_ENABLE, &v) != HW_OK))
		why =
		    "IA32_DS_AREA or MSR_PEBS_ENABLE raised #GP though CPUID and MISC_ENABLE give "
		    "PEBS";
	if (why) {
		pmh_fmt(d->why_pebs, sizeof(d->why_pebs), "%s", why);
		return;
	}
	d->ds = d->pebs = true;
	d->pebs_fmt = 0;
	d->pebs_trap = true;
	d->ds64 = (p->cpu->ids.leaf1.ecx & CPUID_1_ECX_DTES64) != 0;
	d->pebs_ctr = thread1(p->cpu) ? NB_IQ_COUNTER5 : NB_IQ_COUNTER4;
	d->pebs_event = NB_FRONT_END;
	d->pebs_umask = NB_NBOGUS;
	d->pebs_event_name = "front_end_event.NBOGUS";
}
