/* The Intel architectural models' IA32_DEBUGCTL and their freeze on PMI,
 * behind hooks in model_arch.c:
 *  - DEBUGCTL (SDM Vol. 4 Table 2-2) holds LBR and BTF (bits 0-1) and the
 *    branch-trace bits 6-10; from perfmon v2 FREEZE_LBRS_ON_PMI (11) and
 *    FREEZE_PERFMON_ON_PMI (12); FREEZE_WHILE_SMM (14) where
 *    PERF_CAPABILITIES[12] enumerates it. Any other bit raises #GP.
 *  - With FREEZE_PERFMON_ON_PMI set, an overflow that requests a PMI stops
 *    every counter there and then: "It globally disables the whole PMU when
 *    it raises the PMI, not when the PMI hits" (Linux 3daa96d67274, which
 *    removed the v4 freezing handler). Perfmon v2 and v3 clear
 *    IA32_PERF_GLOBAL_CTRL (SDM Vol. 3B "Freezing LBR and Performance
 *    Counters on PMI": "a PMI request clears each of the ENABLE field");
 *    v4 and later keep GLOBAL_CTRL and set GLOBAL_STATUS.CTR_FRZ (bit 59):
 *    a counter counts while EN & GLOBAL_CTRL & !CTR_FRZ (SDM Vol. 3B
 *    20.2.4.1), until software clears bit 59 through GLOBAL_STATUS_RESET
 *    (0x390, SDM Vol. 4 Table 2-2). STATUS_SET's bit 59 sets it.
 *  - freeze-ignored: the bit is held, nothing freezes.
 * FREEZE_WHILE_SMM is held only: whether the SMIs of realism "interrupts"
 * are counted is the model's sim_silicon.smm_counts. */
#include "../../pmu/msr.h"
#include "model_arch.h"

#define DEBUGCTL_LBR_BTF   0x3ull   /* LBR, BTF */
#define DEBUGCTL_TRACE	   0x7c0ull /* TR, BTS, BTINT, BTS_OFF_OS, BTS_OFF_USR */
#define DEBUGCTL_FRZ_LBRS  (1ull << 11)
#define ARCH_V_FREEZE	   2 /* the legacy freeze: perfmon v2 */
#define ARCH_V_STREAMLINED 4 /* CTR_FRZ: perfmon v4 */

/* The bits DEBUGCTL holds on this model. */
static uint64_t debugctl_rw(const struct sim_cpu *s)
{
	const struct arch_cfg *c = arch_cfg_of(s);
	uint64_t rw = DEBUGCTL_LBR_BTF | DEBUGCTL_TRACE;

	if (c->version >= ARCH_V_FREEZE)
		rw |= DEBUGCTL_FRZ_LBRS | DEBUGCTL_FREEZE_PERFMON_ON_PMI;
	if (c->perf_caps & PERF_CAP_SMM_FRZ)
		rw |= DEBUGCTL_FREEZE_WHILE_SMM;
	return rw;
}

static bool has_metrics(const struct sim_cpu *s)
{
	return (arch_cfg_of(s)->perf_caps & PERF_CAP_PERF_METRICS) != 0;
}

bool arch_more_msr(const struct sim_cpu *s, uint32_t msr)
{
	return msr == MSR_DEBUGCTL || (msr == MSR_PERF_METRICS && has_metrics(s));
}

int arch_more_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	if (!arch_more_msr(s, msr))
		return HW_FAULT_GP;
	if (msr == MSR_PERF_METRICS)
		return arch_td_rdmsr(s, v);
	*v = s->reg[REG_DEBUGCTL];
	return HW_OK;
}

int arch_more_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	if (!arch_more_msr(s, msr))
		return HW_FAULT_GP;
	if (msr == MSR_PERF_METRICS)
		return arch_td_wrmsr(s, v);
	if (v & ~debugctl_rw(s))
		return HW_FAULT_GP; /* a reserved bit */
	s->reg[REG_DEBUGCTL] = v;
	return HW_OK;
}

void arch_freeze_on_pmi(struct sim_cpu *s)
{
	if (!(s->reg[REG_DEBUGCTL] & DEBUGCTL_FREEZE_PERFMON_ON_PMI) ||
	    sim_has_fault(s, SF_FREEZE_IGNORED))
		return;
	if (arch_cfg_of(s)->version >= ARCH_V_STREAMLINED)
		s->reg[REG_GLOBAL_STATUS] |= GLOBAL_STATUS_CTR_FRZ;
	else
		s->reg[REG_GLOBAL_CTRL] = 0;
}

bool arch_frozen(const struct sim_cpu *s)
{
	return (s->reg[REG_GLOBAL_STATUS] & GLOBAL_STATUS_CTR_FRZ) &&
	       arch_cfg_of(s)->version >= ARCH_V_STREAMLINED;
}

/* v4's freeze bits: CTR_FRZ (59) and LBR_FRZ (58), the LBR freeze's
 * (sim_lbr.c sets it through STATUS_SET; SDM Vol. 3B 20.2.4.1). */
uint64_t arch_freeze_status_bits(const struct sim_cpu *s)
{
	return arch_cfg_of(s)->version >= ARCH_V_STREAMLINED
		   ? GLOBAL_STATUS_CTR_FRZ | GLOBAL_STATUS_LBR_FRZ
		   : 0;
}
