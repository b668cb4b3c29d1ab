/* lbr.callstack: in call-stack mode the LBRs keep the calls still open, a
 * near return popping the call it returns from (SDM Vol. 3B 18.1.2.4 for
 * architectural LBRs, CPUID 1CH EBX[2]; LBR_SELECT bit 9 EN_CALLSTACK on
 * the model-specific LBRs from Haswell, Linux intel/lbr.c hsw_lbr_sel_map
 * and LBR_CALL_STACK). The sampling kernel at CPL 3 (tests/lbr_rec.h),
 * calls and returns recorded:
 *  - after a whole call the youngest record is empty: every call the
 *    kernel made, and the platform's CALL into it at CPL 3
 *    (x86/user_x86.S), was popped by its return;
 *  - frozen at a PMI request CS_AT instructions in (FREEZE_LBRS_ON_PMI,
 *    where the CPU has it), the stack holds the open calls only: the
 *    platform's CALL into the kernel as the youngest record or under the
 *    kernel's own call (to fn or fn2) that is still open. Without
 *    call-stack mode the youngest records would be the kernel's returns
 *    and calls, the platform's CALL long gone.
 * Exact. */
#include "../lbr_rec.h"
#include "../measure.h"
#include "../../pmu/msr.h"
#include "../../apic/apic.h"

#define CS_ITERS 96
#define CS_AT	 400
#define CS_KINDS (LBR_KIND(SMP_CALL) | LBR_KIND(SMP_CALL_IND) | LBR_KIND(SMP_RET) | LBR_CALL_STACK)

extern const char pmh_smp_fn[], pmh_smp_fn2[];

/* A whole call: the youngest record must be empty. */
static bool whole(struct check_ctx *c, const struct lbr_fw *fw)
{
	struct lbr_rec r[LBR_REC_MAX];
	unsigned n = 0;

	if (!lbr_on(c, fw, CS_KINDS, 0))
		return false;
	int e = hw_user_run(&wl_sample, CS_ITERS);
	if (!lbr_off(c, fw) || !lbr_read(c, r, &n))
		return false;
	if (e != HW_OK)
		check_fail(c, "the kernel at CPL 3 came back with %s", hw_err_name(e));
	else if (r[0].from || r[0].to)
		check_fail(c,
			   "LBR call-stack mode: after the kernel returned the youngest record is "
			   "FROM 0x%llx TO 0x%llx, not empty: a return did not pop its call",
			   (unsigned long long)r[0].from, (unsigned long long)r[0].to);
	return c->v != V_FAIL;
}

static bool kernel_call(const struct lbr_rec *r)
{
	return r->to == (uint64_t)(uintptr_t)pmh_smp_fn ||
	       r->to == (uint64_t)(uintptr_t)pmh_smp_fn2;
}

/* Frozen mid-kernel: the open calls only. */
static void frozen(struct check_ctx *c, const struct lbr_fw *fw, unsigned k)
{
	struct lbr_rec r[LBR_REC_MAX];
	unsigned n = 0;
	uint64_t st = 0, lo, hi;
	struct lbr_freeze z = {k, CS_KINDS, CS_AT, CS_ITERS};

	if (!lbr_frozen_window(c, fw, z, &st, r, &n))
		return;
	smp_bounds(&lo, &hi);
	unsigned t = kernel_call(&r[0]) ? 1 : 0; /* the platform's CALL below it */
	if (n <= t || r[t].to != lo || (r[t].from >= lo && r[t].from < hi))
		check_fail(
		    c,
		    "LBR call-stack mode, frozen %u instructions into the kernel: records 0 "
		    "and 1 are FROM 0x%llx TO 0x%llx and FROM 0x%llx TO 0x%llx, expected the "
		    "open calls only (the kernel's to fn or fn2, then the platform's into "
		    "0x%llx)",
		    CS_AT, (unsigned long long)r[0].from, (unsigned long long)r[0].to,
		    (unsigned long long)r[1].from, (unsigned long long)r[1].to,
		    (unsigned long long)lo);
}

static void run(struct check_ctx *c)
{
	const struct pmu_lbr *l = &pmu_sampling(c->pmu)->lbr;
	struct lbr_fw fw;
	int k = m_counter_for(c, GEN_INSTRUCTIONS, 0);

	if (!lbr_usable(c))
		return;
	if (!l->callstack) {
		check_skip(c, "the LBRs have no call-stack mode (before Haswell: LBR format < 4; "
			      "arch LBRs without CPUID 1CH EBX[2]; AMD LBR v2)");
		return;
	}
	if (!lbr_save(c, &fw))
		return;
	uint32_t lvt = apic_lvt_pc_read();
	apic_lvt_pc_write(lvt | LVT_MASKED);
	bool done = whole(c, &fw);
	bool froze = done && l->freeze && k >= 0;
	if (froze)
		frozen(c, &fw, (unsigned)k);
	bool back = lbr_restore(c, &fw);
	m_quiesce(c);
	apic_lvt_pc_write(lvt);
	if (c->v == V_FAIL || !back)
		return;
	check_pass(c,
		   "LBR call-stack mode: every return popped its call (the stack empty after the "
		   "kernel)%s",
		   froze ? "; frozen mid-kernel it held the open calls only" : "");
}

PMH_CHECK(lbr_callstack, .id = "lbr.callstack", .summary = "LBR call-stack mode keeps open calls",
	  .order = 123, .run = run);
