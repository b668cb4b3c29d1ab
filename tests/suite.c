/* The runner: selects checks by id glob, applies capability gates (SKIP with
 * the reason), runs each, and records exactly one verdict per check per CPU. */
#include "suite.h"
#include "platform.h"
#include "hv_policy.h"
#include "report_lava.h"
#include "../lib/fmt.h"
#include "../lib/str.h"
#include "../pmu/percpu.h"
#include "../apic/isr.h"

extern const struct check *const __start_pmh_checks[];
extern const struct check *const __stop_pmh_checks[];

static bool before(const struct check *a, const struct check *b)
{
	if (a->order != b->order)
		return a->order < b->order;
	return pmh_strcmp(a->id, b->id) < 0;
}

size_t suite_checks(const struct check **out, size_t max)
{
	size_t n = 0;

	/* cppcheck-suppress comparePointers ; the linker places both in one section */
	for (const struct check *const *p = __start_pmh_checks; p < __stop_pmh_checks; p++) {
		if (!*p || n >= max)
			continue;
		size_t i = n++;
		while (i > 0 && before(*p, out[i - 1])) {
			out[i] = out[i - 1];
			i--;
		}
		out[i] = *p;
	}
	return n;
}

/* The running CPU's part of a run (suite.h "The CPU a run reports
 * from"): in a serial run the template, as every run had it; in a
 * parallel run each CPU's own. */
struct suite_here {
	const struct cpu_info *cpu;
	struct pmu *pmu;
	const struct apic_info *apic;
	struct sink out;
	const char *running;
	struct suite_hv_state hv;
	/* a parallel run's share (res NULL: the run's tables) */
	struct result *res;
	unsigned n_res, cap_res;
	char (*more)[RESULT_MSG];
	unsigned n_more, cap_more;
};
static struct suite_here here PMH_PERCPU;

#define HERE (&PCPU(here))

const char *suite_running(const struct suite *s)
{
	(void)s;
	return HERE->running;
}

struct suite_hv_state *suite_hv_state(const struct suite *s)
{
	(void)s;
	return &HERE->hv;
}

/* A count every CPU of a parallel run adds to. */
static void count_up(unsigned *n)
{
	__atomic_fetch_add(n, 1u, __ATOMIC_RELAXED);
}

void suite_share_begin(struct suite *s, struct result *res, unsigned cap, char (*more)[RESULT_MSG],
		       unsigned cap_more)
{
	struct suite_here *h = HERE;

	(void)s;
	h->res = res;
	h->n_res = 0;
	h->cap_res = cap;
	h->more = more;
	h->n_more = 0;
	h->cap_more = cap_more;
}

unsigned suite_share_end(struct suite *s)
{
	struct suite_here *h = HERE;
	unsigned n = h->n_res;

	(void)s;
	h->res = 0;
	h->more = 0;
	h->n_res = h->cap_res = h->n_more = h->cap_more = 0;
	return n;
}

void suite_init(struct suite *s, const struct options *o, const struct cpu_info *ci, struct pmu *p,
		const struct apic_info *ai, struct sink out)
{
	suite_release(s);
	pmh_memset(s, 0, sizeof(*s));
	suite_own_tables(s);
	s->opt = o;
	pmh_memset(HERE, 0, sizeof(*HERE));
	suite_bind_cpu(s, &(struct suite_cpu){ci, p, ai, out});
}

struct suite_cpu suite_bound(const struct suite *s)
{
	const struct suite_here *h = HERE;
	struct suite_cpu c = {h->cpu, h->pmu, h->apic, h->out};

	(void)s;
	return c;
}

void suite_bind_cpu(struct suite *s, const struct suite_cpu *c)
{
	struct suite_here *h = HERE;

	(void)s;
	h->cpu = c->cpu;
	h->pmu = c->pmu;
	h->apic = c->apic;
	h->out = c->out;
}

void suite_emit(struct suite *s, const char *f, ...)
{
	char line[320];
	va_list ap;

	va_start(ap, f);
	pmh_vfmt(line, sizeof(line), f, ap);
	va_end(ap);
	(void)s;
	if (HERE->out.line)
		HERE->out.line(HERE->out.ctx, line);
}

static void set_msg(struct check_ctx *c, const char *f, va_list ap)
{
	pmh_vfmt(c->msg, sizeof(c->msg), f, ap);
}

void check_pass(struct check_ctx *c, const char *f, ...)
{
	va_list ap;
	if (c->v == V_FAIL || c->v == V_SKIP)
		return;
	c->v = V_PASS;
	va_start(ap, f);
	set_msg(c, f, ap);
	va_end(ap);
}

/* A failure after the first: into the run's table, contiguous with the
 * check's earlier ones (checks record one at a time). */
static void more_msg(struct check_ctx *c, const char *f, va_list ap)
{
	struct suite *s = c->s;
	struct suite_here *h = HERE;
	/* a parallel run's share writes its own slice of the run's table */
	char(*tab)[RESULT_MSG] = h->more ? h->more : s ? s->more : 0;
	unsigned *n = h->more ? &h->n_more : s ? &s->n_more : 0;

	if (!s || *n >= (h->more ? h->cap_more : s->cap_more)) {
		c->more_lost++;
		return;
	}
	if (!c->n_more)
		c->more_first = (unsigned)(tab - s->more) + *n;
	pmh_vfmt(tab[(*n)++], RESULT_MSG, f, ap);
	c->n_more++;
}

void check_fail(struct check_ctx *c, const char *f, ...)
{
	va_list ap;
	c->n_fail++;
	va_start(ap, f);
	if (c->v == V_FAIL)
		more_msg(c, f, ap);
	else {
		c->v = V_FAIL;
		set_msg(c, f, ap);
	}
	va_end(ap);
}

void check_skip(struct check_ctx *c, const char *f, ...)
{
	va_list ap;
	if (c->v == V_FAIL)
		return;
	c->v = V_SKIP;
	va_start(ap, f);
	set_msg(c, f, ap);
	va_end(ap);
}

void check_figures(struct check_ctx *c, int64_t min, int64_t med, int64_t max)
{
	if (c->fig.to_also) { /* check_figures_next: the second series */
		c->fig.also =
		    (struct fig_series){.unit = "events", .min = min, .med = med, .max = max};
		return;
	}
	c->fig.set = true;
	c->fig.min = min;
	c->fig.med = med;
	c->fig.max = max;
	c->fig.unit = "events";
	c->fig.name = 0;
	c->fig.smp.n = c->fig.smp.of = 0; /* the samples of an earlier figure */
}

void check_note(struct check_ctx *c, const char *f, ...)
{
	char line[256];
	va_list ap;
	if (!c->opt->verbose)
		return;
	va_start(ap, f);
	pmh_vfmt(line, sizeof(line), f, ap);
	va_end(ap);
	suite_emit(c->s, "  %s: %s", c->chk->id, line);
}

static const char *cap_names(uint32_t caps, char *buf, size_t n)
{
	static const char *const names[] = {
	    "global control",
	    "overflow status register",
	    "fixed counters",
	    "full-width writes",
	    "GLOBAL_STATUS_SET",
	    "RDPMC",
	    "sticky CCCR.OVF",
	    "sign-bit overflow",
	    "single enable bit",
	    "PerfMonV2",
	    "edge/invert/cmask filters",
	    "fast RDPMC",
	    "freeze on PMI",
	    "CTR_FRZ freeze",
	};
	struct pmh_sb sb;
	pmh_sb_init(&sb, buf, n);
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (caps & (1u << i))
			pmh_sb_add(&sb, "%s%s", sb.len ? ", " : "", names[i]);
	return buf;
}

/* The bound CPU's identity into its record, as its run starts. */
static void note_cpu(struct suite *s, unsigned cpu)
{
	struct cpu_record *r = suite_cpu_rec(s, cpu, !HERE->res);
	const struct suite_here *h = HERE;
	const struct pmu *p = h->pmu;

	if (!r)
		return;
	r->identified = true;
	r->ci = *h->cpu;
	r->apic_mode = h->apic->mode;
	r->apic_id = h->apic->id;
	r->status = p->status;
	r->version = p->version;
	r->n_gp = p->n_gp;
	r->gp_width = p->n_gp ? p->ctr[0].width : 0;
	r->n_fixed = p->n_fixed;
	r->fixed_width = p->n_fixed ? p->ctr[p->n_gp].width : 0;
	pmh_strlcpy(r->reason, p->status == PMU_FUNCTIONAL ? h->cpu->driver_reason : p->reason,
		    sizeof(r->reason));
	r->n.pmu_usable = p->status == PMU_FUNCTIONAL;
}

/* The names of the counters in mask, comma-separated, into buf. */
static void ctr_names(const struct pmu *p, uint64_t mask, char *buf, size_t n)
{
	struct pmh_sb sb;

	pmh_sb_init(&sb, buf, n);
	for (unsigned i = 0; i < p->n && i < 64; i++)
		if (mask & (1ull << i))
			pmh_sb_add(&sb, "%s%s", sb.len ? "," : "", p->ctr[i].name);
}

/* A result line's first word: "PASS", or "PASS:" for kvm-unit-tests'
 * runner, which takes a line's first four characters as the result and
 * the rest after six as its text (run_tests.sh, TAP output). */
static const char *result_tag(const struct suite *s, enum verdict v)
{
	static const char kut[][6] = {"PASS:", "FAIL:", "SKIP:"};

	return s->opt->output == OUTPUT_KUT && v <= V_SKIP ? kut[v] : verdict_name(v);
}

/* Counts a verdict (the run's and its CPU's) and keeps it in the results
 * table while there is room; the new entry, or NULL. */
static struct result *add_result(struct suite *s, const char *id, unsigned cpu, enum verdict v,
				 const char *msg)
{
	struct cpu_record *cr = suite_cpu_rec(s, cpu, !HERE->res);
	struct run_counts dummy = {0}; /* a CPU past the table: counted in the run only */
	struct run_counts *n = cr ? &cr->n : &dummy;
	struct suite_here *h = HERE;
	struct result *r;

	if (v == V_PASS) {
		count_up(&s->passed);
		n->passed++;
	} else if (v == V_FAIL) {
		count_up(&s->failed);
		n->failed++;
	} else {
		count_up(&s->skipped);
		n->skipped++;
	}
	if (h->res ? h->n_res >= h->cap_res : s->n_results >= s->cap_results) {
		count_up(&s->dropped); /* the verdict is ERROR (suite_counts) */
		return 0;
	}
	r = h->res ? &h->res[h->n_res++] : &s->results[s->n_results++];
	pmh_memset(r, 0, sizeof(*r));
	pmh_strlcpy(r->id, id, sizeof(r->id));
	r->cpu = cpu;
	r->v = v;
	pmh_strlcpy(r->msg, msg, sizeof(r->msg));
	return r;
}

void suite_fail_cpu(struct suite *s, unsigned cpu, const char *msg)
{
	struct result *r = add_result(s, "cpu.run", cpu, V_FAIL, msg);
	lava_case_start(s, "cpu.run", cpu);
	suite_emit(s, "%s cpu.%u: %s", result_tag(s, V_FAIL), cpu, msg);
	if (r)
		lava_case_end(s, r);
}

/* A failed check's further failures, one line each under its FAIL line
 * (inside its LAVA test case), and those the table could not keep. */
static void emit_more(struct suite *s, const char *id, const struct check_ctx *c)
{
	for (unsigned k = 0; k < c->n_more; k++)
		suite_emit(s, "  %s failure %u of %u: %s", id, k + 2, c->n_fail,
			   s->more[c->more_first + k]);
	if (c->more_lost)
		suite_emit(s, "  %s: %u more failures not kept (the run's table of %u is full)", id,
			   c->more_lost, s->cap_more);
}

/* NMIs from outside the harness (none of its PMIs: no NMI handler was
 * armed) that came during check id, said here, outside NMI context. */
static void outside_nmis(struct suite *s, const char *id, uint64_t n)
{
	if (n)
		suite_emit(
		    s,
		    "warning: %llu NMI%s from outside the harness (not a PMI: none was armed "
		    "for NMI) during %s, the last at rip 0x%llx; its measurements may be off",
		    (unsigned long long)n, n > 1 ? "s" : "", id,
		    (unsigned long long)isr_unexpected_nmi_rip());
}

static void record(struct suite *s, struct check_ctx *c)
{
	const char *sep = c->s->opt->all_cpus || c->s->opt->n_cpus > 1 ? "@cpu" : 0;
	char id[48];

	if (c->v == V_NONE) { /* a check that decided nothing is a defect */
		c->v = V_FAIL;
		pmh_strlcpy(c->msg, "check gave no verdict", sizeof(c->msg));
	}

	if (sep)
		pmh_fmt(id, sizeof(id), "%s@cpu%u", c->chk->id, c->cpu_index);
	else
		pmh_strlcpy(id, c->chk->id, sizeof(id));

	if (c->v == V_PASS && c->chk->needs_pmu) {
		struct cpu_record *cr = suite_cpu_rec(s, c->cpu_index, !HERE->res);
		count_up(&s->pmu_passed);
		if (cr)
			cr->n.pmu_passed++;
	}
	struct result *r = add_result(s, c->chk->id, c->cpu_index, c->v, c->msg);
	if (r) {
		r->fig = c->fig;
		ctr_names(c->pmu, c->fig.ctrs, r->ctr_names, sizeof(r->ctr_names));
		r->more_first = c->more_first;
		r->n_more = c->n_more;
		r->more_lost = c->more_lost;
	}
	if (c->v == V_SKIP)
		suite_emit(s, "%s %s: %s", result_tag(s, c->v), id, c->msg);
	else if (c->v == V_FAIL && c->n_fail > 1)
		suite_emit(s, "%s %s %s (1 of %u failures; the others follow)", result_tag(s, c->v),
			   id, c->msg, c->n_fail);
	else
		suite_emit(s, "%s %s %s", result_tag(s, c->v), id, c->msg);
	emit_more(s, id, c);
	if (r)
		lava_case_end(s, r);
}

/* Whether id is one of the comma-separated entries of list as it is. */
static bool named(const char *list, const char *id)
{
	size_t n = pmh_strlen(id);

	for (const char *p = list; *p;) {
		const char *e = p;
		while (*e && *e != ',')
			e++;
		if ((size_t)(e - p) == n && !pmh_strncmp(p, id, n))
			return true;
		p = *e ? e + 1 : e;
	}
	return false;
}

/* Whether the checks option selects k (the same rule for the run and the
 * count below). */
static bool selected(const struct options *o, const struct check *k)
{
	return k->only_when_named ? named(o->checks, k->id) : options_check_selected(o, k->id);
}

unsigned suite_selected(const struct options *o)
{
	const struct check *list[SUITE_MAX_CHECKS];
	size_t n = suite_checks(list, SUITE_MAX_CHECKS);
	unsigned k = 0;

	for (size_t i = 0; i < n; i++)
		k += selected(o, list[i]);
	return k;
}

void suite_run(struct suite *s, unsigned cpu_index)
{
	const struct check *list[SUITE_MAX_CHECKS];
	size_t n = suite_checks(list, SUITE_MAX_CHECKS);
	char caps[160];
	unsigned n_sel = 0, i_sel = 0;
	bool measures = false; /* a selected check measures the PMU */
	struct suite_here *h = HERE;

	h->running = 0; /* an AP's crash left its check named */
	for (size_t i = 0; i < n; i++) {
		bool sel = selected(s->opt, list[i]);
		n_sel += sel;
		measures |= sel && list[i]->needs_pmu;
	}
	h->hv.counted = h->hv.taken = 0; /* this CPU's counters */
	if (measures)
		hv_census(s, cpu_index);
	note_cpu(s, cpu_index);
	for (size_t i = 0; i < n; i++) {
		const struct check *k = list[i];
		struct check_ctx c = {
		    .s = s,
		    .chk = k,
		    .pmu = h->pmu,
		    .cpu = h->cpu,
		    .opt = s->opt,
		    .apic = h->apic,
		    .cpu_index = cpu_index,
		    .v = V_NONE,
		};

		if (!selected(s->opt, k))
			continue;
		if (h->out.progress)
			h->out.progress(h->out.ctx, k->id, ++i_sel, n_sel, cpu_index);
		lava_case_start(s, k->id, cpu_index);
		if (k->needs_pmu && h->pmu->status != PMU_FUNCTIONAL) {
			check_skip(&c, "pmu.status %s: %s", pmu_status_name(h->pmu->status),
				   h->pmu->reason);
		} else if (k->needs_pmu && (h->pmu->caps & k->needs_caps) != k->needs_caps) {
			check_skip(&c, "%s has no %s", h->pmu->name,
				   cap_names(k->needs_caps & ~h->pmu->caps, caps, sizeof(caps)));
		} else {
			uint64_t nmis = isr_unexpected_nmis();
			h->running = k->id; /* named in a crash record */
			k->run(&c);
			h->running = 0;
			if (c.v == V_FAIL)
				hv_failed(&c); /* a known bug, or a counter gone to the host */
			outside_nmis(s, k->id, isr_unexpected_nmis() - nmis);
		}
		record(s, &c);
	}
}
