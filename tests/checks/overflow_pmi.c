/* overflow.pmi: a counter overflow raises exactly one PMI through LVTPC
 * (fixed vector or NMI, option pmi=), and the PMI service (apic/pmi.c)
 * collects exactly that counter: no lost, spurious or doubled interrupt;
 * LVTPC is back at its original value afterwards (facts §8-§9). */
#include "../../apic/pmi.h"
#include "../measure.h"

#define PERIOD 1000
#define WAIT_US 10000

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	const char *why = apic_lvt_pc_unusable(c->apic);
	enum pmi_delivery mode = c->opt->pmi;
	/* between 1 and 2 periods of instructions: exactly one overflow */
	uint64_t iters = (PERIOD + PERIOD / 2) / wl_loop.per_iter.instructions;
	unsigned tested = 0;
	uint32_t lvt0;

	if (why) {
		check_skip(c, "%s", why);
		return;
	}
	lvt0 = apic_lvt_pc_read();
	m_quiesce(c);
	for (unsigned i = 0; i < p->n; i++) {
		const char *n = p->ctr[i].name;
		if (m_setup(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR | PMU_F_INT))
			continue;
		tested++;
		p->ops->ack(p, pmu_all_mask(p));
		int rc = pmi_arm(p, mode);
		if (rc) {
			check_fail(c,
				   "expected LVTPC to take the PMI entry, got 0x%x (mask stuck?)",
				   apic_lvt_pc_read());
			break;
		}
		pmu_preload(p, i, PERIOD);
		p->active = 1ull << i;
		p->ops->start(p, p->active);
		hw_run_workload(&wl_loop, iters);
		pmi_wait(1, WAIT_US);
		p->ops->stop(p, p->active);
		p->active = 0;
		/* late or duplicate deliveries get a moment to show */
		pmi_wait(2, 1000);
		const volatile struct pmi_stats *s = pmi_stats();
		uint64_t total = s->total, spurious = s->spurious, ovf = s->overflows[i];
		uint64_t pend = 0;
		p->ops->overflow_status(p, &pend);
		pmi_disarm();
		if (total == 0)
			check_fail(c,
				   "%s: expected 1 PMI for its overflow within %u us, got none "
				   "(overflow status 0x%llx)",
				   n, WAIT_US, (unsigned long long)pend);
		else if (spurious)
			check_fail(c,
				   "%s: %llu spurious PMI(s) with no overflow pending, %llu in all",
				   n, (unsigned long long)spurious, (unsigned long long)total);
		else if (total != 1 || ovf != 1)
			check_fail(c,
				   "%s: expected 1 PMI collecting 1 overflow, got %llu PMIs, %llu "
				   "overflows (mask 0x%llx)",
				   n, (unsigned long long)total, (unsigned long long)ovf,
				   (unsigned long long)s->mask[0]);
		else if (s->mask[0] != 1ull << i)
			check_fail(
			    c, "%s: expected the PMI to collect only its counter, got mask 0x%llx",
			    n, (unsigned long long)s->mask[0]);
		p->ops->write(p, i, 0, PMU_WRITE_PRELOAD);
	}
	m_quiesce(c);
	if (apic_lvt_pc_read() != lvt0)
		check_fail(c, "expected LVTPC 0x%x restored after the PMI tests, got 0x%x", lvt0,
			   apic_lvt_pc_read());
	if (!tested)
		check_skip(c, "no counter can count instructions");
	else
		check_pass(c, "%u counters: one %s PMI per overflow, collected once, none spurious",
			   tested, mode == PMI_NMI ? "NMI" : "fixed-vector");
}

PMH_CHECK(overflow_pmi, .id = "overflow.pmi",
	  .summary = "an overflow raises one PMI; the service collects it once", .order = 53,
	  .needs_pmu = true, .run = run);
