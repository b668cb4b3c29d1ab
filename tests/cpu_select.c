/* CPU selection for per-CPU runs and the per-CPU verdict line. */
#include "cpu_select.h"
#include "../lib/fmt.h"

bool cpu_select_requested(const struct options *o)
{
	return o->all_cpus || o->n_cpus > 0;
}

static bool listed(const struct options *o, unsigned cpu)
{
	for (unsigned i = 0; i < o->n_cpus; i++)
		if (o->cpus[i] == cpu)
			return true;
	return false;
}

unsigned cpu_select(const struct options *o, const uint32_t *flags, unsigned n, uint16_t *out,
		    unsigned max, cpusel_warn_fn warn, void *ctx)
{
	char msg[160];
	unsigned k = 0;

	/* Numbers past the last processor, each warned about once. */
	for (unsigned i = 0; i < o->n_cpus; i++) {
		unsigned c = o->cpus[i], j;
		for (j = 0; j < i && o->cpus[j] != c; j++)
			;
		if (j == i && c >= n) {
			pmh_fmt(msg, sizeof(msg),
				"cpus: CPU %u does not exist (the firmware reports %u processors): "
				"skipped",
				c, n);
			warn(ctx, msg);
		}
	}
	for (unsigned c = 0; c < n; c++) {
		bool want = o->all_cpus ? true
			    : o->n_cpus ? listed(o, c)
					: (flags[c] & CPUSEL_BSP) != 0;
		if (!want)
			continue;
		if (!(flags[c] & CPUSEL_ENABLED)) {
			pmh_fmt(msg, sizeof(msg),
				"cpus: CPU %u is disabled in the firmware: skipped", c);
			warn(ctx, msg);
			continue;
		}
		if (k >= max) {
			pmh_fmt(msg, sizeof(msg),
				"cpus: more than %u CPUs selected: CPU %u and later skipped", max,
				c);
			warn(ctx, msg);
			break;
		}
		out[k++] = (uint16_t)c;
	}
	return k;
}

void cpu_select_none(const struct options *o, char *buf, size_t n)
{
	struct pmh_sb sb;

	pmh_sb_init(&sb, buf, n);
	pmh_sb_add(&sb, "cpus = ");
	if (o->all_cpus)
		pmh_sb_add(&sb, o->cpus_serial ? "serial" : "all");
	for (unsigned i = 0; !o->all_cpus && i < o->n_cpus; i++)
		pmh_sb_add(&sb, "%s%u", i ? "," : "", o->cpus[i]);
	pmh_sb_add(&sb, ": matches no CPU that can run (see the warnings above); no check ran");
}

void cpu_verdict_line(const struct cpu_run *r, char *buf, size_t n)
{
	pmh_fmt(buf, n, "cpu.%u.verdict: %s (%u passed, %u failed, %u skipped)", r->cpu,
		run_verdict_name(run_verdict_of(&r->n)), r->n.passed, r->n.failed, r->n.skipped);
}
