#include "measure.h"
#include "../pmu/msr.h"
#include "../lib/str.h"

#define MAX_REPEAT 1001

const char *m_gen_name(enum pmu_generic g)
{
	static const char *const n[GEN_COUNT] = { "cycles",	    "instructions", "branches",
						  "branch-misses",  "cache-references",
						  "cache-misses",   "ref-cycles" };
	return g < GEN_COUNT ? n[g] : "?";
}

void m_quiesce(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	p->ops->stop(p, pmu_all_mask(p));
	p->ops->reset(p);
}

int m_setup(struct check_ctx *c, unsigned ctr, enum pmu_generic g, uint32_t flags)
{
	struct pmu *p = c->pmu;
	struct pmu_event ev;

	if (ctr >= p->n || p->ops->generic_event(p, g, ctr, &ev) != 0)
		return -1;
	p->ops->stop(p, 1ull << ctr);
	if (p->ops->program(p, ctr, &ev, flags) != HW_OK)
		return -1;
	if (p->ops->write(p, ctr, 0, PMU_WRITE_PRELOAD) != HW_OK)
		return -1;
	return 0;
}

int m_counter_for(struct check_ctx *c, enum pmu_generic g, unsigned from)
{
	struct pmu_event ev;
	for (unsigned i = from; i < c->pmu->n; i++)
		if (c->pmu->ops->generic_event(c->pmu, g, i, &ev) == 0)
			return (int)i;
	return -1;
}

static bool smi_count(struct check_ctx *c, uint64_t *v)
{
	return c->cpu->vendor == VENDOR_INTEL && hw_rdmsr(MSR_SMI_COUNT, v) == HW_OK;
}

int m_window(struct check_ctx *c, uint64_t mask, const struct workload *w, uint64_t iters)
{
	return m_window_write(c, mask, 0, 0, w, iters);
}

int m_window_write(struct check_ctx *c, uint64_t mask, uint32_t msr, uint64_t val,
		   const struct workload *w, uint64_t iters)
{
	struct pmu *p = c->pmu;
	uint64_t smi0 = 0, smi1 = 0;
	bool smi = smi_count(c, &smi0);
	bool irq = hw_irq_enabled();

	/* The firmware's timer must not land inside the window. */
	hw_irq_disable();
	p->ops->start(p, mask);
	if (msr)
		hw_wrmsr(msr, val);
	hw_run_workload(w, iters);
	p->ops->stop(p, mask);
	if (irq)
		hw_irq_enable();
	if (smi && smi_count(c, &smi1) && smi1 != smi0)
		return -1;
	return 0;
}

static int zero_and_run(struct check_ctx *c, unsigned ctr, const struct workload *w,
			uint64_t iters, uint64_t *out)
{
	struct pmu *p = c->pmu;
	for (int tries = 0; tries < 5; tries++) {
		if (p->ops->write(p, ctr, 0, PMU_WRITE_PRELOAD) != HW_OK)
			return -2;
		if (m_window(c, 1ull << ctr, w, iters) != 0)
			continue; /* disturbed by an SMI: repeat, never report */
		return p->ops->read(p, ctr, out) == HW_OK ? 0 : -2;
	}
	return -1;
}

void m_stat(uint64_t *v, unsigned n, struct stat3 *out)
{
	for (unsigned i = 1; i < n; i++) { /* insertion sort: n is small */
		uint64_t x = v[i];
		unsigned j = i;
		while (j && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	out->min = n ? v[0] : 0;
	out->med = n ? v[n / 2] : 0;
	out->max = n ? v[n - 1] : 0;
}

int m_events(struct check_ctx *c, unsigned ctr, const struct workload *w, uint64_t n,
	     struct stat3 *out)
{
	static uint64_t d[MAX_REPEAT];
	unsigned rep = c->opt->repeat ? c->opt->repeat : 1;
	uint64_t mask = pmu_width_mask(c->pmu->ctr[ctr].width);

	if (rep > MAX_REPEAT)
		rep = MAX_REPEAT;
	for (unsigned r = 0; r < rep; r++) {
		uint64_t a, b;
		int st = zero_and_run(c, ctr, w, n, &a);
		if (st == 0)
			st = zero_and_run(c, ctr, w, 2 * n, &b);
		if (st)
			return st;
		d[r] = (b - a) & mask;
	}
	m_stat(d, rep, out);
	return 0;
}

int m_window_count(struct check_ctx *c, unsigned ctr, const struct workload *w, uint64_t iters,
		   uint64_t *out)
{
	static uint64_t v[MAX_REPEAT];
	unsigned rep = c->opt->repeat ? c->opt->repeat : 1;
	struct stat3 s;

	if (rep > MAX_REPEAT)
		rep = MAX_REPEAT;
	for (unsigned r = 0; r < rep; r++) {
		int st = zero_and_run(c, ctr, w, iters, &v[r]);
		if (st)
			return st;
	}
	m_stat(v, rep, &s);
	*out = s.med;
	return s.min == s.max ? 0 : 1; /* 1: the window is not reproducible */
}
