/* netburst.cccr-escr: NetBurst events bind through an ESCR to a counter's CCCR
 * (Linux p4_event_bind_map, SDM NetBurst 'ESCR MSRs'): the driver's binding
 * programs the ESCR event and the CCCR ESCR-select the document gives, refuses
 * counters the ESCR does not feed, and an overflow sets CCCR.OVF, which is
 * sticky: it survives reads and a counter rewrite until software clears it. On
 * a second hardware thread the driver programs the ESCR's T1 bits instead
 * (Linux p4_pmu_swap_config_ts); the event and mask checked here are the
 * same. */
#include "../measure.h"
#include "../../pmu/intel_netburst.h"

/* Counter i, set up with instr_retired (ev, the driver's binding): the
 * CCCR and ESCR fields. */
static void binding(struct check_ctx *c, unsigned i, const struct pmu_event *ev)
{
	const struct pmu_counter *k = &c->pmu->ctr[i];
	uint64_t cccr = 0, escr = 0;

	if (!m_rdmsr(c, k->ctl_msr, &cccr) || !m_rdmsr(c, k->aux_msr, &escr))
		return;
	if (CCCR_ESCR_SEL_OF(cccr) != ev->escr_select)
		check_fail(c, "%s: CCCR ESCR-select %llu, expected %u", k->name,
			   (unsigned long long)CCCR_ESCR_SEL_OF(cccr), ev->escr_select);
	if (ESCR_EVENT_OF(escr) != ev->code || ESCR_EMASK_OF(escr) != ev->escr_mask)
		check_fail(c, "%s: ESCR 0x%x holds event 0x%llx mask 0x%llx, expected 0x%x/0x%x",
			   k->name, k->aux_msr, (unsigned long long)ESCR_EVENT_OF(escr),
			   (unsigned long long)ESCR_EMASK_OF(escr), ev->code, ev->escr_mask);
}

/* Counter i's CCCR into *cccr; a fault FAILs naming the MSR. */
static bool cccr_of(struct check_ctx *c, unsigned i, uint64_t *cccr)
{
	*cccr = 0;
	return m_rdmsr(c, c->pmu->ctr[i].ctl_msr, cccr);
}

/* Counter i overflows: CCCR.OVF set, sticky across a read and a counter
 * write, cleared by ack. False when an op failed (FAILed). */
static bool sticky(struct check_ctx *c, unsigned i)
{
	struct pmu *p = c->pmu;
	const char *n = p->ctr[i].name;
	uint64_t cccr = 0;

	if (!m_overflow(c, i))
		return false;
	if (!cccr_of(c, i, &cccr))
		return false;
	if (!(cccr & CCCR_OVF)) {
		check_fail(c,
			   "%s overflowed: expected CCCR.OVF (bit 31) set and sticky, CCCR 0x%llx",
			   n, (unsigned long long)cccr);
		return true;
	}
	if (!cccr_of(c, i, &cccr))
		return false;
	if (!(cccr & CCCR_OVF))
		check_fail(c, "%s: CCCR.OVF cleared by reading the CCCR: expected sticky", n);
	if (!m_write(c, i, 0, PMU_WRITE_FULL))
		return false;
	if (!cccr_of(c, i, &cccr))
		return false;
	if (!(cccr & CCCR_OVF))
		check_fail(c, "%s: CCCR.OVF cleared by a counter write: expected sticky", n);
	if (!m_ack(c, 1ull << i))
		return false;
	if (!cccr_of(c, i, &cccr))
		return false;
	if (cccr & CCCR_OVF)
		check_fail(c, "%s: expected ack to clear CCCR.OVF, CCCR 0x%llx", n,
			   (unsigned long long)cccr);
	return true;
}

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	struct pmu_event ev, ref;
	unsigned tested = 0;
	bool ok = true;

	if (p->ops->id != PMU_DRV_INTEL_NETBURST) {
		check_skip(c, "not a NetBurst PMU (%s)", p->name);
		return;
	}
	int r = m_counter_for(c, GEN_INSTRUCTIONS, 0);
	if (r < 0 || p->ops->generic_event(p, GEN_INSTRUCTIONS, (unsigned)r, &ref) != HW_OK) {
		check_fail(c, "expected instr_retired on an IQ counter (Linux p4_event_bind_map), "
			      "driver has none");
		return;
	}
	m_quiesce(c);
	for (unsigned i = 0; i < p->n && ok; i++) {
		if (p->ops->generic_event(p, GEN_INSTRUCTIONS, i, &ev) != HW_OK) {
			/* a counter its ESCR does not feed: programming must be refused */
			if (p->ops->program(p, i, &ref, PMU_F_OS) == HW_OK)
				check_fail(
				    c, "%s: %s accepted on a counter its ESCR (0x%x) does not feed",
				    p->ctr[i].name, ref.name, ref.escr_msr);
			continue;
		}
		tested++;
		ok = m_setup_or_fail(c, i, GEN_INSTRUCTIONS, PMU_F_OS | PMU_F_USR);
		if (ok) {
			binding(c, i, &ev);
			ok = sticky(c, i);
		}
		m_quiesce(c);
	}
	if (!tested)
		check_fail(c, "no counter accepted instr_retired");
	else
		check_pass(c,
			   "%u counters bind instr_retired via its ESCR; CCCR.OVF sticky until ack",
			   tested);
}

PMH_CHECK(netburst_cccr_escr, .id = "netburst.cccr-escr",
	  .summary = "ESCR/CCCR binding, sticky OVF", .order = 74, .needs_pmu = true,
	  .needs_caps = PMU_CAP_STICKY_OVF, .run = run);
