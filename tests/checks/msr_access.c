/* msr.access: every PMU MSR the driver documents reads without a fault, and
 * read-write registers take back their own value (a non-destructive write). */
#include "../measure.h"

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	struct pmu_msr_desc d[96];
	size_t n = p->ops->msrs(p, d, 96);
	unsigned ok = 0;

	m_quiesce(c);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 0;
		int st;
		if (d[i].access != PMU_MSR_WO) {
			st = hw_rdmsr(d[i].addr, &v);
			if (st != HW_OK) {
				check_fail(c, "expected %s (MSR 0x%x) readable, got %s on RDMSR", d[i].name,
					   d[i].addr, hw_status_name(st));
				continue;
			}
		}
		if (d[i].access == PMU_MSR_RW) {
			st = hw_wrmsr(d[i].addr, v);
			if (st != HW_OK) {
				check_fail(c, "expected %s (MSR 0x%x) writable, got %s on WRMSR of 0x%llx",
					   d[i].name, d[i].addr, hw_status_name(st),
					   (unsigned long long)v);
				continue;
			}
		}
		ok++;
	}
	if (n == 0)
		check_fail(c, "expected the driver to document its MSRs, got none");
	else
		check_pass(c, "%u of %u documented MSRs accessed without a fault", ok, (unsigned)n);
	m_quiesce(c);
}

PMH_CHECK(msr_access, .id = "msr.access", .summary = "documented PMU MSRs are accessible",
	  .order = 30, .needs_pmu = true, .run = run);
