/* overflow.preload: a counter preloaded with -N overflows after exactly N
 * events. The reference is the exact count E of one measurement window:
 * preloading -E must wrap to exactly 0 with the overflow flagged, -(E+1)
 * must read all ones with no overflow. Then each configured N (1, 2, 1000,
 * the largest the width allows, and 2^31 on sign-extending families) must
 * read back -N before counting and E - N (mod 2^width) after. */
#include "../measure.h"

static bool overflowed(struct check_ctx *c, unsigned i)
{
	uint64_t m = 0;
	c->pmu->ops->overflow_status(c->pmu, &m);
	return (m >> i) & 1;
}

static void one(struct check_ctx *c, unsigned i, uint64_t n, uint64_t e)
{
	struct pmu *p = c->pmu;
	uint64_t mask = pmu_width_mask(p->ctr[i].width), v = 0;

	p->ops->ack(p, 1ull << i);
	if (pmu_preload(p, i, n)) {
		check_fail(c, "%s: preload of -%llu refused (max period %llu)", p->ctr[i].name,
			   (unsigned long long)n, (unsigned long long)pmu_max_period(p, i));
		return;
	}
	p->ops->read(p, i, &v);
	if (v != ((0 - n) & mask)) {
		check_fail(c, "%s: after preloading -%llu expected 0x%llx, read 0x%llx", p->ctr[i].name,
			   (unsigned long long)n, (unsigned long long)((0 - n) & mask),
			   (unsigned long long)v);
		return;
	}
	m_window(c, 1ull << i, &wl_loop, 100);
	p->ops->read(p, i, &v);
	uint64_t want = (e - n) & mask;
	bool want_ovf = e >= n;
	bool got_ovf = overflowed(c, i);
	if (v != want)
		check_fail(c, "%s: preload -%llu then %llu events: expected 0x%llx, got 0x%llx",
			   p->ctr[i].name, (unsigned long long)n, (unsigned long long)e,
			   (unsigned long long)want, (unsigned long long)v);
	else if (want_ovf != got_ovf)
		check_fail(c, "%s: preload -%llu then %llu events: expected overflow %s, got %s",
			   p->ctr[i].name, (unsigned long long)n, (unsigned long long)e,
			   want_ovf ? "flagged" : "not flagged", got_ovf ? "flagged" : "not flagged");
	p->ops->ack(p, 1ull << i);
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	unsigned tested = 0;
	uint64_t e = 0;

	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		if (m_setup(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR))
			continue;
		int st = m_window_count(c, i, &wl_loop, 100, &e);
		if (st < 0) {
			check_fail(c, "%s: reference window faulted", p->ctr[i].name);
			continue;
		}
		if (st > 0 || e < 3) {
			check_skip(c, "%s: the reference window is not reproducible (%llu events)",
				   p->ctr[i].name, (unsigned long long)e);
			continue;
		}
		tested++;
		one(c, i, e, e);      /* exactly E: wraps to 0, overflow */
		one(c, i, e + 1, e);  /* one short: all ones, no overflow */
		for (unsigned k = 0; k < c->opt->n_preloads; k++) {
			uint64_t n = c->opt->preloads[k] ? c->opt->preloads[k] : pmu_max_period(p, i);
			if (n <= pmu_max_period(p, i))
				one(c, i, n, e);
		}
		if (p->ctr[i].preload_bits == 32)
			one(c, i, 1ull << 31, e); /* the sign-extension boundary */
	}
	m_quiesce(c);
	if (!tested)
		check_skip(c, "no counter can count instructions");
	else
		check_pass(c, "%u counters overflow after exactly N events (window of %llu events)",
			   tested, (unsigned long long)e);
}

PMH_CHECK(overflow_preload, .id = "overflow.preload", .summary = "-N preload overflows after N",
	  .order = 50, .needs_pmu = true, .run = run);
