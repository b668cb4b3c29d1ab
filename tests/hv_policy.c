/* Restrictions a hypervisor imposes, told apart from PMU faults by a
 * reference measured on the same counter (tests/hv_policy.h). The forms
 * they take come from the hypervisors' sources: KVM's event filter leaves
 * a denied event's counter unprogrammed, so it counts nothing and raises
 * nothing (Linux arch/x86/kvm/pmu.c pmc_event_is_allowed,
 * reprogram_counter), and leaves a fixed counter out of its bitmap the
 * same way (is_fixed_event_allowed); Xen's vpmu=arch and vpmu=ipc refuse
 * an event select outside their list, which the guest sees as #GP (Xen
 * xen/arch/x86/cpu/vpmu_intel.c core2_vpmu_do_wrmsr). None of these is
 * ever seen on bare metal, where the same observations stay failures. */
#include "hv_policy.h"
#include "measure.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

static bool under_hv(const struct check_ctx *c)
{
	return c->cpu && c->cpu->hypervisor;
}

bool hv_setup_quiet(struct check_ctx *c, unsigned ctr, enum pmu_generic g)
{
	struct pmu *p = c->pmu;
	struct pmu_event ev;

	return ctr < p->n && p->ops->generic_event(p, g, ctr, &ev) == HW_OK &&
	       p->ops->stop(p, 1ull << ctr) == HW_OK &&
	       p->ops->program(p, ctr, &ev, PMU_F_OS | PMU_F_USR) == HW_OK &&
	       p->ops->write(p, ctr, 0, PMU_WRITE_PRELOAD) == HW_OK;
}

/* Generic event g on counter ctr, set up quietly, over M_N_ITERS of
 * wl_loop: *n, and whether it counted: at least one event per two
 * iterations (a stuck counter's few stray events are not counting). */
static bool counts_generic(struct check_ctx *c, unsigned ctr, enum pmu_generic g, int64_t *n)
{
	struct pmu *p = c->pmu;

	*n = 0;
	if (!hv_setup_quiet(c, ctr, g))
		return false;
	int st = m_per_n(c, ctr, 0, 0, n);
	bool counts = st == M_OK && *n >= M_N_ITERS / 2;
	if (counts)
		hv_counted(c, ctr);
	if (p->ops->stop(p, 1ull << ctr) != HW_OK) {
		/* the next set-up of this counter judges it */
	}
	return counts;
}

bool hv_counter_counts(struct check_ctx *c, unsigned ctr, int64_t *n)
{
	return counts_generic(c, ctr, GEN_INSTRUCTIONS, n);
}

/* The generic event fixed counter f counts, or GEN_COUNT. */
static enum pmu_generic fixed_event(struct pmu *p, unsigned f)
{
	struct pmu_event ev;
	unsigned g = 0;

	while (g < GEN_COUNT && p->ops->generic_event(p, (enum pmu_generic)g, f, &ev) != HW_OK)
		g++;
	return (enum pmu_generic)g;
}

/* A fixed counter's reference: its event on a general-purpose counter, or
 * where no general-purpose counter has it (reference cycles) another fixed
 * counter counting its own: the fixed counters work, f alone does not.
 * *ref: what the reference counter (*by) counted. */
static bool fixed_reference(struct check_ctx *c, unsigned f, int64_t *ref, unsigned *by)
{
	struct pmu *p = c->pmu;
	enum pmu_generic g = fixed_event(p, f);

	for (unsigned i = 0; i < p->n && g < GEN_COUNT; i++)
		if (p->ctr[i].kind == PMU_CTR_GP &&
		    p->ops->generic_event(p, g, i, &(struct pmu_event){0}) == HW_OK) {
			*by = i;
			return counts_generic(c, i, g, ref);
		}
	for (unsigned k = 0; k < p->n; k++) {
		enum pmu_generic gk = fixed_event(p, k);
		if (k != f && p->ctr[k].kind == PMU_CTR_FIXED && gk < GEN_COUNT &&
		    counts_generic(c, k, gk, ref)) {
			*by = k;
			return true;
		}
	}
	return false;
}

void hv_counted(struct check_ctx *c, unsigned ctr)
{
	if (under_hv(c) && c->s && ctr < PMU_MAX_COUNTERS)
		suite_hv_state(c->s)->counted |= 1ull << ctr;
}

bool hv_is_taken(const struct check_ctx *c, unsigned ctr)
{
	return c->s && ctr < PMU_MAX_COUNTERS && (suite_hv_state(c->s)->taken >> ctr & 1);
}

/* Counter i, programmed but not started and zeroed, moves over a window
 * of wl_loop: something else counts on it. */
static bool moves_disabled(struct check_ctx *c, unsigned i)
{
	uint64_t v = 0;

	return hv_setup_quiet(c, i, GEN_INSTRUCTIONS) &&
	       m_window(c, 0, &wl_loop, M_N_ITERS) == M_OK &&
	       c->pmu->ops->read(c->pmu, i, &v) == HW_OK && v != 0;
}

/* Records counter i as the host's. */
static void host_holds(struct check_ctx *c, unsigned i)
{
	char why[RESULT_MSG];
	bool pmc3 = c->pmu->ctr[i].index == 3 && c->cpu->vendor == VENDOR_INTEL;

	suite_hv_state(c->s)->taken |= 1ull << i;
	pmh_fmt(why, sizeof(why),
		"%s moves while disabled: the host counts on it, and it is left out of every "
		"measurement%s",
		c->pmu->ctr[i].name,
		pmc3 ? " (PMC3: the host's TSX force-abort workaround on Skylake-era parts, "
		       "which Xen keeps from its guests: Xen 6be613f29b42)"
		     : "");
	hv_record(c->s, c->cpu_index, HV_HOST, HVG_OTHER, c->pmu->ctr[i].name, why);
}

void hv_census(struct suite *s, unsigned cpu_index)
{
	static const struct check census = {.id = "hv.census"};
	const struct suite_cpu b = suite_bound(s);
	struct check_ctx c = {.s = s,
			      .chk = &census,
			      .pmu = b.pmu,
			      .cpu = b.cpu,
			      .opt = s->opt,
			      .apic = b.apic,
			      .cpu_index = cpu_index,
			      .v = V_NONE};
	int64_t n;

	if (!under_hv(&c) || !b.pmu || b.pmu->status != PMU_FUNCTIONAL)
		return;
	for (unsigned i = 0; i < b.pmu->n && i < PMU_MAX_COUNTERS; i++) {
		if (b.pmu->ctr[i].kind != PMU_CTR_GP)
			continue;
		if (moves_disabled(&c, i))
			host_holds(&c, i);
		else
			(void)hv_counter_counts(&c, i, &n); /* notes it in hv_counted */
	}
	m_quiesce(&c);
}

/* Counter i counted earlier in the run and counts no instructions now:
 * taken by the host. Records it and says so in why. */
static bool host_took(struct check_ctx *c, unsigned i, char *why, size_t n)
{
	int64_t ref;

	if (!c->s || i >= PMU_MAX_COUNTERS || !(suite_hv_state(c->s)->counted >> i & 1) ||
	    c->pmu->ctr[i].kind != PMU_CTR_GP || hv_counter_counts(c, i, &ref))
		return false;
	pmh_fmt(why, n,
		"%s counted earlier in the run and counts nothing now, not even instructions "
		"retired: taken by the host (VMware's vPMC when the host uses it, KVM's pinned "
		"host perf events)",
		c->pmu->ctr[i].name);
	hv_record(c->s, c->cpu_index, HV_HOST, HVG_OTHER, c->pmu->ctr[i].name, why);
	return true;
}

static void known_bug(struct check_ctx *c);

void hv_failed(struct check_ctx *c)
{
	char why[RESULT_MSG];

	if (!under_hv(c))
		return;
	known_bug(c);
	for (unsigned i = 0; i < c->pmu->n && i < PMU_MAX_COUNTERS; i++) {
		if (c->fig.ctrs >> i & 1 && hv_is_taken(c, i))
			pmh_fmt(why, sizeof(why), "%s is the host's (pmu.host)",
				c->pmu->ctr[i].name);
		else if (!(c->fig.ctrs >> i & 1) || !host_took(c, i, why, sizeof(why)))
			continue;
		c->v = V_SKIP; /* what failed was measured on a counter gone */
		pmh_fmt(c->msg, sizeof(c->msg), "%s (the check's failure: not measured)", why);
		/* its further failures go with it: the last ones in the run's
		 * table, which takes their room back */
		if (c->n_more && c->s->n_more == c->more_first + c->n_more)
			c->s->n_more = c->more_first;
		c->n_fail = c->n_more = c->more_lost = 0;
		return;
	}
}

static const char *hv_name(const struct check_ctx *c)
{
	return c->cpu->hv.name[0] ? c->cpu->hv.name : "the hypervisor";
}

bool hv_zero_withheld(struct check_ctx *c, unsigned ctr, const char *event, char *why, size_t n)
{
	int64_t ref;

	if (!under_hv(c))
		return false;
	unsigned by = 0;
	if (ctr < c->pmu->n && c->pmu->ctr[ctr].kind == PMU_CTR_FIXED)
		return fixed_reference(c, ctr, &ref, &by) &&
		       hv_fixed_withheld(c, ctr, event, by, ref, why, n);
	if (!hv_counter_counts(c, ctr, &ref))
		return host_took(c, ctr, why, n);
	pmh_fmt(why, n,
		"not counted: filtered by the hypervisor? %s counted 0 where instructions retired "
		"counted %lld on %s (%s's event filter)",
		event, (long long)ref, c->pmu->ctr[ctr].name, hv_name(c));
	hv_record(c->s, c->cpu_index, HV_POLICY, HVG_EVENT_ZERO, event, why);
	return true;
}

bool hv_gp_withheld(struct check_ctx *c, unsigned ctr, const char *event, int e, char *why,
		    size_t n)
{
	int64_t ref;

	if (!under_hv(c) || e != HW_FAULT_GP || !hv_counter_counts(c, ctr, &ref))
		return false;
	pmh_fmt(why, n,
		"refused by the hypervisor: programming %s on %s raised #GP where instructions "
		"retired program and count (%lld): an allow-list (Xen vpmu=arch allows the "
		"architectural events, vpmu=ipc instructions and cycles)",
		event, c->pmu->ctr[ctr].name, (long long)ref);
	hv_record(c->s, c->cpu_index, HV_POLICY, HVG_EVENT_GP, event, why);
	return true;
}

bool hv_fixed_withheld(struct check_ctx *c, unsigned f, const char *event, unsigned by, int64_t ref,
		       char *why, size_t n)
{
	if (!under_hv(c) || ref <= 0 || by >= c->pmu->n)
		return false;
	pmh_fmt(why, n,
		"not counted: withheld by the hypervisor? %s (%s) counted 0 where %s counted "
		"%lld (a fixed-counter bitmap without it, as in %s's event filter)",
		c->pmu->ctr[f].name, event, c->pmu->ctr[by].name, (long long)ref, hv_name(c));
	hv_record(c->s, c->cpu_index, HV_POLICY, HVG_FIXED, c->pmu->ctr[f].name, why);
	return true;
}

/* Names and descriptions, one room: the fix's title says what the bug
 * did. */
static const struct {
	char what[32];
	enum hv_id hv;
	char checks[40]; /* the checks whose failure it explains, named after them */
	char text[240];
} bugs[HVB_COUNT] = {
    [HVB_LVTPC_MASKED] = {"LVTPC masked on PMI", HV_KVM, "",
			  "KVM releases from a16eb25b09c0 (\"Mask LVTPC when handling a PMI\") "
			  "until 49ff3b4aec51 (\"Do not mask LVTPC when handling a PMI on AMD "
			  "platforms\") mask it on AMD too; a guest must unmask it"},
    [HVB_DOUBLE_PMI] = {"two PMIs for one overflow", HV_KVM, "",
			"KVM 5.17 to 6.5 (9cd803d496e7 \"Update vPMCs when retiring "
			"instructions\", fixed by 73554b29bd70 \"Synthesize at most one PMI "
			"per VM-exit\") can send a second PMI for one overflow"},
    [HVB_XEN_STATUS] = {"overflow status without a PMI", HV_XEN, "overflow.status,overflow.preload",
			"Xen's vPMU shows GLOBAL_STATUS as its PMI handler last copied it "
			"(xen/arch/x86/cpu/vpmu_intel.c core2_vpmu_do_interrupt): an overflow "
			"without a PMI is not flagged"},
};

const char *hv_bug_text(const struct check_ctx *c, enum hv_bug b)
{
	if (!under_hv(c) || b >= HVB_COUNT || c->cpu->hv.id != bugs[b].hv)
		return 0;
	return bugs[b].text;
}

bool hv_bug_seen(struct check_ctx *c, enum hv_bug b, const char *seen)
{
	const char *t = hv_bug_text(c, b);
	char why[RESULT_MSG];

	if (!t)
		return false;
	pmh_fmt(why, sizeof(why), "%s: %s", seen, t);
	hv_record(c->s, c->cpu_index, HV_BUG, HVG_OTHER, bugs[b].what, why);
	return true;
}

/* A check that failed under the hypervisor a known bug explains: the
 * bug is recorded and named in the failure, which stands. */
static void known_bug(struct check_ctx *c)
{
	size_t k = pmh_strlen(c->msg);

	for (unsigned b = 0; b < HVB_COUNT; b++) {
		if (!bugs[b].checks[0] || !pmh_glob_list(bugs[b].checks, c->chk->id, false) ||
		    !hv_bug_seen(c, (enum hv_bug)b, c->chk->id))
			continue;
		pmh_fmt(c->msg + k, sizeof(c->msg) - k, "; known: %s", bugs[b].text);
		return;
	}
}

void hv_record(struct suite *s, unsigned cpu, enum hv_kind kind, enum hv_group group,
	       const char *what, const char *why)
{
	static const char head[][24] = {[HV_POLICY] = "pmu.restricted",
					[HV_BUG] = "pmu.hypervisor_bug",
					[HV_HOST] = "pmu.host"};
	struct hv_finding *h = 0;
	bool known = false;

	if (!s)
		return;
	suite_lock(s); /* every CPU of a parallel run adds to one table */
	for (unsigned i = 0; i < s->n_hv && !known; i++)
		known = s->hv[i].kind == kind && !pmh_strcmp(s->hv[i].what, what);
	if (!known && s->n_hv >= SUITE_MAX_HV)
		s->hv_lost++;
	else if (!known)
		h = &s->hv[s->n_hv++];
	if (h) {
		h->cpu = cpu;
		h->kind = kind;
		h->group = group;
		pmh_strlcpy(h->what, what, sizeof(h->what));
		pmh_strlcpy(h->why, why, sizeof(h->why));
	}
	suite_unlock(s);
	if (!known) /* once per run */
		suite_emit(s, "%s: %s: %s", head[kind], what, why);
}

/* "fixed1, fixed2": the findings of a kind (and group: HVG_COUNT any) into
 * buf at *k. */
static void names_of(const struct suite *s, enum hv_kind kind, enum hv_group g, char *buf, size_t n,
		     size_t *k)
{
	bool first = true;
	for (unsigned i = 0; i < s->n_hv && *k < n; i++) {
		if (s->hv[i].kind != kind || (g != HVG_COUNT && s->hv[i].group != g))
			continue;
		const char *w = s->hv[i].what;
		if (g == HVG_FIXED && !pmh_strncmp(w, "fixed", 5))
			w += 5; /* "fixed counters 1, 2" */
		pmh_fmt(buf + *k, n - *k, "%s%s", first ? "" : ", ", w);
		*k += pmh_strlen(buf + *k);
		first = false;
	}
}

bool hv_restricted_summary(const struct suite *s, char *buf, size_t n)
{
	static const char noun[][32] = {
	    [HVG_EVENT_ZERO] = "not counted", [HVG_EVENT_GP] = "refused with #GP"};
	unsigned cnt[HVG_COUNT] = {0};
	size_t k = 0;
	bool host = false;

	buf[0] = 0;
	for (unsigned i = 0; i < s->n_hv; i++) {
		if (s->hv[i].kind == HV_POLICY)
			cnt[s->hv[i].group]++;
		host |= s->hv[i].kind == HV_HOST;
	}
	for (unsigned g = 0; g < HVG_COUNT && k < n; g++) {
		if (!cnt[g])
			continue;
		if (k)
			pmh_fmt(buf + k, n - k, ", ");
		k += pmh_strlen(buf + k);
		if (g == HVG_FIXED) {
			pmh_fmt(buf + k, n - k, "fixed counter%s ", cnt[g] > 1 ? "s" : "");
			k += pmh_strlen(buf + k);
			names_of(s, HV_POLICY, HVG_FIXED, buf, n, &k);
		} else if (g == HVG_OTHER) {
			names_of(s, HV_POLICY, HVG_OTHER, buf, n, &k);
		} else {
			pmh_fmt(buf + k, n - k, "%u event%s %s", cnt[g], cnt[g] > 1 ? "s" : "",
				noun[g]);
			k += pmh_strlen(buf + k);
		}
	}
	if (host && k < n) {
		pmh_fmt(buf + k, n - k, "%staken by the host: ", k ? ", " : "");
		k += pmh_strlen(buf + k);
		names_of(s, HV_HOST, HVG_COUNT, buf, n, &k);
	}
	return k > 0;
}
