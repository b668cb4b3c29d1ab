/* Which logical CPUs a run covers: the cpus option resolved against the
 * processors the firmware reports (MP Services numbering), and the per-CPU
 * verdict line. Pure C so the host tests drive it. */
#ifndef PMH_TESTS_CPU_SELECT_H
#define PMH_TESTS_CPU_SELECT_H

#include "options.h"
#include "suite.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* EFI_PROCESSOR_INFORMATION.StatusFlag bits (PI spec Vol. 2, MP Services) */
#define CPUSEL_BSP     1u
#define CPUSEL_ENABLED 2u
#define CPUSEL_HEALTHY 4u
/* Ours, above the PI spec's bits: the processor's thread within its core
 * (PI spec Vol. 2 EFI_CPU_PHYSICAL_LOCATION.Thread; on BIOS the SMT bits of
 * its APIC ID), 0 where the platform does not know. A parallel run starts
 * each core's threads one at a time (tests/cpu_par.c). */
#define CPUSEL_THREAD_SHIFT 8
#define CPUSEL_THREAD_MAX   0xffu
#define CPUSEL_THREAD(t)                                                                           \
	((uint32_t)((t) < CPUSEL_THREAD_MAX ? (t) : CPUSEL_THREAD_MAX) << CPUSEL_THREAD_SHIFT)
#define CPUSEL_THREAD_OF(f) (((f) >> CPUSEL_THREAD_SHIFT) & CPUSEL_THREAD_MAX)

typedef void (*cpusel_warn_fn)(void *ctx, const char *msg);

/* True when the options ask for a per-CPU run (cpus = all or a list). */
bool cpu_select_requested(const struct options *o);
/* Resolves the option against n processors with the given status flags into
 * ascending, distinct processor numbers (out, at most max). Without a cpus
 * option: the BSP. Unknown and disabled numbers are warned about and left
 * out. Returns the count (0 when nothing selected is available). */
unsigned cpu_select(const struct options *o, const uint32_t *flags, unsigned n, uint16_t *out,
		    unsigned max, cpusel_warn_fn warn, void *ctx);

/* The error when cpu_select selected nothing: "cpus = 999: matches no
 * CPU ...", the option as the run understood it. */
void cpu_select_none(const struct options *o, char *buf, size_t n);

/* One CPU's share of the results. */
struct cpu_run {
	uint16_t cpu;
	struct run_counts n;
};
/* "cpu.N.verdict: WORD (p passed, f failed, s skipped)", WORD decided as the
 * run's own verdict is (suite.h run_verdict_of). */
void cpu_verdict_line(const struct cpu_run *r, char *buf, size_t n);

#endif
