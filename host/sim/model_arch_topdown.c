/* Topdown slots and IA32_PERF_METRICS on the architectural models whose
 * P-cores have them (arch_cfg.td_width: Alder Lake's Golden Cove, Arrow
 * Lake's Lion Cove), behind hooks in model_arch.c:
 *  - fixed counter 3 (TOPDOWN.SLOTS) counts td_width slots per core cycle:
 *    "cycles multiplied by core issue width" (Linux tools/perf/
 *    Documentation/topdown.txt); the width is TMA's Pipeline_Width, 6 on
 *    Golden Cove and 8 on Lion Cove (pmu-tools adl_glc_ratios.py,
 *    lnl_lnc_ratios.py).
 *  - while fixed counter 3 counts and GLOBAL_CTRL.EN_PERF_METRICS (bit 48)
 *    is set, each step's slots are split by what the workload did (the
 *    retired hook) and summed per category; IA32_PERF_METRICS (329H) reads
 *    each sum as an 8-bit fraction of 0xFF of the level-1 total, rounded:
 *    retiring, bad speculation, frontend bound, backend bound in bits
 *    31:0, then heavy operations, branch mispredicts, fetch latency and
 *    memory bound, each a part of the level-1 field below it (topdown.txt
 *    "Extension on Sapphire Rapids Server"; Linux intel/core.c
 *    icl_get_metrics_event_value: slots * field / 0xff).
 *  - a write of 329H sets the sums to its fractions of fixed counter 3 as
 *    it stands (Linux writes FIXED_CTR3 first, then PERF_METRICS: "The
 *    fixed counter 3 has to be written before the PERF_METRICS").
 *  - metrics-unscaled: the fields are fractions of 0x80, not of 0xFF.
 * The split, per iteration of W slots a cycle (ours, after the TMA level-1
 * definitions of Yasin, ISPASS 2014): retiring = the micro-ops retired;
 * bad speculation = W slots for each cycle of the misprediction penalty;
 * backend bound = W for each other stall cycle but the L1I refills
 * (memory, serialising kinds); frontend bound = the rest: the front end's
 * refills (fetch latency, at the L2's latency each) and the issue slots
 * left empty. Heavy operations: the micro-ops of the microcoded kinds;
 * memory bound: the backend stalls but the serialising kinds'. */
#include "../../pmu/msr.h"
#include "model_arch.h"
#include "uarch.h"

enum td_cat {
	TD_RETIRING,
	TD_BAD_SPEC,
	TD_FE_BOUND,
	TD_BE_BOUND,
	TD_HEAVY_OPS,
	TD_BR_MISPREDICT,
	TD_FETCH_LAT,
	TD_MEM_BOUND,
	TD_CATS,
	TD_LEVEL1 = 4
};

#define FIELD_BITS  8
#define FIELD_MAX   0xffu
#define FIELD_SCALE 0xffu /* a field's fraction is of 0xFF (topdown.txt) */
#define UNSCALED    0x80u /* metrics-unscaled: of 0x80 */
#define FIXED_SLOTS 3	  /* TOPDOWN.SLOTS is fixed counter 3 */

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

uint64_t arch_slots(const struct sim_cpu *s, const struct workload_vector *v)
{
	return (uint64_t)arch_cfg_of(s)->td_width * v->cycles;
}

uint64_t arch_td_ctrl_bits(const struct sim_cpu *s)
{
	return arch_cfg_of(s)->perf_caps & PERF_CAP_PERF_METRICS ? GLOBAL_CTRL_EN_PERF_METRICS : 0;
}

/* Cycles of the serialising and microcoded kinds, as uarch.c prices them,
 * and their instructions. */
static uint64_t serial_cycles(const struct uarch_cfg *u, const struct workload_vector *v,
			      uint64_t *insn)
{
	uint64_t segs = 0;
	for (unsigned i = 0; i < WL_SEGS; i++)
		segs += v->seg_loads[i];
	*insn = v->cpuid + v->far + segs + v->locked;
	return v->cpuid * u->cpuid_cyc + v->locked * u->lock_cyc + segs * u->seg_cyc +
	       v->far * u->far_cyc + v->clflush * u->clflush_cyc + v->x87 * u->x87_cyc;
}

/* The slots of one iteration of v by category. */
static void split(const struct sim_cpu *s, const struct workload_vector *v, uint64_t *o)
{
	const struct uarch_cfg *u = uarch_of(s);
	uint64_t w = arch_cfg_of(s)->td_width, left = w * v->cycles, heavy;
	uint64_t mis = min64(v->branch_misses * u->mispredict, v->stall_cycles);
	uint64_t fetch = min64(v->ic_miss * u->lat_l2, v->stall_cycles - mis);
	uint64_t back = v->stall_cycles - mis - fetch;
	uint64_t serial = serial_cycles(u, v, &heavy);

	o[TD_RETIRING] = min64(v->uops, left);
	left -= o[TD_RETIRING];
	o[TD_BAD_SPEC] = min64(mis * w, left);
	left -= o[TD_BAD_SPEC];
	o[TD_BE_BOUND] = min64(back * w, left);
	o[TD_FE_BOUND] = left - o[TD_BE_BOUND];
	/* each heavy instruction's own micro-op and its extra ones */
	o[TD_HEAVY_OPS] = min64(sub0(v->uops, v->instructions) + heavy, o[TD_RETIRING]);
	o[TD_BR_MISPREDICT] = o[TD_BAD_SPEC];
	o[TD_FETCH_LAT] = min64(fetch * w, o[TD_FE_BOUND]);
	o[TD_MEM_BOUND] = min64(sub0(back, serial) * w, o[TD_BE_BOUND]);
}

void arch_td_retired(struct sim_cpu *s, const struct workload_vector *v, uint64_t k)
{
	const struct arch_cfg *c = arch_cfg_of(s);
	uint64_t o[TD_CATS];

	if (!c->td_width || c->n_fixed <= FIXED_SLOTS ||
	    !(s->reg[REG_GLOBAL_CTRL] & arch_td_ctrl_bits(s)) ||
	    !s->m->rate(s, c->n_gp + FIXED_SLOTS, v)) /* fixed counter 3 counts */
		return;
	split(s, v, o);
	for (unsigned i = 0; i < TD_CATS; i++)
		s->reg[REG_TD(i)] += k * o[i];
}

int arch_td_rdmsr(struct sim_cpu *s, uint64_t *v)
{
	uint64_t total = 0, scale = sim_has_fault(s, SF_METRICS_UNSCALED) ? UNSCALED : FIELD_SCALE;

	for (unsigned i = 0; i < TD_LEVEL1; i++)
		total += s->reg[REG_TD(i)];
	*v = 0;
	if (!total)
		return HW_OK;
	for (unsigned i = 0; i < TD_CATS; i++) {
		unsigned __int128 f =
		    ((unsigned __int128)s->reg[REG_TD(i)] * scale + total / 2) / total;
		*v |= (uint64_t)(f > FIELD_MAX ? FIELD_MAX : f) << (FIELD_BITS * i);
	}
	return HW_OK;
}

int arch_td_wrmsr(struct sim_cpu *s, uint64_t v)
{
	const struct arch_cfg *c = arch_cfg_of(s);
	uint64_t slots = c->n_fixed > FIXED_SLOTS ? s->ctr[c->n_gp + FIXED_SLOTS] : 0;

	for (unsigned i = 0; i < TD_CATS; i++)
		s->reg[REG_TD(i)] = ((v >> (FIELD_BITS * i)) & FIELD_MAX) * slots / FIELD_SCALE;
	return HW_OK;
}
