/* counter.width: all implemented bits of each counter hold a written value
 * and the bits above the width read 0 (widths: SDM Vol. 3B, APM Vol. 2 §13.2, KNC #327357). Every
 * value is read with RDMSR itself: the driver's read masks to the width and
 * would hide bits above it. Writing all 64 bits to the counter MSR checks
 * those bits; a #GP there is the CPU refusing reserved bits, also correct.
 * Raw writes go out twice, as erratum N15 asks on NetBurst (specification update #249199). */
#include "../measure.h"
#include "../hv_policy.h"

/* 32 one bits through the legacy path: sign-extended to the full width
 * where writes sign-extend (SDM Vol. 3B P6 section, 20.2.6). */
#define LEGACY_ONES 0xffffffffull

static int raw(const struct pmu_counter *k, uint64_t *v)
{
	*v = 0;
	return hw_rdmsr(k->ctr_msr, v);
}

/* The counter reads back exactly want (raw); fails with what it holds. */
static bool holds(struct check_ctx *c, const struct pmu_counter *k, uint64_t want,
		  const char *after)
{
	uint64_t got;
	int st = raw(k, &got);

	if (st != HW_OK)
		check_fail(c, "%s (MSR 0x%x): RDMSR raised %s", k->name, k->ctr_msr,
			   hw_err_name(st));
	else if (got != want)
		check_fail(c, "%s (MSR 0x%x): expected 0x%llx (%u bits) after %s, got 0x%llx%s",
			   k->name, k->ctr_msr, (unsigned long long)want, k->width, after,
			   (unsigned long long)got,
			   got & ~pmu_width_mask(k->width) ? " (bits above the width set)" : "");
	return st == HW_OK && got == want;
}

/* Counter i. False when an op failed (FAILed). */
static bool one(struct check_ctx *c, unsigned i)
{
	struct pmu *p = c->pmu;
	const struct pmu_counter *k = &p->ctr[i];
	uint64_t want = pmu_width_mask(k->width), top = 1ull << (k->width - 1);
	/* All ones: through the full-width path where there is one, else a
	 * 32-bit write that sign-extends to the full width. */
	enum pmu_write_path path = PMU_WRITE_FULL;

	/* the full-width path is tried first: a family without one says so */
	if (p->ops->write(p, i, want, path) != HW_OK) {
		path = PMU_WRITE_LEGACY;
		if (!m_write(c, i, LEGACY_ONES, path))
			return false;
	}
	holds(c, k, want, "writing ones");
	/* a single high bit: catches aliasing of upper bits */
	if (path == PMU_WRITE_FULL) {
		if (!m_write(c, i, top, path))
			return false;
		holds(c, k, top, "writing the top bit alone");
	}
	/* all 64 bits straight to the MSR: bits above the width must read 0 */
	if (hw_wrmsr(k->ctr_msr, ~0ull) == HW_OK && hw_wrmsr(k->ctr_msr, ~0ull) == HW_OK)
		holds(c, k, want, "writing 64 one bits to the MSR");
	if (!m_write(c, i, 0, PMU_WRITE_PRELOAD))
		return false;
	holds(c, k, 0, "writing 0");
	return true;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;

	m_quiesce(c);
	for (unsigned i = 0; i < p->n && (hv_is_taken(c, i) || one(c, i)); i++)
		; /* a counter the host moves is not the guest's to judge */
	m_quiesce(c);
	check_pass(c, "%u counters: %u x %u bits general-purpose%s; bits above read 0 (RDMSR)",
		   p->n, p->n_gp, p->ctr[0].width, p->n_fixed ? ", fixed counters too" : "");
}

PMH_CHECK(counter_width, .id = "counter.width", .summary = "implemented bits hold, upper bits 0",
	  .order = 31, .needs_pmu = true, .run = run);
