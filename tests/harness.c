/* The harness's run and session on any platform (tests/platform.h): one
 * sequence for the UEFI image and the simulator, so that what a run prints
 * and in which order is decided here once; and the per-CPU run's
 * selection and loop every platform's run_cpus goes through (suite.h). */
#include "harness.h"
#include "cpu_select.h"
#include "report_lava.h"
#include "screen.h"
#include "../lib/fmt.h"

/* The JSON document is measured first (report_json returns the length it
 * needs), so that its buffer holds every result of every CPU however many
 * ran; the second pass may say a longer elapsed_us: room for that. */
#define JSON_SLACK 64
/* The countdown shows the seconds left, one key wait a second. */
#define COUNTDOWN_STEP_US 1000000u

static void sink_line(void *ctx, const char *s)
{
	const struct harness *h = ctx;
	h->platform->line(h->platform->ctx, s);
}

/* An event for the machine's screen, with the run's elapsed time. */
static void status(const struct harness *h, struct screen_event ev)
{
	const struct platform *p = h->platform;

	if (!p->status)
		return;
	ev.elapsed_us = p->now_us ? p->now_us(p->ctx) - h->t0 : 0;
	p->status(p->ctx, &ev);
}

static void sink_progress(void *ctx, const char *id, unsigned i, unsigned n, unsigned cpu)
{
	status(ctx,
	       (struct screen_event){.kind = SEV_PROGRESS, .id = id, .i = i, .n = n, .cpu = cpu});
}

static void status_ident(const struct harness *h)
{
	const struct cpu_info *c = &h->cpu;
	const struct pmu *p = &h->pmu;
	const struct platform *pl = h->platform;
	const struct suite *s = h->suite;
	bool fx = p->ops && p->n_fixed;
	char board[2 * SMBIOS_STR + 2], fw[64];
	const struct smbios_id *b = s->sys.board.found ? &s->sys.board : &s->sys.system;
	struct screen_ident d = {
	    .brand = c->brand,
	    .driver = pmu_driver_name(c->driver),
	    .apic_mode = apic_mode_name(h->apic.mode),
	    .family = c->family,
	    .model = c->model,
	    .stepping = c->stepping,
	    .microcode = c->microcode,
	    .microcode_valid = c->microcode_valid,
	    .pmu_version = p->version,
	    .n_gp = p->ops ? p->n_gp : 0,
	    .gp_width = p->ops && p->n_gp ? p->ctr[0].width : 0,
	    .n_fixed = fx ? p->n_fixed : 0,
	    .fixed_width = fx ? p->ctr[p->n_gp].width : 0,
	};

	/* the board as SMBIOS names it (the system's when there is no board
	 * structure, as on QEMU's q35), the firmware as its system table does */
	if (s->have_sys && b->found) {
		pmh_fmt(board, sizeof(board), "%s %s", b->manufacturer, b->product);
		d.board = board;
	}
	if (pl->fw_vendor) {
		pmh_fmt(fw, sizeof(fw), "%s %s", pl->fw_vendor,
			pl->fw_revision ? pl->fw_revision : "");
		d.firmware = fw;
	} else if (s->have_sys && s->sys.firmware.found) { /* a BIOS names itself there */
		pmh_fmt(fw, sizeof(fw), "%s %s", s->sys.firmware.manufacturer,
			s->sys.firmware.product);
		d.firmware = fw;
	}
	status(h, (struct screen_event){.kind = SEV_IDENT, .ident = &d});
}

/* The event option's counter=N against the counters the PMU has: where the
 * count comes from CPUID (arch perfmon, AMD core) only the attached PMU
 * knows it. A counter that is not there is the user's mistake, said here
 * with where it was set and skipped by event.raw, never measured as a PMU
 * failure; the run goes on, as after any bad value (docs/user-guide.md "Options"). */
static bool counter_exists(struct harness *h)
{
	const struct pmu *p = &h->pmu;
	char m[EVENTS_MSG_MAX];

	if (h->evr.counter < 0 || p->status != PMU_FUNCTIONAL || (unsigned)h->evr.counter < p->n)
		return true;
	pmh_fmt(m, sizeof(m),
		"error: event (%s): counter %d does not exist: %s has %u counters; the run goes "
		"on without it",
		h->opt.event_at, h->evr.counter, p->name, p->n);
	sink_line(h, m);
	return false;
}

/* Identification and the event options; false when the run stops there
 * (h->stop says why). */
static bool identify(const struct platform *p, struct harness *h)
{
	enum events_opt eo;

	cpu_identify(&h->cpu);
	eo = events_handle_options(h->cpu.driver, h->cpu.family, h->cpu.model, h->opt.list_events,
				   h->opt.json_events, h->opt.event, h->opt.event_at,
				   &(struct events_sink){sink_line, h}, &h->evr);
	if (eo == EVOPT_LISTED) {
		h->stop = HSTOP_LISTED;
		return false;
	}
	apic_detect(&h->apic);
	pmu_attach(&h->pmu, &h->cpu);
	h->event_refused = eo == EVOPT_REFUSED || (eo == EVOPT_RESOLVED && !counter_exists(h));
	if (p->header && !p->header(p->ctx, h)) {
		h->stop = HSTOP_PLATFORM;
		return false;
	}
	return true;
}

/* The part of a run an unexpected exception may abandon. */
static void run_guarded(void *arg)
{
	struct harness *h = arg;
	const struct platform *p = h->platform;
	struct suite *s = h->suite;

	if (p->results_open && !p->results_open(p->ctx, h->results, sizeof(h->results)))
		h->results[0] = 0;
	if (!identify(p, h))
		return;
	status_ident(h);
	report_identity(s);
	if (h->results[0])
		suite_emit(s, "results.files: %s", h->results);
	if (h->session)
		suite_emit(s, "options.on_finish: %s", options_finish_name(h->opt.on_finish));
	if (p->results_flush)
		p->results_flush(p->ctx);
	/* Nothing to run is said, not run silently: the verdict stays NO
	 * VERDICT (docs/user-guide.md "Exit codes"), never PASS. */
	if (!suite_selected(&h->opt)) {
		suite_emit(s, "error: checks = %s: matches no check", h->opt.checks);
		return;
	}
	lava_set(s, true);
	if (p->run_cpus)
		p->run_cpus(p->ctx, h);
	else
		suite_run(s, 0);
}

/* The JSON document into the results file, and both files closed (also
 * what an exception left open before the files had a name). */
static void close_results(const struct platform *p, struct harness *h)
{
	struct suite *s = h->suite;
	char probe[1];
	size_t cap = h->results[0] ? report_json(s, probe, sizeof(probe)) + JSON_SLACK : 0;
	char *buf = cap ? p->alloc(p->ctx, cap) : 0;
	size_t n = buf ? report_json(s, buf, cap) : 0;

	if (cap && !buf)
		suite_emit(s, "error: out of memory for the results JSON (%zu bytes); not written",
			   cap);
	if (buf && n >= cap) { /* a cut document is not JSON: none is better */
		suite_emit(s, "error: results JSON larger than its buffer; not written");
		p->free(p->ctx, buf);
		buf = 0;
	}
	h->saved = p->results_close(p->ctx, buf, n);
	if (buf)
		p->free(p->ctx, buf);
}

/* The summary, the verdict, the elapsed time, the results files, then
 * LAVA's end of the sets (a lab may power off at its last STOP). */
static void report(const struct platform *p, struct harness *h, uint64_t t0)
{
	struct suite *s = h->suite;

	report_summary(s);
	if (p->now_us)
		suite_emit(s, "harness.elapsed_us: %llu",
			   (unsigned long long)(p->now_us(p->ctx) - t0));
	if (p->results_close)
		close_results(p, h);
	lava_end(s);
	report_kut_summary(s);
}

enum pmh_exit harness_run(const struct platform *p, struct harness *h)
{
	uint64_t t0 = p->now_us ? p->now_us(p->ctx) : 0;

	h->platform = p;
	h->t0 = t0;
	if (h->opt.help) { /* the options, and nothing run or written */
		options_help(p->line, p->ctx);
		h->stop = HSTOP_HELP;
		return PMH_EXIT_NO_VERDICT;
	}
	h->stop = HSTOP_NONE;
	h->error = false;
	h->event_refused = false;
	h->results[0] = 0;
	h->saved = false;
	/* Pointers only: every exit below may report from it, even one taken
	 * before the CPU was identified. */
	suite_init(h->suite, &h->opt, &h->cpu, &h->pmu, &h->apic,
		   (struct sink){sink_line, h, sink_progress});
	status(h, (struct screen_event){.kind = SEV_START});
	report_start(h->suite, p, t0);
	if (!p->guard) {
		run_guarded(h);
	} else if (p->guard(p->ctx, run_guarded, h)) {
		report_crash(h->suite, isr_last_fatal());
		suite_emit(h->suite,
			   "error: the harness stopped after an unexpected exception (see above)");
		h->error = true;
	}
	/* what the driver and identification changed goes back (TSX
	 * force-abort, LIMIT_CPUID) before the firmware gets the CPU */
	pmu_release(&h->pmu);
	cpu_restore(&h->cpu);
	h->suite->harness_error = h->error;
	if (h->session || h->stop == HSTOP_NONE)
		report(p, h, t0);
	status(h, (struct screen_event){
		      .kind = SEV_END, .verdict = suite_verdict(h->suite), .saved = h->saved});
	if (p->unguard)
		p->unguard(p->ctx);
	return run_verdict_exit(suite_verdict(h->suite));
}

/* The countdown before a run on real hardware (on_finish = wait): false
 * when Esc skips the run; time up or any other key starts it. */
static bool countdown(const struct platform *p, const struct options *o)
{
	char line[96];

	if (o->on_finish != FINISH_WAIT || !o->countdown || !p->key_wait)
		return true;
	p->key_flush(p->ctx);
	for (unsigned left = o->countdown; left; left--) {
		pmh_fmt(line, sizeof(line),
			"Starting in %u s. Esc: skip the run; any other key: start now.", left);
		p->screen(p->ctx, line);
		enum platform_key k = p->key_wait(p->ctx, COUNTDOWN_STEP_US);
		if (k != PKEY_NONE)
			return k != PKEY_ESC;
	}
	return true;
}

/* The end prompt of on_finish = wait: true when R asks for another run.
 * "saved" only when the platform verified every results file. */
static bool prompt_again(const struct platform *p, bool saved)
{
	if (!p->key_wait)
		return false;
	/* Drop keys typed during the run; those after the prompt count. */
	p->key_flush(p->ctx);
	/* Everything is written and closed by now: the stick can be pulled. */
	p->screen(p->ctx, saved
			      ? "Results saved. R: run again; Esc: return to the firmware."
			      : "Results NOT saved to files (see above): they are on the screen "
				"and serial port only. R: run again; Esc: return to the firmware.");
	for (;;) {
		enum platform_key k = p->key_wait(p->ctx, 0);
		if (k == PKEY_ESC || k == PKEY_AGAIN)
			return k == PKEY_AGAIN;
	}
}

/* Leaves as on_finish says; true when the person asked for another run. */
static bool leave(const struct platform *p, const struct options *o, enum pmh_exit code, bool saved)
{
	switch (o->on_finish) {
	case FINISH_QEMU_EXIT:
		p->qemu_exit(p->ctx, o->output == OUTPUT_KUT ? run_exit_kut(code) : code);
		/* not under QEMU: fall through to a power-off */
		/* fallthrough */
	case FINISH_POWEROFF:
		p->power_off(p->ctx);
		break;
	case FINISH_WAIT:
		return prompt_again(p, saved);
	case FINISH_RETURN:
		break;
	}
	return false;
}

enum harness_end harness_main(const struct platform *p)
{
	struct harness *h = p->alloc(p->ctx, sizeof(*h));
	struct suite *s = h ? p->alloc(p->ctx, sizeof(*s)) : 0;
	enum pmh_exit code;

	if (!s) {
		struct options defaults;
		if (h)
			p->free(p->ctx, h);
		options_default(&defaults);
		p->line(p->ctx, "error: out of memory for the results table");
		leave(p, &defaults, PMH_EXIT_ERROR, false);
		return HARNESS_NO_MEMORY;
	}
	h->suite = s;
	h->session = true;
	options_default(&h->opt);
	p->options(p->ctx, &h->opt);
	if (h->opt.help) { /* back to the shell that asked, whatever on_finish says */
		harness_run(p, h);
		p->free(p->ctx, s);
		p->free(p->ctx, h);
		return HARNESS_DONE;
	}
	/* Only an interactive finish counts down: the other modes (QEMU tests
	 * among them) start at once. */
	if (!countdown(p, &h->opt)) {
		p->screen(p->ctx, "Run skipped (Esc): returning to the firmware.");
		return HARNESS_SKIPPED;
	}
	do
		code = harness_run(p, h);
	while (leave(p, &h->opt, code, h->saved));
	/* the last run's results tables back to the platform (kept where an AP
	 * may still write them: suite_keep_tables) */
	suite_release(s);
	if (h->opt.on_finish == FINISH_WAIT)
		p->screen(p->ctx, "Returning to the firmware.");
	return code == PMH_EXIT_ERROR ? HARNESS_ERROR : HARNESS_DONE;
}

/* The suite on the selected CPUs (suite.h): the CPU's identity and run,
 * the selection with room for its results, and the loop. */
void suite_cpu_identity(struct suite *s, unsigned cpu)
{
	const struct suite_cpu b = suite_bound(s);
	const struct cpu_info *ci = b.cpu;
	const struct pmu *p = b.pmu;
	char hybrid[64] = "";

	/* a hybrid part's CPUs differ: the core type and its own counters */
	if (ci->ids.core_type)
		pmh_fmt(hybrid, sizeof(hybrid), ", core_type 0x%x %s, counters %u gp + %u fixed",
			ci->ids.core_type, cpu_core_type_name(ci->ids.core_type), p->n_gp,
			p->n_fixed);
	suite_emit(s, "cpu.%u.identity: apic.id 0x%x (%s), pmu.driver %s, pmu.status %s%s", cpu,
		   b.apic->id, apic_mode_name(b.apic->mode), pmu_driver_name(ci->driver),
		   pmu_status_name(p->status), hybrid);
}

void suite_run_other(struct suite *s, unsigned cpu, struct cpu_info *ci, struct pmu *p,
		     struct apic_info *ai, struct sink out)
{
	cpu_identify(ci);
	apic_detect(ai);
	pmu_attach(p, ci);
	suite_bind_cpu(s, &(struct suite_cpu){ci, p, ai, out});
	suite_cpu_identity(s, cpu);
	suite_run(s, cpu);
}

static void warn_line(void *ctx, const char *msg)
{
	suite_emit(ctx, "warning: %s", msg);
}

/* sel[fit..k) not run for want of memory for their results: said before
 * any CPU runs, the results they would have given counted as missing (the
 * verdict is ERROR, never a PASS over them). */
static void not_run(struct suite *s, const uint16_t *sel, unsigned k, unsigned fit)
{
	unsigned per = suite_selected(s->opt);

	s->cpus_not_run += k - fit;
	s->dropped += (k - fit) * per;
	suite_emit(s,
		   "error: cpus: out of memory for the results of %u CPUs (%u checks each): room "
		   "for %u; CPU %u and the %u selected after it are not run",
		   k, per, fit, sel[fit], k - fit - 1);
}

unsigned suite_cpus_select(struct suite *s, const uint32_t *flags, unsigned n, uint16_t *sel,
			   unsigned max)
{
	unsigned k = cpu_select(s->opt, flags, n, sel, max, warn_line, s), fit;
	char line[160];

	if (!k) {
		cpu_select_none(s->opt, line, sizeof(line));
		suite_emit(s, "error: %s", line);
		return 0;
	}
	fit = suite_reserve(s, k);
	if (fit < k)
		not_run(s, sel, k, fit);
	return fit;
}

void suite_cpus_end(struct suite *s, uint64_t t0, const struct cpu_run *runs, unsigned k,
		    const char *how)
{
	uint64_t per_us = hw_tsc_per_us();
	char line[160];

	if (per_us && k)
		suite_emit(s, "cpus.elapsed_us: %llu (%u CPU%s %s)",
			   (unsigned long long)((hw_rdtsc() - t0) / per_us), k, k == 1 ? "" : "s",
			   how);
	for (unsigned i = 0; i < k; i++) {
		cpu_verdict_line(&runs[i], line, sizeof(line));
		suite_emit(s, "%s", line);
	}
}

void suite_cpus_loop(struct suite *s, const uint32_t *flags, const uint16_t *sel, unsigned k,
		     struct cpu_run *runs, suite_one_cpu one, void (*after)(void *ctx), void *ctx)
{
	uint64_t t0 = hw_rdtsc();

	for (unsigned i = 0; i < k; i++) {
		struct run_counts before = suite_counts(s);
		const struct pmu *own = one(ctx, sel[i], flags[sel[i]] & CPUSEL_BSP);
		runs[i].cpu = sel[i];
		runs[i].n = suite_share(s, &before);
		runs[i].n.pmu_usable = own->status == PMU_FUNCTIONAL;
	}
	if (after)
		after(ctx);
	suite_cpus_end(s, t0, runs, k, "one after another");
}

void suite_run_cpus(struct suite *s, const uint32_t *flags, unsigned n, struct suite_cpus *w,
		    suite_one_cpu one, void *ctx)
{
	unsigned k = suite_cpus_select(s, flags, n, w->sel, w->max);
	suite_cpus_loop(s, flags, w->sel, k, w->runs, one, w->after, ctx);
}
