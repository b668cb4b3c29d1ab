/* counter.width: all implemented bits of each counter hold a written value
 * and the bits above the width read 0 (facts §2 widths per family). */
#include "../measure.h"

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;

	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		const struct pmu_counter *k = &p->ctr[i];
		uint64_t want = pmu_width_mask(k->width), got = 0;
		/* All ones: through the full-width path where there is one,
		 * else a 32-bit write that sign-extends to the full width. */
		enum pmu_write_path path = PMU_WRITE_FULL;
		uint64_t val = ~0ull;
		if (p->ops->write(p, i, val & want, path) != HW_OK) {
			path = PMU_WRITE_LEGACY;
			val = 0xffffffffull;
			if (p->ops->write(p, i, val, path) != HW_OK) {
				check_fail(c, "expected %s writable, got a fault", k->name);
				continue;
			}
		}
		p->ops->read(p, i, &got);
		if (got != want)
			check_fail(c, "%s (MSR 0x%x): expected 0x%llx (%u bits) after writing ones, got 0x%llx",
				   k->name, k->ctr_msr, (unsigned long long)want, k->width,
				   (unsigned long long)got);
		/* a single high bit: catches aliasing of upper bits */
		uint64_t top = 1ull << (k->width - 1);
		if (path == PMU_WRITE_FULL) {
			p->ops->write(p, i, top, path);
			p->ops->read(p, i, &got);
			if (got != top)
				check_fail(c, "%s: expected bit %u alone (0x%llx), got 0x%llx", k->name,
					   k->width - 1, (unsigned long long)top, (unsigned long long)got);
		}
		p->ops->write(p, i, 0, PMU_WRITE_PRELOAD);
		p->ops->read(p, i, &got);
		if (got != 0)
			check_fail(c, "%s: expected 0 after writing 0, got 0x%llx", k->name,
				   (unsigned long long)got);
	}
	check_pass(c, "%u counters: %u x %u bits general-purpose%s", p->n, p->n_gp, p->ctr[0].width,
		   p->n_fixed ? ", fixed counters too" : "");
}

PMH_CHECK(counter_width, .id = "counter.width", .summary = "implemented bits hold, upper bits 0",
	  .order = 31, .needs_pmu = true, .run = run);
