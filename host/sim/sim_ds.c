/* The debug store (Intel SDM Vol. 3B 18.6.3.4 "Debug Store (DS)
 * Mechanism"): its MSRs and the branch trace store; PEBS is sim_pebs.c's.
 *  - IA32_DS_AREA (600H) holds the linear address of the DS save area
 *    (sim_ds.h), which the simulator reads and writes where the harness
 *    put it; a non-canonical address #GPs (SDM Vol. 4 Table 2-2).
 *  - IA32_PEBS_ENABLE (3F1H): a bit per counter the model takes PEBS on
 *    (sim_smp_cfg.pebs_ctrs), and before adaptive PEBS the load-latency
 *    bits 32 + i beside them (SDM Vol. 3B 20.3.1.1.2); MSR_PEBS_DATA_CFG
 *    (3F2H) where the model has adaptive PEBS: the record groups (bits 0-3)
 *    and the LBR entries (31:24; Linux intel/ds.c PEBS_DATACFG_*). Other
 *    bits #GP.
 *  - BTS (SDM Vol. 3B 18.4.8, 18.6.3.4): with DEBUGCTL.TR and .BTS set,
 *    each taken branch stores {from, to, flags} (24 bytes; flags bit 4:
 *    predicted) at the BTS index, which moves on by 24. BTS_OFF_OS and
 *    BTS_OFF_USR leave out the branches at CPL 0 and CPL > 0. Without
 *    BTINT the buffer is circular (the index goes back to the base at the
 *    absolute maximum); with BTINT records stop at the absolute maximum and
 *    a PMI is requested once the index reaches the interrupt threshold
 *    (Linux handles it in intel_bts_interrupt, before reading the status:
 *    no status bit, ours from that).
 * Faults: bts-skips-branch drops every 16th branch the BTS would record;
 * ds-threshold-lost raises no PMI and sets no status at a threshold. */
#include "sim_ds.h"
#include "../../lib/str.h"
#include "../../pmu/msr.h"

#define BTS_RECORD     24
#define BTS_PREDICTED  (1ull << 4)
#define BTS_SKIP_EVERY 16 /* bts-skips-branch */
#define PEBS_LL_SHIFT  32 /* load-latency enables beside the PEBS ones */
#define DATA_CFG_RW    (0xfull | (0xffull << 24))
#define CANONICAL_BITS 48

static const struct sim_smp_cfg *cfg(const struct sim_cpu *s)
{
	return s->m->smp;
}

static bool has_pebs(const struct sim_smp_cfg *c)
{
	return c->pebs_ctrs != 0;
}

bool sim_ds_msr(const struct sim_cpu *s, uint32_t msr)
{
	const struct sim_smp_cfg *c = cfg(s);

	switch (msr) {
	case MSR_IA32_DS_AREA:
		return c->bts || has_pebs(c);
	case MSR_IA32_PEBS_ENABLE:
		return has_pebs(c);
	case MSR_PEBS_DATA_CFG:
		return has_pebs(c) && c->pebs_adaptive;
	default:
		return false;
	}
}

int sim_ds_rdmsr(struct sim_cpu *s, uint32_t msr, uint64_t *v)
{
	const struct sim_ds *d = &s->smp.ds;

	*v = msr == MSR_IA32_DS_AREA	   ? d->area
	     : msr == MSR_IA32_PEBS_ENABLE ? d->pebs_enable
					   : d->data_cfg;
	return HW_OK;
}

/* The PEBS_ENABLE bits the model holds. */
static uint64_t pebs_enable_rw(const struct sim_smp_cfg *c)
{
	uint64_t ll = c->pebs_adaptive ? 0 : (c->pebs_ctrs & 0xffffffffull) << PEBS_LL_SHIFT;
	return c->pebs_ctrs | ll;
}

static bool canonical(uint64_t a)
{
	int64_t x = (int64_t)(a << (64 - CANONICAL_BITS)) >> (64 - CANONICAL_BITS);
	return (uint64_t)x == a;
}

int sim_ds_wrmsr(struct sim_cpu *s, uint32_t msr, uint64_t v)
{
	struct sim_ds *d = &s->smp.ds;

	switch (msr) {
	case MSR_IA32_DS_AREA:
		if (!canonical(v))
			return HW_FAULT_GP;
		d->area = v;
		return HW_OK;
	case MSR_IA32_PEBS_ENABLE:
		if (v & ~pebs_enable_rw(cfg(s)))
			return HW_FAULT_GP;
		d->pebs_enable = v;
		d->armed &= v; /* a counter whose PEBS is off waits for nothing */
		return HW_OK;
	default: /* MSR_PEBS_DATA_CFG */
		if (v & ~DATA_CFG_RW)
			return HW_FAULT_GP;
		d->data_cfg = v;
		return HW_OK;
	}
}

/* ---- the DS save area -------------------------------------------------- */

uint64_t sim_ds_get(const struct sim_cpu *s, unsigned off)
{
	uint64_t v;
	pmh_memcpy(&v, (const void *)(uintptr_t)(s->smp.ds.area + off), sizeof(v));
	return v;
}

void sim_ds_put(const struct sim_cpu *s, unsigned off, uint64_t v)
{
	pmh_memcpy((void *)(uintptr_t)(s->smp.ds.area + off), &v, sizeof(v));
}

void sim_ds_write(uint64_t la, const void *src, unsigned n)
{
	pmh_memcpy((void *)(uintptr_t)la, src, n);
}

void sim_ds_threshold(struct sim_cpu *s, bool pebs)
{
	if (sim_has_fault(s, SF_DS_THRESHOLD_LOST))
		return;
	/* GLOBAL_STATUS bit 62, OvfDSBuffer (SDM Vol. 3B 20.2.4; Linux
	 * intel/core.c: "PEBS overflow sets bit 62 in the global status
	 * register") */
	if (pebs)
		sim_smp_status_set(s, GLOBAL_STATUS_DS_BUFFER);
	sim_pmi_request(s);
}

/* ---- the branch trace store -------------------------------------------- */

bool sim_ds_bts_on(struct sim_cpu *s)
{
	uint64_t dbg = sim_smp_debugctl(s);

	return cfg(s)->bts && s->smp.ds.area && (dbg & DEBUGCTL_TR) && (dbg & DEBUGCTL_BTS);
}

/* Whether BTS_OFF_OS / BTS_OFF_USR leave b out. */
static bool filtered(uint64_t dbg, const struct sim_branch *b)
{
	return b->cpl ? (dbg & DEBUGCTL_BTS_OFF_USR) != 0 : (dbg & DEBUGCTL_BTS_OFF_OS) != 0;
}

void sim_ds_branch(struct sim_cpu *s, const struct sim_branch *b)
{
	struct sim_ds *d = &s->smp.ds;
	uint64_t dbg = sim_smp_debugctl(s);
	bool bint = (dbg & DEBUGCTL_BTINT) != 0;

	if (!sim_ds_bts_on(s) || filtered(dbg, b))
		return;
	if (sim_has_fault(s, SF_BTS_SKIPS_BRANCH) && ++d->bts_seen % BTS_SKIP_EVERY == 0)
		return;
	uint64_t base = sim_ds_get(s, DS_BTS_BASE), idx = sim_ds_get(s, DS_BTS_INDEX);
	uint64_t max = sim_ds_get(s, DS_BTS_MAX);
	if (idx < base || idx + BTS_RECORD > max) {
		if (bint)
			return; /* full: records stop at the absolute maximum */
		idx = base;	/* circular (an index outside the buffer too: ours) */
		if (idx + BTS_RECORD > max)
			return; /* no room for one record */
	}
	uint64_t rec[3] = {b->from, b->to, b->mispred ? 0 : BTS_PREDICTED};
	sim_ds_write(idx, rec, sizeof(rec));
	d->bts_records++;
	idx += BTS_RECORD;
	if (!bint && idx + BTS_RECORD > max)
		idx = base;
	sim_ds_put(s, DS_BTS_INDEX, idx);
	if (bint && idx >= sim_ds_get(s, DS_BTS_THRESHOLD))
		sim_ds_threshold(s, false);
}

void sim_ds_step(struct sim_cpu *s, const struct sim_step *st)
{
	if (has_pebs(cfg(s)) && s->smp.ds.pebs_enable && s->smp.ds.area)
		sim_pebs_step(s, st);
}
