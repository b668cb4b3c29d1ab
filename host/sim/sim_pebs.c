/* Precise event-based sampling (Intel SDM Vol. 3B 20.6.2.4 "Processor
 * Event Based Sampling (PEBS)", 20.9.2 adaptive PEBS; Linux
 * arch/x86/events/intel/ds.c). A counter whose IA32_PEBS_ENABLE bit is set
 * arms when it wraps: "When the counter IA32_PMCx overflows from maximum
 * count to zero, the PEBS hardware is armed. Upon occurrence of the next
 * PEBS event, the PEBS hardware triggers an assist and causes a PEBS
 * record to be written". The next instruction the counter counts writes
 * one record at the PEBS index, the index moves on by the record's size
 * (nothing is written past the absolute maximum), and the counter is
 * reloaded with its reset value from the DS save area. Records are
 * trap-like, as every model with PEBS says in PERF_CAPABILITIES[6]: the
 * RIP is the next instruction's ("RIP reported in the PEBS record will
 * point to the instruction after (+1) the instruction that causes the PEBS
 * assist"); from format 2 the EventingIP is the instruction's own. At the interrupt
 * threshold (the index at or past it after a record) GLOBAL_STATUS bit 62
 * is set and a PMI requested (sim_ds.c).
 * Layouts: format 1 0xB0 bytes (RFLAGS, RIP, RAX..R15, GLOBAL_STATUS, data
 * linear address, data source, latency), format 2 0xC0 (+ EventingIP, TX
 * abort information), format 3 0xC8 (+ TSC; 0x90 the applicable counters);
 * format 4 on the adaptive record: the basic group {format_size (63:48 the
 * record's size, 31:0 the groups it has), EventingIP, applicable counters,
 * TSC} and what PEBS_DATA_CFG selects for counters whose Adaptive_Record
 * bit is set (EVTSEL bit 34, FIXED_CTR_CTRL bit 32 + 4k, read from the
 * model's registers: on a hypervisor's guest an intercepted RDMSR, counted
 * before the counter's reload): memory info (4 qwords), GPRs (RFLAGS, RIP, RAX..R15), XMM0-15, LBR
 * entries (from, to, info; youngest first, from the architectural LBRs). Registers, memory and XMM
 * fields are 0: the sampling kernel's registers are not modelled (ours). A wrap in the harness's
 * own code, which is not traced, arms nothing (ours). An assist costs sim_smp_cfg.pebs_assist
 * cycles (realism "overhead"). Faults: pebs-next-ip writes the next instruction's address as the
 * EventingIP; pebs-reset-ignored leaves the counter where it is. */
#include "sim_ds.h"
#include "../../lib/str.h"
#include "../../pmu/msr.h"
#include "../../events/sample.h"

#define PEBS_FMT_ADAPTIVE 4   /* format 4 on: the basic group's layout */
#define PEBS_LBR_MAX	  32  /* LBR entries a record holds: the deepest arch LBRs (ours) */
#define PEBS_QWORDS_MAX	  160 /* the largest adaptive record: 154 qwords */
#define GRP_MEMINFO	  (1ull << 0)
#define GRP_GPRS	  (1ull << 1)
#define GRP_XMMS	  (1ull << 2)
#define GRP_LBRS	  (1ull << 3)
#define GRP_LBR_SHIFT	  24
#define GRP_BITS	  (0xfull | (0xffull << GRP_LBR_SHIFT))
#define EVTSEL_ADAPTIVE	  (1ull << 34)
#define FIXED_ADAPTIVE(k) (1ull << (32 + 4 * (k)))
#define CPUID_0A_GP(eax)  (((eax) >> 8) & 0xff)

static const struct sim_smp_cfg *cfg(const struct sim_cpu *s)
{
	return s->m->smp;
}

/* GP counters as CPUID.0AH lists them: fixed counter k is the simulator's
 * counter n_gp + k. */
static unsigned n_gp(const struct sim_cpu *s)
{
	for (unsigned i = 0; i < s->n_cpuid; i++)
		if (s->cpuid[i].leaf == 0x0a && s->cpuid[i].subleaf == 0)
			return CPUID_0A_GP(s->cpuid[i].r.eax);
	return 0;
}

/* The simulator's counter of PEBS_ENABLE bit b, or -1. */
static int ctr_of(const struct sim_cpu *s, unsigned b)
{
	unsigned i = b < DS_FIXED_BIT ? b : n_gp(s) + b - DS_FIXED_BIT;
	return i < s->n_ctr ? (int)i : -1;
}

/* The DS save area's reset value of PEBS_ENABLE bit b. */
static uint64_t reset_of(const struct sim_cpu *s, unsigned b)
{
	if (b < DS_FIXED_BIT)
		return b < DS_GP_MAX ? sim_ds_get(s, DS_RESET_GP(b)) : 0;
	return sim_ds_get(s, DS_RESET_FIXED(b - DS_FIXED_BIT));
}

static uint64_t model_msr(struct sim_cpu *s, uint32_t msr)
{
	uint64_t v = 0;
	return s->m->rdmsr(s, msr, &v) == HW_OK ? v : 0;
}

/* Whether PEBS_ENABLE bit b's counter asks for adaptive records. */
static bool adaptive_bit(struct sim_cpu *s, unsigned b)
{
	if (b < DS_FIXED_BIT)
		return b < DS_GP_MAX && (model_msr(s, MSR_P6_EVNTSEL0 + b) & EVTSEL_ADAPTIVE);
	return (model_msr(s, MSR_FIXED_CTR_CTRL) & FIXED_ADAPTIVE(b - DS_FIXED_BIT)) != 0;
}

/* What one record holds besides its layout. */
struct pebs_src {
	const struct sim_step *st;
	uint64_t fired; /* PEBS_ENABLE bits of the counters it is for */
	uint64_t eip;	/* EventingIP */
	uint64_t rip;	/* the next instruction's */
	uint64_t flags;
	bool groups; /* adaptive: a fired counter's Adaptive_Record is set */
};

/* Formats 0-3 (SDM Vol. 3B Tables 20-3, 20-12 "PEBS Record Format for
 * 6th Generation..."): the size in qwords. */
static unsigned legacy(const struct sim_cpu *s, const struct pebs_src *r, uint64_t *q)
{
	unsigned fmt = cfg(s)->pebs_fmt;

	q[0] = r->flags;
	q[1] = r->rip;
	if (fmt < 1)
		return 18; /* format 0 (Core 2): the registers alone */
	q[18] = r->fired;  /* format 3 the applicable counters; 1-2 the status */
	if (fmt < 2)
		return 22;
	q[22] = r->eip;
	if (fmt < 3)
		return 24;
	q[24] = s->tsc;
	return 25;
}

/* The adaptive record (Linux intel/ds.c struct pebs_basic, pebs_gprs,
 * pebs_xmm, lbr_entry): the size in qwords. */
static unsigned adaptive(struct sim_cpu *s, const struct pebs_src *r, uint64_t *q)
{
	uint64_t g = cfg(s)->pebs_adaptive && r->groups ? s->smp.ds.data_cfg & GRP_BITS : 0;
	unsigned n = 4;

	q[1] = r->eip;
	q[2] = r->fired;
	q[3] = s->tsc;
	if (g & GRP_MEMINFO)
		n += 4;
	if (g & GRP_GPRS) {
		q[n] = r->flags;
		q[n + 1] = r->rip;
		n += 18;
	}
	if (g & GRP_XMMS)
		n += 32;
	if (g & GRP_LBRS) {
		const struct sim_lbr *l = &s->smp.lbr;
		bool arch = cfg(s)->lbr_kind == SIM_LBR_ARCH;
		unsigned e = (unsigned)(g >> GRP_LBR_SHIFT) + 1;
		for (unsigned k = 0; k < e && k < PEBS_LBR_MAX; k++, n += 3) {
			q[n] = arch ? l->from[k] : 0;
			q[n + 1] = arch ? l->to[k] : 0;
			q[n + 2] = arch ? l->info[k] : 0;
		}
	}
	q[0] = (uint64_t)(n * 8) << 48 | (g & 0xffffffffull);
	return n;
}

/* Writes the record for the counters in fired; false when the buffer had
 * no room for it. */
static bool record(struct sim_cpu *s, const struct sim_step *st, uint64_t fired)
{
	uint64_t q[PEBS_QWORDS_MAX];
	struct pebs_src r = {
	    .st = st,
	    .fired = fired,
	    .eip = sim_has_fault(s, SF_PEBS_NEXT_IP) ? st->next : st->ip,
	    .rip = st->next,			   /* trap-like */
	    .flags = s->irq_enabled ? 0x202 : 0x2, /* bit 1 reads 1 */
	};
	bool groups = cfg(s)->pebs_adaptive && (s->smp.ds.data_cfg & GRP_BITS);

	for (unsigned b = 0; b < 64 && groups; b++) /* the selects read only then */
		if ((fired >> b) & 1)
			r.groups |= adaptive_bit(s, b);
	pmh_memset(q, 0, sizeof(q));
	unsigned n = cfg(s)->pebs_fmt >= PEBS_FMT_ADAPTIVE ? adaptive(s, &r, q) : legacy(s, &r, q);
	uint64_t idx = sim_ds_get(s, DS_PEBS_INDEX), max = sim_ds_get(s, DS_PEBS_MAX);
	if (idx < sim_ds_get(s, DS_PEBS_BASE) || idx + n * 8 > max)
		return false; /* full: nothing past the absolute maximum */
	sim_ds_write(idx, q, n * 8);
	sim_ds_put(s, DS_PEBS_INDEX, idx + n * 8);
	s->smp.ds.records++;
	return idx + n * 8 >= sim_ds_get(s, DS_PEBS_THRESHOLD);
}

/* How many of its events an armed counter lets pass before its record:
 * none for the precise-distribution event on its counter, or where the
 * model has no shadow; else a draw under realism "skid". */
static uint8_t shadow(struct sim_cpu *s, unsigned b)
{
	const struct sim_smp_cfg *c = cfg(s);

	if (!c->pebs_shadow || !sim_real(s, SE_SKID) || b >= DS_GP_MAX)
		return 0;
	uint64_t sel = model_msr(s, MSR_P6_EVNTSEL0 + b);
	if (b == c->pdir_ctr && (sel & 0xffff) == c->pdir_enc)
		return 0;
	return (uint8_t)sim_rand(s, 0, c->pebs_shadow);
}

void sim_pebs_step(struct sim_cpu *s, const struct sim_step *st)
{
	struct sim_ds *d = &s->smp.ds;
	uint64_t en = d->pebs_enable & cfg(s)->pebs_ctrs, fired = 0;
	struct workload_vector v;

	sim_step_vector(st, &v);
	for (unsigned b = 0; b < 64; b++) {
		int i = (en >> b) & 1 ? ctr_of(s, b) : -1;
		if (i < 0)
			continue;
		if ((d->armed >> b) & 1) {
			if (!s->m->rate(s, (unsigned)i, &v))
				continue;
			if (d->shadow[b]) /* an event in the shadow: no record */
				d->shadow[b]--;
			else /* its next event */
				fired |= 1ull << b;
		} else if ((st->wrapped >> i) & 1) {
			d->armed |= 1ull << b;
			d->shadow[b] = shadow(s, b);
		}
	}
	if (!fired)
		return;
	d->armed &= ~fired;
	bool thr = record(s, st, fired);
	for (unsigned b = 0; b < 64; b++)
		if (((fired >> b) & 1) && !sim_has_fault(s, SF_PEBS_RESET_IGNORED))
			sim_ctr_set(s, (unsigned)ctr_of(s, b), reset_of(s, b));
	if (thr)
		sim_ds_threshold(s, true);
	if (cfg(s)->pebs_assist && sim_real(s, SE_OVERHEAD))
		sim_retire(s, 0, 0, cfg(s)->pebs_assist); /* the assist's cycles */
}
