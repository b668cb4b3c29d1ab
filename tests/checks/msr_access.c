/* msr.access: every PMU MSR the driver documents reads without a fault, and
 * every bit a read-write register documents as holding (its rw_mask) holds
 * both values: each bit is flipped alone, read back, and the register is put
 * back. One bit at a time keeps the PMU quiet: no single bit of a cleared
 * control starts a counter that could interrupt. Writes go out twice, as
 * erratum N15 asks for NetBurst counters (facts §10 P4); twice is harmless
 * elsewhere. */
#include "../measure.h"

#define MAX_MSRS 96 /* room for more than any driver documents */

static int put(uint32_t msr, uint64_t v)
{
	int st = hw_wrmsr(msr, v);
	return st == HW_OK ? hw_wrmsr(msr, v) : st;
}

/* Flips each rw_mask bit of d alone; returns false after the first that
 * does not hold (reported). */
static bool bits_hold(struct check_ctx *c, const struct pmu_msr_desc *d, uint64_t v)
{
	for (unsigned b = 0; b < 64; b++) {
		uint64_t t = v ^ (1ull << b), r = 0;
		if (!(d->rw_mask >> b & 1))
			continue;
		int st = put(d->addr, t);
		if (st == HW_OK)
			st = hw_rdmsr(d->addr, &r);
		put(d->addr, v);
		if (st != HW_OK) {
			check_fail(c, "%s (MSR 0x%x): flipping bit %u raised %s", d->name, d->addr,
				   b, hw_err_name(st));
			return false;
		}
		if ((r ^ t) & d->rw_mask) {
			check_fail(c,
				   "%s (MSR 0x%x): wrote 0x%llx, read back 0x%llx: bit %u of "
				   "read-write mask 0x%llx not held",
				   d->name, d->addr, (unsigned long long)t, (unsigned long long)r,
				   b, (unsigned long long)d->rw_mask);
			return false;
		}
	}
	return true;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	struct pmu_msr_desc d[MAX_MSRS];
	size_t n = p->ops->msrs(p, d, MAX_MSRS);
	unsigned ok = 0, rw = 0;

	m_quiesce(c);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 0;
		int st;
		if (d[i].access != PMU_MSR_WO) {
			st = hw_rdmsr(d[i].addr, &v);
			if (st != HW_OK) {
				check_fail(c, "expected %s (MSR 0x%x) readable, got %s on RDMSR",
					   d[i].name, d[i].addr, hw_err_name(st));
				continue;
			}
		}
		if (d[i].access == PMU_MSR_RW) {
			st = put(d[i].addr, v);
			if (st != HW_OK) {
				check_fail(
				    c, "expected %s (MSR 0x%x) writable, got %s on WRMSR of 0x%llx",
				    d[i].name, d[i].addr, hw_err_name(st),
				    (unsigned long long)v);
				continue;
			}
			if (!bits_hold(c, &d[i], v))
				continue;
			rw++;
		}
		ok++;
	}
	m_quiesce(c);
	if (n == 0)
		check_fail(c, "expected the driver to document its MSRs, got none");
	else
		check_pass(c,
			   "%u of %u documented MSRs accessed without a fault; %u read-write "
			   "registers hold each documented bit both ways",
			   ok, (unsigned)n, rw);
}

PMH_CHECK(msr_access, .id = "msr.access", .summary = "documented PMU MSRs are accessible",
	  .order = 30, .needs_pmu = true, .run = run);
