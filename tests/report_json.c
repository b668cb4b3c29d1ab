/* The JSON results document, schema pmuharness-results/2: the contract with
 * the report tool, host/report/pmuharness-results-2.schema.json. Every field
 * is written (null where the platform cannot tell); 64-bit values that may
 * pass 2^53 are hex strings. */
#include "report_sampling.h"
#include "suite.h"
#include "platform.h"
#include "smbios.h"
#include "report_events.h"
#include "../lib/fmt.h"
#include "../lib/str.h"

#define SCHEMA_ID "pmuharness-results/2"

/* A string, or null for NULL or "". */
static void str_or_null(struct pmh_sb *sb, const char *v)
{
	if (v && v[0])
		pmh_sb_json_str(sb, v);
	else
		pmh_sb_add(sb, "null");
}

static void head(struct pmh_sb *sb, const struct suite *s)
{
	const struct platform *p = s->platform;
	static const char commit[] = PMH_COMMIT;

	pmh_sb_add(sb,
		   "{\n  \"schema\": \"%s\",\n  \"harness\": {\"version\": \"%s\", \"commit\": ",
		   SCHEMA_ID, PMH_VERSION);
	str_or_null(sb, pmh_strcmp(commit, "unknown") ? commit : 0);
	pmh_sb_add(sb, "},\n  \"started\": ");
	str_or_null(sb, s->started);
	if (p && p->now_us)
		pmh_sb_add(sb, ",\n  \"elapsed_us\": %llu",
			   (unsigned long long)(p->now_us(p->ctx) - s->t0_us));
	else
		pmh_sb_add(sb, ",\n  \"elapsed_us\": null");
	pmh_sb_add(sb, ",\n  \"firmware\": ");
	if (p && (p->fw_vendor || p->fw_revision)) {
		pmh_sb_add(sb, "{\"vendor\": ");
		str_or_null(sb, p->fw_vendor);
		pmh_sb_add(sb, ", \"revision\": ");
		str_or_null(sb, p->fw_revision);
		pmh_sb_add(sb, "}");
	} else {
		pmh_sb_add(sb, "null");
	}
}

static void smbios_fields(struct pmh_sb *sb, const struct smbios_id *id)
{
	pmh_sb_add(sb, "\"manufacturer\": ");
	str_or_null(sb, id->manufacturer);
	pmh_sb_add(sb, ", \"product\": ");
	str_or_null(sb, id->product);
	pmh_sb_add(sb, ", \"version\": ");
	str_or_null(sb, id->version);
}

/* SMBIOS type 1 and 2; null without a table or a system structure. */
static void system_id(struct pmh_sb *sb, const struct suite *s)
{
	const struct smbios_info *si = &s->sys;

	pmh_sb_add(sb, ",\n  \"system\": ");
	if (!s->have_sys || !si->system.found) {
		pmh_sb_add(sb, "null");
		return;
	}
	pmh_sb_add(sb, "{");
	smbios_fields(sb, &si->system);
	pmh_sb_add(sb, ", \"board\": ");
	if (si->board.found) {
		pmh_sb_add(sb, "{");
		smbios_fields(sb, &si->board);
		pmh_sb_add(sb, "}");
	} else {
		pmh_sb_add(sb, "null");
	}
	pmh_sb_add(sb, "}");
}

static void options_obj(struct pmh_sb *sb, const struct options *o)
{
	pmh_sb_add(sb, ",\n  \"options\": {\"checks\": ");
	pmh_sb_json_str(sb, o->checks);
	if (o->all_cpus) {
		pmh_sb_add(sb, ", \"cpus\": \"%s\"", o->cpus_serial ? "serial" : "all");
	} else if (!o->n_cpus) {
		pmh_sb_add(sb, ", \"cpus\": \"boot\"");
	} else {
		pmh_sb_add(sb, ", \"cpus\": [");
		for (unsigned i = 0; i < o->n_cpus && i < OPT_MAX_CPUS; i++)
			pmh_sb_add(sb, "%s%u", i ? ", " : "", o->cpus[i]);
		pmh_sb_add(sb, "]");
	}
	pmh_sb_add(sb, ", \"repeat\": %u, \"pmi\": \"%s\", \"preload\": [", o->repeat,
		   o->pmi == PMI_NMI ? "nmi" : "fixed");
	for (unsigned i = 0; i < o->n_preloads && i < OPT_MAX_PRELOADS; i++) {
		if (o->preloads[i])
			pmh_sb_add(sb, "%s%llu", i ? ", " : "", (unsigned long long)o->preloads[i]);
		else
			pmh_sb_add(sb, "%s\"max\"", i ? ", " : "");
	}
	pmh_sb_add(sb, "], \"event\": ");
	str_or_null(sb, o->event);
	pmh_sb_add(sb, ", \"on_finish\": \"%s\"}", options_finish_name(o->on_finish));
}

static void cpu_pmu(struct pmh_sb *sb, const struct cpu_record *r)
{
	pmh_sb_add(sb, ",\n      \"pmu\": {\"driver\": \"%s\", \"status\": \"%s\", \"reason\": ",
		   pmu_driver_name(r->ci.driver), pmu_status_name(r->status));
	pmh_sb_json_str(sb, r->reason);
	pmh_sb_add(sb,
		   ", \"version\": %u, \"gp_counters\": %u, \"gp_width\": %u, "
		   "\"fixed_counters\": %u, \"fixed_width\": %u}",
		   r->version, r->n_gp, r->gp_width, r->n_fixed, r->fixed_width);
}

/* The hypervisor by name (as the text's cpu.hypervisor line and LAVA's
 * case name it), then what its leaves said: null on bare metal; signature,
 * leaf and max_leaf null when no leaf answered. */
static void cpu_hv(struct pmh_sb *sb, const struct cpu_info *ci)
{
	const struct hv_info *hv = &ci->hv;

	pmh_sb_add(sb, ", \"hypervisor\": ");
	str_or_null(sb, ci->hypervisor ? hv->name : 0);
	if (!ci->hypervisor) {
		pmh_sb_add(sb, ", \"hypervisor_cpuid\": null");
		return;
	}
	pmh_sb_add(sb, ", \"hypervisor_cpuid\": {\"signature\": ");
	str_or_null(sb, hv->base ? hv->signature : 0);
	if (hv->base)
		pmh_sb_add(sb, ", \"leaf\": %u, \"max_leaf\": %u", hv->base, hv->max_leaf);
	else
		pmh_sb_add(sb, ", \"leaf\": null, \"max_leaf\": null");
	pmh_sb_add(sb, ", \"version\": ");
	str_or_null(sb, hv->version[0] ? hv->version : 0);
	pmh_sb_add(sb, ", \"hyperv_interface\": %s}", hv->hyperv_face ? "true" : "false");
}

/* One CPU's identity and verdict; a CPU that failed before it ran a
 * check has its identity null. */
static void cpu_obj(struct pmh_sb *sb, const struct cpu_record *r)
{
	const struct cpu_info *ci = &r->ci;

	pmh_sb_add(sb, "\n    {\"cpu\": %u, \"apic_id\": ", r->cpu);
	if (!r->identified) {
		pmh_sb_add(sb,
			   "null, \"vendor\": null, \"family\": null, \"model\": null, "
			   "\"stepping\": null, \"brand\": null, \"microcode\": null, "
			   "\"hypervisor\": null, \"hypervisor_cpuid\": null, \"apic_mode\": null, "
			   "\"core_type\": null, "
			   "\"pmu\": null");
	} else {
		pmh_sb_add(sb, "%u, \"vendor\": ", r->apic_id);
		pmh_sb_json_str(sb, ci->ids.vendor);
		pmh_sb_add(sb, ", \"family\": %u, \"model\": %u, \"stepping\": %u, \"brand\": ",
			   ci->family, ci->model, ci->stepping);
		pmh_sb_json_str(sb, ci->brand);
		if (ci->microcode_valid)
			pmh_sb_add(sb, ", \"microcode\": %u", ci->microcode);
		else
			pmh_sb_add(sb, ", \"microcode\": null");
		cpu_hv(sb, ci);
		pmh_sb_add(
		    sb, ", \"apic_mode\": \"%s\", \"core_type\": ", apic_mode_name(r->apic_mode));
		str_or_null(sb, cpu_core_type_name(ci->ids.core_type)); /* "": not hybrid */
		cpu_pmu(sb, r);
	}
	pmh_sb_add(sb,
		   ",\n      \"verdict\": \"%s\", \"passed\": %u, \"failed\": %u, \"skipped\": %u}",
		   run_verdict_name(run_verdict_of(&r->n)), r->n.passed, r->n.failed, r->n.skipped);
}

/* "name", the samples kept (at most FIG_SAMPLES, for the report's plots)
 * and how many were taken: what a figure or series adds to min/median/max. */
static void samples(struct pmh_sb *sb, const char *name, int64_t med, const struct fig_samples *p)
{
	pmh_sb_add(sb, ", \"name\": ");
	str_or_null(sb, name);
	pmh_sb_add(sb, ", \"samples\": [");
	for (unsigned i = 0; i < p->n && i < FIG_SAMPLES; i++)
		pmh_sb_add(sb, "%s%lld", i ? ", " : "", (long long)(med + p->d[i]));
	pmh_sb_add(sb, "], \"samples_taken\": %u", p->of);
}

/* A second series (skid's PMI latency): "series": [] without one. */
static void series(struct pmh_sb *sb, const struct fig_series *a)
{
	pmh_sb_add(sb, ",\n      \"series\": [");
	if (a->unit) {
		pmh_sb_add(sb, "{\"min\": %lld, \"median\": %lld, \"max\": %lld, \"unit\": ",
			   (long long)a->min, (long long)a->med, (long long)a->max);
		pmh_sb_json_str(sb, a->unit);
		samples(sb, a->name, a->med, &a->smp);
		pmh_sb_add(sb, "}");
	}
	pmh_sb_add(sb, "]");
}

static void figures(struct pmh_sb *sb, const struct result *r)
{
	const struct figures *f = &r->fig;

	if (!f->set) {
		pmh_sb_add(sb, ", \"figures\": null");
		return;
	}
	pmh_sb_add(
	    sb, ",\n     \"figures\": {\"min\": %lld, \"median\": %lld, \"max\": %lld, \"unit\": ",
	    (long long)f->min, (long long)f->med, (long long)f->max);
	pmh_sb_json_str(sb, f->unit ? f->unit : "events");
	pmh_sb_add(sb, ", \"tolerance\": ");
	str_or_null(sb, f->tolerance);
	pmh_sb_add(sb, ", \"counters\": [");
	for (const char *p = r->ctr_names; *p;) {
		char name[RESULT_CTR_NAMES];
		size_t n = 0;
		while (p[n] && p[n] != ',')
			n++;
		pmh_strlcpy(name, p, n + 1 < sizeof(name) ? n + 1 : sizeof(name));
		pmh_sb_add(sb, "%s", p == r->ctr_names ? "" : ", ");
		pmh_sb_json_str(sb, name);
		p += p[n] ? n + 1 : n;
	}
	pmh_sb_add(sb, "]");
	samples(sb, f->name, f->med, &f->smp);
	series(sb, &f->also);
	pmh_sb_add(sb, "}");
}

/* The crash record's registers, in this order. */
static const char reg_names[CRASH_REGS][7] = {
    "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",    "r8",
    "r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rflags",
};

void report_crash(struct suite *s, const struct int_frame *f)
{
	report_crash_in(s, f, suite_running(s));
}

void report_crash_in(struct suite *s, const struct int_frame *f, const char *check)
{
	struct crash_record *c = &s->crash;
	bool first;

	suite_lock(s); /* the CPUs of a parallel run share the record */
	first = f && !c->set;
	c->set |= first;
	suite_unlock(s);
	if (!first)
		return; /* not known, or not the first (each went to COM1) */
	const uint64_t r[CRASH_REGS] = {f->rax, f->rbx, f->rcx, f->rdx, f->rsi,	  f->rdi,
					f->rbp, f->rsp, f->r8,	f->r9,	f->r10,	  f->r11,
					f->r12, f->r13, f->r14, f->r15, f->rflags};
	c->vector = f->vector;
	c->error = f->error;
	c->rip = f->rip;
	pmh_memcpy(c->regs, r, sizeof(r));
	pmh_strlcpy(c->check, check ? check : "", sizeof(c->check));
	suite_emit(s, "crash: vector %llu error 0x%llx rip 0x%llx rsp 0x%llx in %s",
		   (unsigned long long)c->vector, (unsigned long long)c->error,
		   (unsigned long long)c->rip, (unsigned long long)f->rsp,
		   c->check[0] ? c->check : "no check");
}

static void crash(struct pmh_sb *sb, const struct crash_record *c)
{
	if (!c->set) {
		pmh_sb_add(sb, ",\n  \"crash\": null");
		return;
	}
	pmh_sb_add(sb,
		   ",\n  \"crash\": {\"vector\": %llu, \"error_code\": %llu, \"rip\": \"0x%llx\", "
		   "\"registers\": {",
		   (unsigned long long)c->vector, (unsigned long long)c->error,
		   (unsigned long long)c->rip);
	for (unsigned i = 0; i < CRASH_REGS; i++)
		pmh_sb_add(sb, "%s\"%s\": \"0x%llx\"", i ? ", " : "", reg_names[i],
			   (unsigned long long)c->regs[i]);
	pmh_sb_add(sb, "}, \"check\": ");
	str_or_null(sb, c->check);
	pmh_sb_add(sb, "}");
}

/* A result's message; a FAIL's every failure, "; " between them, and the
 * count of those the run's table could not keep. */
static void detail(struct pmh_sb *sb, const struct suite *s, const struct result *r)
{
	pmh_sb_add(sb, "\"");
	pmh_sb_json_chars(sb, r->msg);
	for (unsigned k = 0; k < r->n_more && r->more_first + k < s->n_more; k++) {
		pmh_sb_add(sb, "; ");
		pmh_sb_json_chars(sb, s->more[r->more_first + k]);
	}
	if (r->more_lost)
		pmh_sb_add(sb, "; %u more failures not kept (the run's table of %u is full)",
			   r->more_lost, s->cap_more);
	pmh_sb_add(sb, "\"");
}

static void results(struct pmh_sb *sb, const struct suite *s)
{
	pmh_sb_add(sb, ",\n  \"results\": [");
	for (unsigned i = 0; i < s->n_results; i++) {
		const struct result *r = &s->results[i];
		pmh_sb_add(sb, "%s\n    {\"id\": ", i ? "," : "");
		pmh_sb_json_str(sb, r->id);
		pmh_sb_add(sb, ", \"cpu\": %u, \"verdict\": \"%s\", \"detail\": ", r->cpu,
			   verdict_name(r->v));
		detail(sb, s, r);
		figures(sb, r);
		pmh_sb_add(sb, "}");
	}
	pmh_sb_add(sb, "\n  ]");
}

/* A bound of an event's accepted range: null where there is none. */
static void bound(struct pmh_sb *sb, int64_t v, int64_t none)
{
	if (v == none)
		pmh_sb_add(sb, "null");
	else
		pmh_sb_add(sb, "%lld", (long long)v);
}

/* event.semantics' rows: what each validated event counted against its
 * rule; "measured" null for a SKIP (nothing measured). */
static void event_obj(struct pmh_sb *sb, const struct event_row *r)
{
	pmh_sb_add(sb, "\n    {\"cpu\": %u, \"table\": ", r->cpu);
	pmh_sb_json_str(sb, r->table);
	pmh_sb_add(sb, ", \"event\": ");
	pmh_sb_json_str(sb, r->name);
	pmh_sb_add(sb, ", \"encoding\": ");
	pmh_sb_json_str(sb, r->enc);
	pmh_sb_add(sb, ", \"counter\": ");
	pmh_sb_json_str(sb, r->ctr);
	pmh_sb_add(sb, ",\n     \"workload\": ");
	pmh_sb_json_str(sb, r->workload);
	pmh_sb_add(sb, ", \"footprint\": ");
	str_or_null(sb, r->footprint);
	pmh_sb_add(sb, ", \"iterations\": %llu, \"rule\": ", (unsigned long long)r->iterations);
	pmh_sb_json_str(sb, r->rule);
	pmh_sb_add(sb, ", \"expected\": {\"min\": ");
	bound(sb, r->expected_lo, EVENT_NO_MIN);
	pmh_sb_add(sb, ", \"max\": ");
	bound(sb, r->expected_hi, EVENT_NO_MAX);
	if (event_row_verdict(r) == V_SKIP)
		pmh_sb_add(sb, "},\n     \"measured\": null");
	else
		pmh_sb_add(sb, "},\n     \"measured\": %lld", (long long)r->measured);
	pmh_sb_add(sb, ", \"result\": \"%s\", \"note\": ", verdict_name(event_row_verdict(r)));
	str_or_null(sb, r->note);
	pmh_sb_add(sb, ", \"source\": ");
	str_or_null(sb, r->source);
	pmh_sb_add(sb, "}");
}

/* The rows, each catalogue's coverage per CPU, and the rows that did not
 * fit the table (said, never silent). */
static void events(struct pmh_sb *sb, const struct suite *s)
{
	pmh_sb_add(sb, ",\n  \"events\": [");
	for (unsigned i = 0; i < s->n_ev_rows && i < SUITE_MAX_EVENT_ROWS; i++) {
		pmh_sb_add(sb, "%s", i ? "," : "");
		event_obj(sb, &s->ev_rows[i]);
	}
	pmh_sb_add(sb, "\n  ],\n  \"events_coverage\": [");
	for (unsigned i = 0; i < s->n_ev_cov && i < SUITE_MAX_EVENT_COVERAGE; i++) {
		const struct event_coverage *c = &s->ev_cov[i];
		pmh_sb_add(sb, "%s\n    {\"cpu\": %u, \"table\": ", i ? "," : "", c->cpu);
		pmh_sb_json_str(sb, c->table);
		pmh_sb_add(sb,
			   ", \"events\": %u, \"validated\": %u, \"not_validatable\": %u, "
			   "\"passed\": %u, \"failed\": %u, \"skipped\": %u}",
			   c->events, c->validated, c->not_validatable, c->passed, c->failed,
			   c->skipped);
	}
	pmh_sb_add(sb, "\n  ],\n  \"events_dropped\": %u", s->ev_dropped);
}

/* The hypervisor's findings (tests/hv_policy.c): "restricted", what its
 * policy withheld, and "hypervisor_findings", its known bugs and what the
 * host took; "hypervisor_findings_lost" those that did not fit. */
static void hv_findings(struct pmh_sb *sb, const struct suite *s)
{
	static const char kind[][8] = {
	    [HV_POLICY] = "policy", [HV_BUG] = "bug", [HV_HOST] = "host"};
	static const char group[][12] = {[HVG_EVENT_ZERO] = "not_counted",
					 [HVG_EVENT_GP] = "gp",
					 [HVG_FIXED] = "fixed",
					 [HVG_OTHER] = "other"};
	for (unsigned pass = 0; pass < 2; pass++) {
		bool first = true;
		pmh_sb_add(sb, pass ? ",\n  \"hypervisor_findings\": [" : ",\n  \"restricted\": [");
		for (unsigned i = 0; i < s->n_hv && i < SUITE_MAX_HV; i++) {
			const struct hv_finding *h = &s->hv[i];
			if ((h->kind == HV_POLICY) == (pass == 1))
				continue;
			pmh_sb_add(sb,
				   "%s\n    {\"cpu\": %u, \"kind\": \"%s\", \"group\": \"%s\", "
				   "\"what\": ",
				   first ? "" : ",", h->cpu, kind[h->kind], group[h->group]);
			pmh_sb_json_str(sb, h->what);
			pmh_sb_add(sb, ", \"reason\": ");
			pmh_sb_json_str(sb, h->why);
			pmh_sb_add(sb, "}");
			first = false;
		}
		pmh_sb_add(sb, "%s]", first ? "" : "\n  ");
	}
	pmh_sb_add(sb, ",\n  \"hypervisor_findings_lost\": %u", s->hv_lost);
}

size_t report_json(const struct suite *s, char *buf, size_t cap)
{
	struct pmh_sb sb;
	char why[256];

	pmh_sb_init(&sb, buf, cap);
	head(&sb, s);
	system_id(&sb, s);
	options_obj(&sb, s->opt);
	pmh_sb_add(&sb, ",\n  \"cpus\": [");
	for (unsigned i = 0; i < s->n_cpus; i++) {
		pmh_sb_add(&sb, "%s", i ? "," : "");
		cpu_obj(&sb, &s->cpus[i]);
	}
	pmh_sb_add(&sb, "\n  ]");
	results(&sb, s);
	events(&sb, s);
	hv_findings(&sb, s);
	report_json_sampling(&sb, s);
	report_verdict_reason(s, why, sizeof(why));
	pmh_sb_add(&sb,
		   ",\n  \"summary\": {\"passed\": %u, \"failed\": %u, \"skipped\": %u, "
		   "\"dropped\": %u},\n  \"verdict\": \"%s\",\n  \"verdict_reason\": ",
		   s->passed, s->failed, s->skipped, s->dropped,
		   run_verdict_name(suite_verdict(s)));
	pmh_sb_json_str(&sb, why);
	crash(&sb, &s->crash);
	pmh_sb_add(&sb, "\n}\n");
	return sb.len;
}
