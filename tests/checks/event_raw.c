/* event.raw: the event named by the `event` option (a catalogue name or a
 * raw encoding, events/events.h syntax) is validated on this CPU: the
 * catalogue's rules, programming on an allowed counter, counting over the
 * calibrated workload, then an overflow from a preload with its PMI. */
#include "pmi_common.h"
#include "../../events/events.h"

static void run(struct check_ctx *c)
{
	struct pmu *p = c->pmu;
	const volatile struct pmi_stats *s = pmi_stats();
	struct ev_result r;
	struct mdiff d;
	char enc[96];

	if (!c->opt->event[0]) {
		check_skip(c, "no event given (option event = NAME or event=0x..,umask=0x..)");
		return;
	}
	enum ev_verdict v = events_resolve(c->cpu->driver, c->cpu->family, c->cpu->model,
					   c->opt->event, &r);
	if (v == EV_REFUSED) {
		check_fail(c, "event \"%s\" refused: %s", c->opt->event, r.msg);
		return;
	}
	events_format(&r.ev, p->ops->id == PMU_DRV_INTEL_NETBURST, enc, sizeof(enc));
	int ctr = -1;
	for (unsigned i = 0; i < p->n && ctr < 0; i++) {
		char why[96];
		if (r.counter >= 0 && (unsigned)r.counter != i)
			continue;
		if (events_check_counter(&r.ev, i, why, sizeof(why)) != EV_REFUSED)
			ctr = (int)i;
	}
	if (ctr < 0) {
		check_fail(c, "event %s (%s): no counter of %s accepts it", c->opt->event, enc, p->name);
		return;
	}
	m_quiesce(c);
	uint32_t flags = PMU_F_OS | PMU_F_USR | r.flags;
	int e = p->ops->program(p, (unsigned)ctr, &r.ev, flags);
	if (e == HW_REFUSED) {
		check_fail(c, "event %s (%s): the driver refused it on %s", c->opt->event, enc,
			   p->ctr[ctr].name);
		return;
	}
	if (!m_op(c, e, MO_PROGRAM, 1ull << ctr, 0))
		return;
	/* signed N/2N differences: one that an SMI or the harness's jitter
	 * made negative must not read as ~2^48 */
	int mst = m_diff(c, (unsigned)ctr, 1ull << ctr, 0, 0, &wl_loop, M_N_ITERS, &d);
	if (mst == M_SMI) {
		m_quiesce(c);
		check_skip(c, "event %s on %s: an SMI was counted in every window", c->opt->event,
			   p->ctr[ctr].name);
		return;
	}
	if (mst) {
		m_fail_status(c, mst, 0, p->ctr[ctr].name);
		m_quiesce(c);
		return;
	}
	if (d.max <= 0) {
		m_quiesce(c);
		check_skip(c, "event %s (%s) on %s counted 0 over the workload: overflow not testable%s%s",
			   c->opt->event, enc, p->ctr[ctr].name, v == EV_WARN ? "; warning: " : "",
			   v == EV_WARN ? r.msg : "");
		return;
	}
	if (!pmi_begin(c))
		return;
	/* half the fewest events counted: overflows within one run of
	 * M_N_ITERS, and never past the longest period a preload can take */
	uint64_t n = d.min < 2 ? 1 : (uint64_t)d.min / 2;
	if (n > pmu_max_period(p, (unsigned)ctr))
		n = pmu_max_period(p, (unsigned)ctr);
	pmi_reset_stats();
	if (!m_op(c, p->ops->program(p, (unsigned)ctr, &r.ev, flags | PMU_F_INT), MO_PROGRAM,
		  1ull << ctr, 0) ||
	    !m_preload(c, (unsigned)ctr, n) ||
	    pmi_run(c, 1ull << ctr, &wl_loop, M_N_ITERS) == M_FAULT) {
		pmi_end(c);
		return;
	}
	bool got = pmi_wait(1, PMI_WAIT_US);
	uint64_t ovf = s->overflows[ctr];
	bool bad = pmi_trouble(c, p->ctr[ctr].name);
	pmi_end(c);
	if (bad)
		return;
	if (!got || !ovf)
		check_fail(c, "event %s on %s: preload -%llu did not raise an overflow PMI", c->opt->event,
			   p->ctr[ctr].name, (unsigned long long)n);
	else
		check_pass(
		    c, "event %s (%s) on %s: %lld/%lld/%lld per %u iterations, overflow PMI ok%s%s",
		    c->opt->event, enc, p->ctr[ctr].name, (long long)d.min, (long long)d.med,
		    (long long)d.max, M_N_ITERS, v == EV_WARN ? "; warning: " : "",
		    v == EV_WARN ? r.msg : "");
}

PMH_CHECK(event_raw, .id = "event.raw", .summary = "a configured event counts and overflows",
	  .order = 90, .needs_pmu = true, .run = run);
