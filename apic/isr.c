/* The C side of interrupt entry: fault fixup for #GP/#UD raised by the
 * seam's accessors, handlers for the harness's vectors, and a report plus
 * recovery for anything unexpected (never a silent hang). */
#include "isr.h"
#include "../pmu/hw.h"
#include "../lib/fmt.h"
#include "../pmu/percpu.h"

/* Per CPU (pmu/percpu.h): an interrupt is dispatched on the CPU that took
 * it, to the handlers and the recovery that CPU set. */
struct isr_cpu {
	isr_handler_fn handlers[256];
	void (*fatal_report)(const char *line);
	struct pmh_jmpbuf *fatal_recover;
	uint64_t n_unexpected_nmi;
	uint64_t unexpected_nmi_rip; /* where the last one came */
	struct int_frame last_fatal;
	bool have_fatal;
	isr_handler_fn user_fault;
};
static struct isr_cpu isr_cpu PMH_PERCPU;

static struct isr_cpu *cpu(void)
{
	return &PCPU(isr_cpu);
}

void isr_set_handler(unsigned vector, isr_handler_fn fn)
{
	if (vector < 256)
		cpu()->handlers[vector] = fn;
}

void isr_set_fatal(void (*report)(const char *line), struct pmh_jmpbuf *recover)
{
	struct isr_cpu *s = cpu();

	s->fatal_report = report;
	s->fatal_recover = recover;
}

struct isr_fatal isr_fatal_now(void)
{
	const struct isr_cpu *s = cpu();
	struct isr_fatal f = {s->fatal_report, s->fatal_recover};

	return f;
}

void isr_set_user_fault(isr_handler_fn fn)
{
	cpu()->user_fault = fn;
}

uint64_t isr_unexpected_nmi_rip(void)
{
	return cpu()->unexpected_nmi_rip;
}

uint64_t isr_unexpected_nmis(void)
{
	return cpu()->n_unexpected_nmi;
}

const struct int_frame *isr_last_fatal(void)
{
	struct isr_cpu *s = cpu();

	return s->have_fatal ? &s->last_fatal : 0;
}

/* One line of a fatal report: six registers, named by fmt. */
static void report_regs(void (*report)(const char *line), const char *fmt, unsigned long long a,
			unsigned long long b, unsigned long long c, unsigned long long d,
			unsigned long long e, unsigned long long g)
{
	char line[160];

	pmh_fmt(line, sizeof(line), fmt, a, b, c, d, e, g);
	report(line);
}

#ifndef PMH_HOST
void isr_resume_longjmp(struct int_frame *f, struct pmh_jmpbuf *b)
{
	f->rdi = (uint64_t)(uintptr_t)b;
	f->rsi = 1;
	f->rip = (uint64_t)(uintptr_t)pmh_longjmp;
}
#endif

static void fatal(struct isr_cpu *s, struct int_frame *f)
{
	void (*fatal_report)(const char *line) = s->fatal_report;
	char line[160];

	s->last_fatal = *f; /* before the recovery below rewrites it */
	s->have_fatal = true;
	if (fatal_report) {
		/* An empty line first: the firmware's console mirror may have
		 * left escape codes without a line end on the serial port. */
		fatal_report("");
		pmh_fmt(line, sizeof(line),
			"fatal: unexpected exception vector %llu error 0x%llx at rip 0x%llx",
			(unsigned long long)f->vector, (unsigned long long)f->error,
			(unsigned long long)f->rip);
		fatal_report(line);
		report_regs(fatal_report,
			    "fatal: rax=%llx rbx=%llx rcx=%llx rdx=%llx rsi=%llx rdi=%llx", f->rax,
			    f->rbx, f->rcx, f->rdx, f->rsi, f->rdi);
		report_regs(fatal_report,
			    "fatal: rbp=%llx rsp=%llx r8=%llx r9=%llx rflags=%llx cs=%llx", f->rbp,
			    f->rsp, f->r8, f->r9, f->rflags, f->cs);
	}
#ifndef PMH_HOST
	if (s->fatal_recover) {
		struct pmh_jmpbuf *b = s->fatal_recover;
		s->fatal_recover = 0;
		isr_resume_longjmp(f, b);
		return;
	}

#endif
	/* nothing to return to (the simulator has no recovery point): this
	 * CPU stops for good */
	hw_halt();
}

void isr_dispatch(struct int_frame *f)
{
	struct isr_cpu *s = cpu(); /* the CPU that took it */
	unsigned v = (unsigned)f->vector;

	/* An exception at CPL 3 (the interrupted CS's RPL, SDM Vol. 3A
	 * 6.12.1) ends the ring-3 excursion with its vector: never a fixup
	 * (those are CPL-0 accessors) nor the fatal report. */
	if ((f->cs & 3) == 3 && v < 32 && v != VEC_NMI && s->user_fault) {
		s->user_fault(f);
		return;
	}
	if (v == VEC_GP || v == VEC_UD) {
		uint64_t fix = isr_fixup_for(f->rip);
		if (fix) {
			f->rax = v; /* the accessor returns the vector */
			f->rip = fix;
			return;
		}
	}
	if (v < 256 && s->handlers[v]) {
		s->handlers[v](f);
		return;
	}
	if (v == VEC_NMI) {
		/* An NMI nobody asked for (PMI service not armed for NMI
		 * delivery: a watchdog, the BMC, a button): counted and
		 * carried on from, the interrupted code is intact. Nothing is
		 * printed here: it may have interrupted the output's own
		 * writer (the log buffer mid-flush); the suite says it after
		 * the check (isr_unexpected_nmis). */
		s->n_unexpected_nmi++;
		s->unexpected_nmi_rip = f->rip;
		return;
	}
	fatal(s, f);
}
