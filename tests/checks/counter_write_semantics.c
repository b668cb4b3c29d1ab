/* counter.write-semantics: 32-bit writes sign-extend bit 31 on every
 * counter whose family documents it (P6, arch perfmon GP counters through
 * 0xC1+i: SDM Vol. 3B P6 section and 20.2.6), the full-width alias, the fixed
 * counters and the KNC / AMD / NetBurst counters keep every bit (KNC
 * §1.4.3.2), and the full-width alias 0x4C1+i refuses a bit above the
 * counter's width with #GP (SDM Vol. 3B 20.2.6: EDX[63:width-32] reserved;
 * kvm-unit-tests x86/pmu.c check_gp_counters_write_width). Fixed counters
 * do not sign-extend: the SDM describes it for IA32_PMCx alone,
 * kvm-unit-tests x86/pmu.c check_rdpmc writes 0xff0123456789 to each and
 * reads back the width's bits, KVM's intel_pmu_set_msr sign-extends GP
 * legacy writes only; their full-width part below has bit 31 set. */
#include "../measure.h"
#include "../hv_policy.h"
#include "../../lib/fmt.h"

/* Legacy writes take 32 bits and copy bit 31 into the bits above (facts
 * §2): a value with it set, one with it clear (all 31 below set), and a
 * small value under upper bits that must be dropped. */
#define SX_BIT	 0x80000000ull
#define SX_LOW	 0x7fffffffull
#define SX_SMALL 0x1234ull
#define SX_UPPER 0xffffffff00000000ull
/* Full width: alternating bits over the whole width, top bit cleared. */
#define FULL_PATTERN 0x5a5a5a5aa5a5a5a5ull

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
	return expect(c, i, SX_BIT, PMU_WRITE_LEGACY, mask & ~SX_LOW,
		      "sign-extending (bit 31 set)") &&
	       expect(c, i, SX_LOW, PMU_WRITE_LEGACY, SX_LOW, "sign-extending (bit 31 clear)") &&
	       expect(c, i, (SX_UPPER | SX_SMALL) & mask, PMU_WRITE_LEGACY, SX_SMALL,
		      "sign-extending (upper bits ignored)");
}

/* Counter i holding held: where its full-width write goes through an alias
 * of its own (0x4C1+i, not the counter MSR itself), a write with the bit
 * above the width set raises #GP and leaves the counter as it was. *gp
 * counts the counters refused so. False when an op failed (FAILed). */
static bool above_width(struct check_ctx *c, unsigned i, uint64_t held, unsigned *gp)
{
	const struct pmu_counter *k = &c->pmu->ctr[i];
	uint64_t v = held | 1ull << (k->width & 63), got = 0;

	if (!k->full_msr || k->full_msr == k->ctr_msr || k->width >= 64)
		return true;
	int e = hw_wrmsr(k->full_msr, v);
	if (!m_read(c, i, &got))
		return false;
	if (e != HW_FAULT_GP)
		check_fail(c,
			   "%s: full-width write of 0x%llx to MSR 0x%x (bit %u, above the %u-bit "
			   "width, set): expected #GP, got %s (0x%llx read back)",
			   k->name, (unsigned long long)v, k->full_msr, k->width, k->width,
			   e == HW_OK ? "no fault" : hw_err_name(e), (unsigned long long)got);
	else if (got != held)
		check_fail(c,
			   "%s: the full-width write that raised #GP changed the counter from "
			   "0x%llx to 0x%llx",
			   k->name, (unsigned long long)held, (unsigned long long)got);
	else
		(*gp)++;
	return true;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	unsigned sx = 0, full = 0, gp = 0;

	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		const struct pmu_counter *k = &p->ctr[i];
		uint64_t mask = pmu_width_mask(k->width);
		if (hv_is_taken(c, i))
			continue;      /* the host's (pmu.host) */
		if (k->sign_extends) { /* every counter the driver says does */
			if (!sign_extends(c, i, mask))
				return;
			sx++;
		}
		/* full-width path: an arbitrary pattern with bit 31 set and
		 * the top bit clear must come back unchanged; a family
		 * without one refuses it */
		uint64_t pat = (FULL_PATTERN & mask) & ~(1ull << (k->width - 1));
		if (p->ops->write(p, i, pat, PMU_WRITE_FULL) == HW_OK) {
			if (!expect(c, i, pat, PMU_WRITE_FULL, pat, "full-width") ||
			    !above_width(c, i, pat, &gp))
				return;
			full++;
		} else if (!k->sign_extends) {
			check_fail(c, "%s: expected a full-width write path, driver refused",
				   k->name);
		}
		if (!m_write(c, i, 0, PMU_WRITE_PRELOAD))
			return;
	}
	char refused[96] = "";
	if (gp)
		pmh_fmt(refused, sizeof(refused),
			"; %u refuse a bit above their width through 0x4C1+i with #GP", gp);
	check_pass(c, "%u counters sign-extend 32-bit writes, %u take full-width writes%s", sx,
		   full, refused);
}

PMH_CHECK(counter_write_semantics, .id = "counter.write-semantics",
	  .summary = "sign-extension and full-width writes as documented", .order = 32,
	  .needs_pmu = true, .run = run);
