/* counter.write-semantics: 32-bit writes sign-extend bit 31 on the families
 * that do that (P6, arch perfmon through 0xC1+i: facts §2), the full-width
 * alias and the KNC / AMD / NetBurst counters keep every bit (KNC §1.4.3.2). */
#include "../measure.h"

/* Writes v through path and reads want back; FAILs naming what was
 * written when the value is off. False when an op failed (FAILed). */
static bool expect(struct check_ctx *c, unsigned i, uint64_t v, enum pmu_write_path path,
		   uint64_t want, const char *what)
{
	struct pmu *p = c->pmu;
	uint64_t got = 0;
	int e = p->ops->write(p, i, v, path);

	if (e != HW_OK) {
		check_fail(c, "%s: %s write of 0x%llx failed: %s", p->ctr[i].name, what,
			   (unsigned long long)v, hw_err_name(e));
		return false;
	}
	if (!m_read(c, i, &got))
		return false;
	if (got != want)
		check_fail(c, "%s: %s write of 0x%llx: expected 0x%llx, got 0x%llx", p->ctr[i].name,
			   what, (unsigned long long)v, (unsigned long long)want,
			   (unsigned long long)got);
	return true;
}

/* bit 31 set: upper bits follow it; clear: they are 0. False when an op
 * failed (FAILed). */
static bool sign_extends(struct check_ctx *c, unsigned i, uint64_t mask)
{
	return expect(c, i, 0x80000000ull, PMU_WRITE_LEGACY, mask & ~0x7fffffffull,
		      "sign-extending (bit 31 set)") &&
	       expect(c, i, 0x7fffffffull, PMU_WRITE_LEGACY, 0x7fffffffull,
		      "sign-extending (bit 31 clear)") &&
	       expect(c, i, 0xffffffff00001234ull & mask, PMU_WRITE_LEGACY, 0x1234,
		      "sign-extending (upper bits ignored)");
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	unsigned sx = 0, full = 0;

	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		const struct pmu_counter *k = &p->ctr[i];
		uint64_t mask = pmu_width_mask(k->width);
		if (k->sign_extends && k->kind == PMU_CTR_GP) {
			if (!sign_extends(c, i, mask))
				return;
			sx++;
		}
		/* full-width path: an arbitrary pattern with bit 31 set and
		 * the top bit clear must come back unchanged; a family
		 * without one refuses it */
		uint64_t pat = (0x5a5a5a5aa5a5a5a5ull & mask) & ~(1ull << (k->width - 1));
		if (p->ops->write(p, i, pat, PMU_WRITE_FULL) == HW_OK) {
			if (!expect(c, i, pat, PMU_WRITE_FULL, pat, "full-width"))
				return;
			full++;
		} else if (!k->sign_extends) {
			check_fail(c, "%s: expected a full-width write path, driver refused", k->name);
		}
		if (!m_write(c, i, 0, PMU_WRITE_PRELOAD))
			return;
	}
	check_pass(c, "%u counters sign-extend 32-bit writes, %u take full-width writes", sx, full);
}

PMH_CHECK(counter_write_semantics, .id = "counter.write-semantics",
	  .summary = "sign-extension and full-width writes as documented", .order = 32,
	  .needs_pmu = true, .run = run);
