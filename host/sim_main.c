/* pmuharness-sim: runs the harness's identification and suite against a
 * simulated CPU and prints the same lines as the target. Host program. */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "sim/sim.h"
#include "../pmu/percpu.h"
#include "../tests/harness.h"
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

/* The simulator's exit status (docs/user-guide.md "Exit codes"): the verdict's values
 * where they mean the same, its own for what only the simulator has. */
enum sim_exit {
	SIM_EXIT_OK = PMH_EXIT_PASS,	 /* no check failed (PASS, NO PMU, NO VERDICT) */
	SIM_EXIT_FAIL = PMH_EXIT_FAIL,	 /* a check failed */
	SIM_EXIT_ERROR = PMH_EXIT_ERROR, /* it could not run (the command line) */
	SIM_EXIT_NA = 3,		 /* the fault does not apply to the model */
	SIM_EXIT_REFUSED = 4,		 /* the --event SPEC was refused (the run went on) */
};

static void print_line(void *ctx, const char *s)
{
	(void)ctx;
	puts(s);
}

static void opt_error(void *ctx, const char *msg)
{
	(void)ctx;
	printf("error: %s\n", msg);
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: pmuharness-sim --cpu MODEL [--fault NAME] [--realism LIST|all|none] "
	    "[--skid N]\n"
	    "                      [--realism-scale K] [--seed N] [--seeds COUNT]\n"
	    "                      [--describe] [--json FILE] [key=value ...]\n"
	    "       pmuharness-sim --list-models | --list-faults | --list-realism\n"
	    "       pmuharness-sim --cpu MODEL --list-events [--json] | --event SPEC\n"
	    "       pmuharness-sim --cpuid-dump FILE [--dump-cpu N]\n"
	    "Runs the harness's suite against a simulated CPU and prints the same lines\n"
	    "as the target. key=value options are those of pmuharness.cfg (docs/user-guide.md).\n"
	    "--realism picks the effects of real silicon (default all; see\n"
	    "--list-realism); --realism-scale K (1 to 16, default 1) multiplies every\n"
	    "effect's size and rate by K (skid, overhead, inexact counts, timer and SMI\n"
	    "rate and length, turbo's excess over the TSC rate, prefetch share), each\n"
	    "capped where a real core would not go (the skid at the family's branch\n"
	    "bound); K=1 is the models' own numbers. --skid N makes every PMI come\n"
	    "exactly N instructions after its overflow; --seed N (default 1) draws them\n"
	    "reproducibly; --seeds COUNT runs seeds N..N+COUNT-1 in turn, each from its\n"
	    "sim.realism: line.\n"
	    "--cpuid-dump prints the identification of a real processor from its CPUID\n"
	    "dump (lines \"CPUID 00000001: EAX-EBX-ECX-EDX [SL nn]\", logical CPU N, what\n"
	    "it leaves out taken from CPU 0), every MSR absent.\n"
	    "--list-models prints name, driver, document, CPUs and the unit test that\n"
	    "pins the model's whole run (\"-\": the fault matrix's), tab-separated.\n"
	    "--json FILE writes the results JSON (schema pmuharness-results/2) of the\n"
	    "last run to FILE.\n"
	    "Exit status: 0 no check failed, 1 a check failed, 2 the harness could not run,\n"
	    "3 the fault does not apply to the model, "
	    "4 the --event SPEC was refused.\n");
}

static void print_realism(uint32_t realism, uint64_t seed)
{
	printf("sim.realism:");
	if (!realism)
		printf(" none");
	for (unsigned e = 0; e < SE_COUNT; e++)
		if (realism & (1u << e))
			printf(" %s", sim_effect_name((enum sim_effect)e));
	printf("\nsim.realism-scale: %u\n", sim_realism_scale());
	printf("sim.seed: %llu\n", (unsigned long long)seed);
}

static void describe(const struct sim_model *m, const struct cpu_info *ci, const struct pmu *p)
{
	printf("model: %s\n", m->name);
	printf("document: %s\n", m->doc);
	printf("driver: %s\n", pmu_driver_name(ci->driver));
	printf("status: %s\n", pmu_status_name(p->status));
	printf("version: %u\n", p->version);
	printf("counters.gp: %u\n", p->n_gp);
	printf("counters.gp_width: %u\n", p->n_gp ? (unsigned)p->ctr[0].width : 0u);
	printf("counters.fixed: %u\n", p->n_fixed);
	printf("counters.fixed_width: %u\n", p->n_fixed ? (unsigned)p->ctr[p->n_gp].width : 0u);
	for (unsigned i = 0; i < p->n; i++) {
		const struct pmu_counter *c = &p->ctr[i];
		printf("counter.%s: ctl=0x%x ctr=0x%x", c->name, c->ctl_msr, c->ctr_msr);
		if (c->full_msr)
			printf(" full=0x%x", c->full_msr);
		if (c->aux_msr)
			printf(" escr=0x%x", c->aux_msr);
		printf(" rdpmc=0x%x width=%u write=%s\n", c->rdpmc, c->width,
		       c->sign_extends ? "sign-extend-32" : "full");
	}
	if (p->global_ctrl_msr)
		printf("global.ctrl: 0x%x\n", p->global_ctrl_msr);
	if (p->global_status_msr)
		printf("global.status: 0x%x\n", p->global_status_msr);
	if (p->global_ovf_msr)
		printf("global.ovf_ctrl: 0x%x\n", p->global_ovf_msr);
	if (p->global_status_set_msr)
		printf("global.status_set: 0x%x\n", p->global_status_set_msr);
	printf("pmi.automask: %s\n", (p->pmi_flags & PMU_PMI_AUTOMASK) ? "yes" : "no");
}

/* One power-on: what it simulates, and the platform's ctx for its run. */
struct sim_run {
	const char *model, *fault;
	const struct sim_model *m;
	enum sim_fault f;
	uint32_t realism;
	uint64_t seed;
	int describe;
	bool dump;	  /* --cpuid-dump: the identification lines only */
	const char *json; /* --json FILE, or NULL */
};

/* The run's results JSON into r->json; false after printing why not. */
static bool write_json(const struct sim_run *r, const struct suite *s)
{
	char probe[1];
	/* measured first, as tests/harness.c does: every result of every CPU;
	 * room for a longer elapsed_us in the second pass */
	size_t cap = report_json(s, probe, sizeof(probe)) + 64, n;
	char *buf = malloc(cap);
	FILE *f = buf ? fopen(r->json, "w") : NULL;
	bool ok = f && (n = report_json(s, buf, cap)) < cap && fwrite(buf, 1, n, f) == n;

	if (f && fclose(f))
		ok = false;
	if (!ok)
		fprintf(stderr, "error: --json %s: could not write the results\n", r->json);
	free(buf);
	return ok;
}

/* The simulator's own lines after identification; --describe stops there. */
static bool sim_header(void *ctx, struct harness *h)
{
	const struct sim_run *r = ctx;

	if (r->dump) {
		report_identity(h->suite);
		return false;
	}
	if (r->describe) {
		describe(r->m, &h->cpu, &h->pmu);
		return false;
	}
	printf("sim.model: %s\nsim.fault: %s\n", r->model, r->fault);
	print_realism(r->realism, r->seed);
	return true;
}

/* One power-on and one run of the suite; returns the exit status. */

/* Zeroed memory for the harness (event.semantics' walks), as a platform's
 * allocator gives it. */
static void *sim_alloc(void *ctx, size_t n)
{
	(void)ctx;
	return calloc(1, n);
}

static void sim_free(void *ctx, void *ptr)
{
	(void)ctx;
	free(ptr);
}

static enum sim_exit run_one(struct sim_run *r, struct harness *h)
{
	/* The simulator's platform: standard output, the boot CPU only
	 * unless the model has several, no results files, keyboard, wall
	 * clock or exception path. */
	struct platform p = {.ctx = r,
			     .line = print_line,
			     .header = sim_header,
			     .alloc = sim_alloc,
			     .free = sim_free};

	if (r->m->cpus > 1) /* a machine of several CPUs: the cpus option */
		p.run_cpus = sim_run_cpus;

	sim_start_real(r->model, r->f, r->realism, r->seed);
	enum pmh_exit code = harness_run(&p, h);
	if (h->stop != HSTOP_NONE) /* a listing or --describe */
		return SIM_EXIT_OK;
	if (r->json && !write_json(r, h->suite))
		return SIM_EXIT_ERROR;
	printf("sim.stats: overhead %llu instructions, skid %llu, inexact %llu events, "
	       "late-ack %llu PMIs, %llu timer interrupts, %llu SMIs\n",
	       (unsigned long long)sim.st.overhead_insn, (unsigned long long)sim.st.skid_total,
	       (unsigned long long)sim.st.inexact_events, (unsigned long long)sim.st.late_ack_pmis,
	       (unsigned long long)sim.st.timer_irqs, (unsigned long long)sim.st.smis);
	if (code == PMH_EXIT_ERROR)
		return SIM_EXIT_ERROR;
	if (code == PMH_EXIT_FAIL)
		return SIM_EXIT_FAIL;
	/* the run went on without the event, but a script asked for it */
	return h->event_refused ? SIM_EXIT_REFUSED : SIM_EXIT_OK;
}

/* The command line: what the run is, and the key=value words for options. */
struct cmdline {
	const char *model, *fault, *realism, *json, *dump;
	int describe, nargs, dump_cpu;
	char *args[64];
	uint64_t seed, seeds;
};

/* --seed N or --seeds COUNT (1 to 100000) into *out; -1 with the error
 * printed. */
static int parse_seed(const char *flag, const char *val, uint64_t *out)
{
	bool count = flag[6] == 's';
	char *end;
	unsigned long long v = strtoull(val, &end, 0);

	if (*end || !*val || (count && (v < 1 || v > 100000))) {
		fprintf(stderr, "error: %s needs a number%s, got \"%s\"\n", flag,
			count ? " from 1 to 100000" : "", val);
		return -1;
	}
	*out = v;
	return 0;
}

/* --realism-scale K into the simulator; -1 with the error printed. */
static int parse_scale(const char *val)
{
	char err[96];
	unsigned k;

	if (sim_realism_scale_parse(val, &k, err, sizeof(err))) {
		fprintf(stderr, "error: %s\n", err);
		return -1;
	}
	sim_set_realism_scale(k);
	return 0;
}

/* The words that print and exit: --list-realism, --help, --list-models,
 * --list-faults. Returns 1 when a was one of them. */
static int list_command(const char *a)
{
	if (!strcmp(a, "--list-realism")) {
		for (unsigned e = 0; e < SE_COUNT; e++)
			printf("%s\n", sim_effect_name((enum sim_effect)e));
	} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
		usage(stdout);
	} else if (!strcmp(a, "--list-models")) {
		unsigned n;
		const struct sim_model *const *m = sim_models(&n);
		for (unsigned k = 0; k < n; k++)
			printf("%s\t%s\t%s\t%u\t%s\n", m[k]->name, pmu_driver_name(m[k]->driver),
			       m[k]->doc, m[k]->cpus ? m[k]->cpus : 1u,
			       m[k]->pinned_by ? m[k]->pinned_by : "-");
	} else if (!strcmp(a, "--list-faults")) {
		for (unsigned f = 1; f < SF_COUNT; f++)
			printf("%s\n", sim_fault_name((enum sim_fault)f));
	} else {
		return 0;
	}
	return 1;
}

/* One "CPUID LLLLLLLL: EAX-EBX-ECX-EDX [SL nn]" line of a dump into *e;
 * a line without [SL nn] answers every subleaf. */
static bool dump_line(const char *l, struct sim_cpuid *e)
{
	unsigned sl;
	const char *t;

	if (sscanf(l, "CPUID %x: %x-%x-%x-%x", &e->leaf, &e->r.eax, &e->r.ebx, &e->r.ecx,
		   &e->r.edx) != 5)
		return false;
	t = strstr(l, "[SL ");
	e->subleaf = t && sscanf(t, "[SL %x]", &sl) == 1 ? sl : 0xffffffffu;
	return true;
}

/* The CPUID lines of logical CPU cpu ("Logical CPU #n" sections; lines
 * before the first section are CPU 0's) over those of CPU 0, which a dump
 * lists in full, into the cpuid-dump model. Exit status or -1 to go on. */
static int load_dump(const char *path, int cpu)
{
	static struct sim_cpuid t[2][SIM_MAX_CPUID];
	unsigned n[2] = {0, 0};
	char l[512];
	int cur = 0, k;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "error: --cpuid-dump %s: cannot open\n", path);
		return SIM_EXIT_ERROR;
	}
	while (fgets(l, sizeof(l), f)) {
		const char *sec = strstr(l, "Logical CPU #");
		if (sec)
			cur = atoi(sec + 13);
		k = cur == 0 ? 0 : cur == cpu ? 1 : -1;
		if (k >= 0 && n[k] < SIM_MAX_CPUID && dump_line(l, &t[k][n[k]]))
			n[k]++;
	}
	fclose(f);
	if (!n[0] || (cpu && !n[1])) {
		fprintf(stderr, "error: --cpuid-dump %s: no CPUID lines for CPU %d\n", path, cpu);
		return SIM_EXIT_ERROR;
	}
	for (unsigned i = 0; i < n[1] && n[0] < SIM_MAX_CPUID; i++)
		t[0][n[0]++] = t[1][i]; /* later entries replace CPU 0's (sim_set_cpuid) */
	sim_dump_load(t[0], n[0]);
	return -1;
}

/* The model, fault and effects the command line names, into *r; -1 to go
 * on, or the exit status with the error printed. */
static int sim_setup(const struct cmdline *cl, struct sim_run *r)
{
	char bad[32];

	if (!cl->model) {
		usage(stderr);
		return SIM_EXIT_ERROR;
	}
	*r = (struct sim_run){.model = cl->model,
			      .fault = cl->fault,
			      .describe = cl->describe,
			      .dump = cl->dump != NULL,
			      .json = cl->json};
	r->f = sim_fault_from_name(cl->fault);
	r->m = sim_model_find(cl->model);
	if (!r->m) {
		fprintf(stderr, "error: unknown model \"%s\" (see --list-models)\n", cl->model);
		return SIM_EXIT_ERROR;
	}
	if (r->f == SF_COUNT) {
		fprintf(stderr, "error: unknown fault \"%s\" (see --list-faults)\n", cl->fault);
		return SIM_EXIT_ERROR;
	}
	if (sim_realism_parse(cl->realism, &r->realism, bad, sizeof(bad))) {
		fprintf(stderr, "error: --realism: unknown effect \"%s\" (see --list-realism)\n",
			bad);
		return SIM_EXIT_ERROR;
	}
	if (sim_start(cl->model, r->f)) {
		const char *why = r->m->fault_na[r->f];
		printf("n/a: fault %s does not apply to %s: %s\n", cl->fault, cl->model,
		       why ? why : "the model does not implement it");
		return SIM_EXIT_NA;
	}
	return -1;
}

/* Reads argv into *cl, word by word; returns -1 to go on, or the exit
 * status (a list printed: 0; a bad number: 2). */
static int parse_cmdline(int argc, char **argv, struct cmdline *cl)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--cpu") && i + 1 < argc)
			cl->model = argv[++i];
		else if (!strcmp(a, "--fault") && i + 1 < argc)
			cl->fault = argv[++i];
		else if (!strcmp(a, "--realism") && i + 1 < argc)
			cl->realism = argv[++i];
		else if (!strcmp(a, "--skid") && i + 1 < argc)
			sim_set_skid(strtoull(argv[++i], 0, 10));
		else if (!strcmp(a, "--realism-scale") && i + 1 < argc) {
			if (parse_scale(argv[++i]))
				return SIM_EXIT_ERROR;
		} else if (!strcmp(a, "--json") && i + 1 < argc)
			cl->json = argv[++i];
		else if (!strcmp(a, "--cpuid-dump") && i + 1 < argc)
			cl->dump = argv[++i];
		else if (!strcmp(a, "--dump-cpu") && i + 1 < argc)
			cl->dump_cpu = atoi(argv[++i]);
		else if ((!strcmp(a, "--seed") || !strcmp(a, "--seeds")) && i + 1 < argc) {
			if (parse_seed(a, argv[i + 1], a[6] == 's' ? &cl->seeds : &cl->seed))
				return SIM_EXIT_ERROR;
			i++;
		} else if (!strcmp(a, "--describe"))
			cl->describe = 1;
		else if (list_command(a))
			return SIM_EXIT_OK;
		else if (cl->nargs < 64)
			cl->args[cl->nargs++] = argv[i];
	}
	return -1;
}

/* The boot CPU's per-CPU state in a block of its own, as the EFI image
 * has it (pmu/percpu.h); under ASan the section itself is poisoned, so a
 * per-CPU variable reached without PCPU is a report, not a shared state. */
static void boot_block(void)
{
	extern char __start_pmh_percpu[], __stop_pmh_percpu[];
	size_t n = (pcpu_size() + PCPU_ALIGN - 1) & ~(size_t)(PCPU_ALIGN - 1);
	void *b = aligned_alloc(PCPU_ALIGN, n);

	if (!b) {
		fprintf(stderr, "pmuharness-sim: out of memory\n");
		exit(SIM_EXIT_ERROR);
	}
	memset(b, 0, n);
	pcpu_set_boot_block(b);
#ifdef __SANITIZE_ADDRESS__
	ASAN_POISON_MEMORY_REGION(__start_pmh_percpu, __stop_pmh_percpu - __start_pmh_percpu);
#else
	(void)__start_pmh_percpu;
	(void)__stop_pmh_percpu;
#endif
}

int main(int argc, char **argv)
{
	static struct harness h;
	static struct suite suite;
	static struct cmdline cl = {.fault = "none", .realism = "all", .seed = 1, .seeds = 1};
	struct sim_run r;

	boot_block();
	h.suite = &suite;
	options_default(&h.opt);
	h.opt.on_finish = FINISH_RETURN;
	int rc = parse_cmdline(argc, argv, &cl);
	if (rc >= 0)
		return rc;
	if (cl.dump) { /* a real part as it is: no realism, no fault */
		cl.model = sim_model_dump.name;
		cl.realism = "none";
		if ((rc = load_dump(cl.dump, cl.dump_cpu)) >= 0)
			return rc;
	}
	rc = sim_setup(&cl, &r);
	if (rc >= 0)
		return rc;
	if (options_parse_args(&h.opt, cl.nargs, cl.args, opt_error, 0))
		return SIM_EXIT_ERROR;

	enum sim_exit worst = SIM_EXIT_OK;
	for (uint64_t k = 0; k < cl.seeds; k++) {
		r.seed = cl.seed + k;
		enum sim_exit e = run_one(&r, &h);
		if (e > worst)
			worst = e;
		if (cl.describe || h.opt.list_events)
			break;
	}
	return worst;
}
