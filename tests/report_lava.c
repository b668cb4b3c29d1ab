/* LAVA's test signals, from the results table the JSON document is written
 * from (report_json.c): the same ids, verdicts and figures.
 *
 * The syntax is lava-dispatcher's (Debian lava-dispatcher 2023.01):
 * lava_dispatcher/actions/test/shell.py, TestShellAction._reset_patterns,
 * matches r"<LAVA_SIGNAL_(\S+) ([^>]+)>" and splits the second group at
 * blanks; signal_test_set takes "START name" / "STOP", signal_test_case
 * hands KEY=value words to handle_testcase (one '=' each, keys lowercased:
 * test_case_id, result, measurement, units). A job's monitor action
 * (lava_dispatcher/actions/test/monitor.py, check_patterns) matches the
 * TESTCASE line with its own pattern instead (the jobs in lava/). So each
 * signal is one whole line through the suite's sink, no blank inside a
 * value, no '>' or '=' in an id or unit. */
#include "report_lava.h"
#include "report_events.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

#define LAVA_SET      "pmuharness" /* the test set's name (lava/README) */
#define LAVA_ID_MAX   64 /* a check id (40), or "event.", a name (39) and ".768"; "@cpu65535" */
#define LAVA_UNIT_MAX 24

/* A LAVA result per enum verdict (V_NONE: never recorded, see record()). */
static const char lava_results[][8] = {"pass", "fail", "skip", "unknown"};

/* s into buf with every character outside [A-Za-z0-9._-] as '_'. */
static const char *lava_word(char *buf, size_t n, const char *s)
{
	size_t i = 0;

	for (; s[i] && i + 1 < n; i++) {
		char c = s[i], l = (char)(c | 0x20);
		bool ok = (l >= 'a' && l <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
			  c == '-' || c == '_';
		buf[i] = ok ? c : '_';
	}
	buf[i] = 0;
	return buf;
}

const char *lava_case_id(char *buf, size_t n, const char *id, unsigned cpu, bool per_cpu)
{
	char raw[LAVA_ID_MAX];

	if (per_cpu)
		pmh_fmt(raw, sizeof(raw), "%s@cpu%u", id, cpu);
	else
		pmh_fmt(raw, sizeof(raw), "%s", id);
	return lava_word(buf, n, raw);
}

static bool lava_on(const struct suite *s)
{
	return s->opt->output == OUTPUT_LAVA;
}

/* Results are named per CPU as record() names them. */
static bool lava_per_cpu(const struct suite *s)
{
	return s->opt->all_cpus || s->opt->n_cpus > 1;
}

/* A test set's START name, or its STOP (name NULL). */
static void lava_testset(struct suite *s, const char *name)
{
	if (name)
		suite_emit(s, "<LAVA_SIGNAL_TESTSET START %s>", name);
	else
		suite_emit(s, "<LAVA_SIGNAL_TESTSET STOP>");
}

/* One TESTCASE line: the id as LAVA takes it, the result, and where unit
 * is set the measurement m with the unit made one LAVA word. */
static void lava_testcase(struct suite *s, const char *id, const char *result, long long m,
			  const char *unit)
{
	char w[LAVA_UNIT_MAX], meas[64] = "";

	if (unit)
		pmh_fmt(meas, sizeof(meas), " MEASUREMENT=%lld UNITS=%s", m,
			lava_word(w, sizeof(w), unit));
	suite_emit(s, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=%s RESULT=%s%s>", id, result, meas);
}

void lava_set(struct suite *s, bool start)
{
	if (!lava_on(s) || s->lava_open == start)
		return;
	lava_testset(s, start ? LAVA_SET : 0);
	s->lava_open = start;
}

void lava_case_start(struct suite *s, const char *id, unsigned cpu)
{
	char lid[LAVA_ID_MAX];

	if (lava_on(s))
		suite_emit(s, "<LAVA_SIGNAL_STARTTC %s>",
			   lava_case_id(lid, sizeof(lid), id, cpu, lava_per_cpu(s)));
}

/* How many rows before row i of the same CPU have its event's name (an
 * event may have several rules: another workload or bound). */
static unsigned same_name_before(const struct suite *s, unsigned i)
{
	const struct event_row *e = &s->ev_rows[i];
	unsigned k = 0;

	for (unsigned j = 0; j < i; j++)
		k += s->ev_rows[j].cpu == e->cpu && !pmh_strcmp(s->ev_rows[j].name, e->name);
	return k;
}

/* event.semantics' rows of CPU cpu after its own case, in the results
 * JSON's order: a case each, "event.NAME" (a name's second rule on the CPU
 * "event.NAME.2", and so on; "@cpuN" as the checks' ids), the row's
 * result, and what it measured in events (a SKIP measured nothing: no
 * measurement, as a result without figures). */
static void lava_event_rows(struct suite *s, unsigned cpu)
{
	char raw[LAVA_ID_MAX], id[LAVA_ID_MAX];

	for (unsigned i = 0; i < s->n_ev_rows && i < SUITE_MAX_EVENT_ROWS; i++) {
		const struct event_row *e = &s->ev_rows[i];
		if (e->cpu != cpu)
			continue;
		unsigned k = same_name_before(s, i);
		if (k)
			pmh_fmt(raw, sizeof(raw), "event.%s.%u", e->name, k + 1);
		else
			pmh_fmt(raw, sizeof(raw), "event.%s", e->name);
		lava_case_id(id, sizeof(id), raw, cpu, lava_per_cpu(s));
		enum verdict v = event_row_verdict(e);
		lava_testcase(s, id, lava_results[v], e->measured, v == V_SKIP ? 0 : "events");
	}
}

void lava_case_end(struct suite *s, const struct result *r)
{
	char id[LAVA_ID_MAX];
	const char *unit = 0;

	if (!lava_on(s))
		return;
	lava_case_id(id, sizeof(id), r->id, r->cpu, lava_per_cpu(s));
	if (r->fig.set) /* the median: the figure the check judged by */
		unit = r->fig.unit ? r->fig.unit : "events";
	suite_emit(s, "<LAVA_SIGNAL_ENDTC %s>", id);
	lava_testcase(s, id, lava_results[r->v <= V_NONE ? r->v : V_NONE], r->fig.med, unit);
	if (!pmh_strcmp(r->id, EVENT_CHECK_ID))
		lava_event_rows(s, r->cpu);
}

/* One identification case of a CPU: id (with "@cpuN" as the checks' ids
 * have it), a word appended to it for a name ("pmu.driver.intel-arch"), a
 * result, and a number as the measurement where unit is set. */
static void lava_fact(struct suite *s, const struct cpu_record *r, const char *id, const char *word,
		      const char *result, unsigned m, const char *unit)
{
	char raw[LAVA_ID_MAX], lid[LAVA_ID_MAX];

	pmh_fmt(raw, sizeof(raw), word ? "%s.%s" : "%s", id, word);
	lava_case_id(lid, sizeof(lid), raw, r->cpu, lava_per_cpu(s));
	lava_testcase(s, lid, result, m, unit);
}

/* A CPU's identification as the results JSON's "cpus" entry has it (the
 * same record): names as cases, numbers as measurements; pmu.status passes
 * when functional and is skipped otherwise (nothing to validate, as the NO
 * PMU verdict says). */
static void lava_cpu_identity(struct suite *s, const struct cpu_record *r)
{
	const struct cpu_info *ci = &r->ci;

	lava_fact(s, r, "cpu.vendor", ci->ids.vendor, "pass", 0, 0);
	lava_fact(s, r, "cpu.family", 0, "pass", ci->family, "number");
	lava_fact(s, r, "cpu.model", 0, "pass", ci->model, "number");
	lava_fact(s, r, "cpu.stepping", 0, "pass", ci->stepping, "number");
	if (ci->hypervisor) /* by name, as the JSON's "hypervisor" */
		lava_fact(s, r, "cpu.hypervisor", ci->hv.name, "pass", 0, 0);
	lava_fact(s, r, "pmu.driver", pmu_driver_name(ci->driver), "pass", 0, 0);
	lava_fact(s, r, "pmu.status", 0, r->status == PMU_FUNCTIONAL ? "pass" : "skip", 0, 0);
	lava_fact(s, r, "pmu.version", 0, "pass", r->version, "version");
	lava_fact(s, r, "pmu.gp_counters", 0, "pass", r->n_gp, "counters");
	lava_fact(s, r, "pmu.gp_width", 0, "pass", r->gp_width, "bits");
	lava_fact(s, r, "pmu.fixed_counters", 0, "pass", r->n_fixed, "counters");
	lava_fact(s, r, "pmu.fixed_width", 0, "pass", r->fixed_width, "bits");
}

/* The hypervisor's findings (tests/hv_policy.c), where there are any, as
 * cases of their own: "pmu.restricted" with how many restrictions (pass
 * without any: a bug or a host condition alone; skip with: something was
 * not measured), then one case per finding,
 * "pmu.restricted.WHAT", "pmu.hypervisor_bug.WHAT" or "pmu.host.WHAT",
 * skipped: not measured, or worked around; a check that failed on it has
 * its own failed case. */
static void lava_hv(struct suite *s)
{
	static const char head[][24] = {[HV_POLICY] = "pmu.restricted",
					[HV_BUG] = "pmu.hypervisor_bug",
					[HV_HOST] = "pmu.host"};
	char raw[LAVA_ID_MAX], w[LAVA_ID_MAX], id[LAVA_ID_MAX];
	unsigned n = 0;

	for (unsigned i = 0; i < s->n_hv; i++)
		n += s->hv[i].kind == HV_POLICY;
	lava_testcase(s, "pmu.restricted", n ? "skip" : "pass", n, "restrictions");
	for (unsigned i = 0; i < s->n_hv; i++) {
		const struct hv_finding *h = &s->hv[i];
		pmh_fmt(raw, sizeof(raw), "%s.%s", head[h->kind], lava_word(w, sizeof(w), h->what));
		lava_testcase(s, lava_case_id(id, sizeof(id), raw, h->cpu, lava_per_cpu(s)), "skip",
			      0, 0);
	}
}

void lava_identity(struct suite *s)
{
	if (!lava_on(s))
		return;
	lava_testset(s, LAVA_SET "-identity");
	for (unsigned i = 0; i < s->n_cpus; i++)
		if (s->cpus[i].identified)
			lava_cpu_identity(s, &s->cpus[i]);
	if (s->n_hv)
		lava_hv(s);
	lava_testset(s, 0);
}

void lava_end(struct suite *s)
{
	if (!lava_on(s))
		return;
	lava_set(s, true);
	/* NO PMU, NO VERDICT and ERROR are not green: a vPMU that went away
	 * fails the lab's job as a FAIL does */
	lava_testcase(s, "verdict", suite_verdict(s) == RV_PASS ? "pass" : "fail", 0, 0);
	if (s->crash.set) /* the name the JUnit and TAP reports give it */
		lava_testcase(s, "harness.crash", "fail", 0, 0);
	lava_set(s, false);
	lava_identity(s);
}
