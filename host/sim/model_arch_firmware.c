/* Intel architectural perfmon models: what firmware and microcode add to the
 * register file of model_arch.c under realism "firmware" (SE_FIRMWARE).
 * Apart from model_arch.c because none of it is architectural perfmon: it
 * is platform state the harness must cope with, and model_arch.c stays what
 * the SDM describes. IA32_MISC_ENABLE is here whole, its debug-store bits
 * from the model's sampling hardware (sim_smp.h). */
#include "../../pmu/msr.h"
#include "model_arch.h"

/* What firmware leaves behind (realism "firmware"):
 *  - counter 0 counting cycles with EN set (and its GLOBAL_CTRL bit on v2+),
 *    the "Broken BIOS" state Linux's check_hw_exists warns about (arch/x86/events/core.c);
 *  - IA32_MISC_ENABLE[22] LIMIT_CPUID set, so CPUID leaf 0 says 2 until it
 *    is cleared, as Linux's early_init_intel does (SDM Vol. 4 MSR 1A0H);
 *  - Skylake microcode with TSX_FORCE_ABORT (CPUID.7:EDX[13]): PMC3 belongs
 *    to the microcode unless MSR 0x10F bit 0 is set (Linux intel_set_tfa). */
void arch_firmware(struct sim_cpu *s, bool globals, bool tfa)
{
	s->reg[REG_EVNTSEL(0)] = EVTSEL_EN | EVTSEL_OS | EVTSEL_USR | 0x3c;
	if (globals)
		s->reg[REG_GLOBAL_CTRL] |= 1;
	s->real.limit_cpuid = true;
	if (!tfa)
		return;
	uint32_t ebx = 0; /* the model's HLE and RTM stay */
	for (unsigned i = 0; i < s->n_cpuid; i++)
		if (s->cpuid[i].leaf == 7 && s->cpuid[i].subleaf == 0)
			ebx = s->cpuid[i].r.ebx;
	sim_set_cpuid(s, 7, 0, 0, ebx, 0, 1u << 13);
}

/* PMC3 while the TSX workaround owns it: writes do not hold, nothing the
 * harness programs is counted. */
bool arch_pmc3_taken(const struct sim_cpu *s, unsigned k, bool tfa)
{
	return k == 3 && tfa && sim_real(s, SE_FIRMWARE) && !(s->reg[REG_TFA] & 1);
}

/* IA32_MISC_ENABLE[11] BTS_UNAVAILABLE and [12] PEBS_UNAVAILABLE, which
 * the processor sets where it lacks the feature (SDM Vol. 4 Table 2-2,
 * read-only): what the model's sampling configuration (sim_smp.h) leaves
 * out. core2, yonah, alderlake and arrowlake enumerate DS in CPUID.1:EDX[21]
 * but model no debug store; on them both bits are set, as Linux
 * intel_ds_init reads them. */
static uint64_t ds_unavailable(const struct sim_cpu *s)
{
	const struct sim_smp_cfg *c = s->m->smp;
	uint64_t v = 0;

	if (!c || !c->bts)
		v |= MISC_ENABLE_BTS_UNAVAIL;
	if (!c || !c->pebs_ctrs)
		v |= MISC_ENABLE_PEBS_UNAVAIL;
	return v;
}

int arch_firmware_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v, bool tfa)
{
	if (msr == MSR_IA32_MISC_ENABLE) { /* SDM Vol. 4 Table 2-2: bit 7, perfmon */
		*v = MISC_ENABLE_EMON | ds_unavailable(s) |
		     (s->real.limit_cpuid ? MISC_ENABLE_LIMIT_CPUID : 0);
		return HW_OK;
	}
	if (msr != MSR_TSX_FORCE_ABORT || !tfa || !sim_real(s, SE_FIRMWARE))
		return HW_FAULT_GP;
	*v = s->reg[REG_TFA];
	return HW_OK;
}

int arch_firmware_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v, bool tfa)
{
	if (msr == MSR_IA32_MISC_ENABLE) {
		/* EMON, BTS_UNAVAILABLE and PEBS_UNAVAILABLE are read-only;
		 * LIMIT_CPUID takes what is written */
		s->real.limit_cpuid = (v & MISC_ENABLE_LIMIT_CPUID) != 0;
		return HW_OK;
	}
	if (msr != MSR_TSX_FORCE_ABORT || !tfa || !sim_real(s, SE_FIRMWARE))
		return HW_FAULT_GP;
	s->reg[REG_TFA] = v & 1; /* bit 0 RTM_FORCE_ABORT */
	return HW_OK;
}
