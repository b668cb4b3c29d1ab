/* rdpmc.fast: RDPMC with ECX[31] set, the "fast" read, returns bits 31:0 of
 * the counter in EAX and 0 in EDX, and the same RDPMC without it the whole
 * counter, where the family documents the fast read: "The Pentium 4 and
 * Intel Xeon processors also support 'fast' (32-bit) and 'slow' (40-bit)
 * reads ... using ECX[31]" (Intel SDM Vol. 2B RDPMC). Elsewhere ECX[31] is
 * no read at all: architectural perfmon takes ECX[31:16] as the counter type
 * and reserves the bit (SDM Vol. 2B RDPMC; Linux 5728a4a0ea79 "Disallow
 * 'fast' RDPMC for architectural Intel PMUs", confirmed on bare metal), and
 * AMD's RDPMC takes a counter index only (AMD APM Vol. 3 RDPMC). The driver
 * says which (PMU_CAP_FAST_RDPMC). */
#include "../measure.h"
#include "../hv_policy.h"

#define RDPMC_FAST_BIT (1u << 31)
#define LOW32	       0xffffffffull
/* A value each counter holds: bits above 31 set (39:32 = 0x5a) and bit 31
 * too, so that a read that returns the upper bits or sign-extends bit 31
 * shows; the counter's index in bits 15:8 shows a read of another one. */
#define PATTERN	    0x5a87650021ull
#define INDEX_SHIFT 8

/* Writes the pattern to counter i: the full-width path, else a legacy
 * write, whose bit 31 sign-extends into the bits above. *held: what the
 * counter holds. False when an op failed (FAILed). */
static bool hold(struct check_ctx *c, unsigned i, uint64_t *held)
{
	struct pmu *p = c->pmu;
	uint64_t pat = (PATTERN | (uint64_t)i << INDEX_SHIFT) & pmu_width_mask(p->ctr[i].width);

	if (p->ops->write(p, i, pat, PMU_WRITE_FULL) != HW_OK &&
	    !m_write(c, i, pat & LOW32, PMU_WRITE_LEGACY))
		return false;
	return m_read(c, i, held);
}

/* Counter i: a fast read is the low half, a slow read the whole. False
 * when an op failed (FAILed). */
static bool one(struct check_ctx *c, unsigned i)
{
	const struct pmu_counter *k = &c->pmu->ctr[i];
	uint64_t held = 0, fast = 0, slow = 0;

	if (!hold(c, i, &held))
		return false;
	int st = hw_rdpmc(k->rdpmc | RDPMC_FAST_BIT, &fast);
	if (st != HW_OK)
		check_fail(c, "%s: fast RDPMC 0x%x (ECX[31] set) raised %s", k->name,
			   k->rdpmc | RDPMC_FAST_BIT, hw_err_name(st));
	else if (fast != (held & LOW32))
		check_fail(c,
			   "%s: fast RDPMC 0x%x (ECX[31] set) read 0x%llx, expected the low 32 "
			   "bits 0x%llx of 0x%llx%s",
			   k->name, k->rdpmc | RDPMC_FAST_BIT, (unsigned long long)fast,
			   (unsigned long long)(held & LOW32), (unsigned long long)held,
			   fast == held ? " (the whole counter)" : "");
	st = hw_rdpmc(k->rdpmc, &slow);
	if (st != HW_OK)
		check_fail(c, "%s: RDPMC 0x%x raised %s", k->name, k->rdpmc, hw_err_name(st));
	else if (slow != held)
		check_fail(c,
			   "%s: RDPMC 0x%x (ECX[31] clear) read 0x%llx, expected the whole 0x%llx",
			   k->name, k->rdpmc, (unsigned long long)slow, (unsigned long long)held);
	return m_write(c, i, 0, PMU_WRITE_PRELOAD);
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	unsigned tested = 0;

	if (!(p->caps & PMU_CAP_FAST_RDPMC)) {
		check_skip(
		    c,
		    "%s documents no fast RDPMC: ECX[31] selects it on NetBurst alone (Intel "
		    "SDM Vol. 2B RDPMC); arch perfmon reserves the bit, AMD's RDPMC takes an "
		    "index only (AMD APM Vol. 3 RDPMC)",
		    p->name);
		return;
	}
	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		if (hv_is_taken(c, i))
			continue; /* the host's (pmu.host) */
		if (!one(c, i))
			break;
		tested++;
	}
	m_quiesce(c);
	check_pass(c,
		   "%u counters: fast RDPMC (ECX[31]) reads bits 31:0 with EDX 0, RDPMC without "
		   "it the whole counter (Intel SDM Vol. 2B RDPMC)",
		   tested);
}

PMH_CHECK(rdpmc_fast, .id = "rdpmc.fast", .summary = "fast RDPMC (ECX[31]) reads 32 bits",
	  .order = 61, .needs_pmu = true, .needs_caps = PMU_CAP_RDPMC, .run = run);
