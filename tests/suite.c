/* The runner: selects checks by id glob, applies capability gates (SKIP with
 * the reason), runs each, and records exactly one verdict per check per CPU. */
#include "suite.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

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

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case V_PASS:
		return "PASS";
	case V_FAIL:
		return "FAIL";
	case V_SKIP:
		return "SKIP";
	default:
		return "NONE";
	}
}

void suite_init(struct suite *s, const struct options *o, const struct cpu_info *ci,
		struct pmu *p, const struct apic_info *ai, struct sink out)
{
	pmh_memset(s, 0, sizeof(*s));
	s->opt = o;
	s->cpu = ci;
	s->pmu = p;
	s->apic = ai;
	s->out = out;
}

struct suite_cpu suite_bound(const struct suite *s)
{
	struct suite_cpu c = { s->cpu, s->pmu, s->apic, s->out };
	return c;
}

void suite_bind_cpu(struct suite *s, const struct suite_cpu *c)
{
	s->cpu = c->cpu;
	s->pmu = c->pmu;
	s->apic = c->apic;
	s->out = c->out;
}

void suite_emit(struct suite *s, const char *f, ...)
{
	char line[320];
	va_list ap;

	va_start(ap, f);
	pmh_vfmt(line, sizeof(line), f, ap);
	va_end(ap);
	if (s->out.line)
		s->out.line(s->out.ctx, line);
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

void check_fail(struct check_ctx *c, const char *f, ...)
{
	va_list ap;
	c->n_fail++;
	if (c->v == V_FAIL)
		return;
	c->v = V_FAIL;
	va_start(ap, f);
	set_msg(c, f, ap);
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
		"global control",     "overflow status register", "fixed counters",
		"full-width writes",  "GLOBAL_STATUS_SET",	  "RDPMC",
		"sticky CCCR.OVF",    "sign-bit overflow",	  "single enable bit",
		"PerfMonV2",	      "edge/invert/cmask filters",
	};
	struct pmh_sb sb;
	pmh_sb_init(&sb, buf, n);
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (caps & (1u << i))
			pmh_sb_add(&sb, "%s%s", sb.len ? ", " : "", names[i]);
	return buf;
}

/* Counts a verdict and keeps it in the results table while there is room. */
static void add_result(struct suite *s, const char *id, unsigned cpu, enum verdict v,
		       const char *msg)
{
	if (v == V_PASS)
		s->passed++;
	else if (v == V_FAIL)
		s->failed++;
	else
		s->skipped++;
	if (s->n_results < SUITE_MAX_RESULTS) {
		struct result *r = &s->results[s->n_results++];
		pmh_strlcpy(r->id, id, sizeof(r->id));
		r->cpu = cpu;
		r->v = v;
		pmh_strlcpy(r->msg, msg, sizeof(r->msg));
	} else {
		s->dropped++;
	}
}

void suite_fail_cpu(struct suite *s, unsigned cpu, const char *msg)
{
	add_result(s, "cpu.run", cpu, V_FAIL, msg);
	suite_emit(s, "FAIL cpu.%u: %s", cpu, msg);
}

static void record(struct suite *s, struct check_ctx *c)
{
	const char *sep = c->s->opt->all_cpus || c->s->opt->n_cpus > 1 ? "@cpu" : 0;
	char id[48];

	if (c->v == V_NONE) { /* a check that decided nothing is a defect */
		c->v = V_FAIL;
		pmh_strlcpy(c->msg, "check gave no verdict", sizeof(c->msg));
	}
	if (c->v == V_FAIL && c->n_fail > 1) {
		size_t l = pmh_strlen(c->msg);
		pmh_fmt(c->msg + l, sizeof(c->msg) - l, " (and %u more)", c->n_fail - 1);
	}
	if (sep)
		pmh_fmt(id, sizeof(id), "%s@cpu%u", c->chk->id, c->cpu_index);
	else
		pmh_strlcpy(id, c->chk->id, sizeof(id));

	if (c->v == V_PASS && c->chk->needs_pmu)
		s->pmu_passed++;
	add_result(s, c->chk->id, c->cpu_index, c->v, c->msg);
	if (c->v == V_SKIP)
		suite_emit(s, "SKIP %s: %s", id, c->msg);
	else
		suite_emit(s, "%s %s %s", verdict_name(c->v), id, c->msg);
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
	const struct check *list[256];
	size_t n = suite_checks(list, 256);
	unsigned k = 0;

	for (size_t i = 0; i < n; i++)
		k += selected(o, list[i]);
	return k;
}

void suite_run(struct suite *s, unsigned cpu_index)
{
	const struct check *list[256];
	size_t n = suite_checks(list, 256);
	char caps[160];
	unsigned n_sel = 0, i_sel = 0;

	for (size_t i = 0; i < n; i++)
		n_sel += selected(s->opt, list[i]);
	for (size_t i = 0; i < n; i++) {
		const struct check *k = list[i];
		struct check_ctx c = {
			.s = s,
			.chk = k,
			.pmu = s->pmu,
			.cpu = s->cpu,
			.opt = s->opt,
			.apic = s->apic,
			.cpu_index = cpu_index,
			.v = V_NONE,
		};

		if (!selected(s->opt, k))
			continue;
		if (s->out.progress)
			s->out.progress(s->out.ctx, k->id, ++i_sel, n_sel, cpu_index);
		if (k->needs_pmu && s->pmu->status != PMU_FUNCTIONAL) {
			check_skip(&c, "pmu.status %s: %s", pmu_status_name(s->pmu->status),
				   s->pmu->reason);
		} else if (k->needs_pmu && (s->pmu->caps & k->needs_caps) != k->needs_caps) {
			check_skip(&c, "%s has no %s", s->pmu->name,
				   cap_names(k->needs_caps & ~s->pmu->caps, caps, sizeof(caps)));
		} else {
			k->run(&c);
		}
		record(s, &c);
	}
}
