/* The run's tables (suite.h): the suite's own or one block from the
 * platform's allocator sized for the CPUs of a per-CPU run, the CPUs'
 * records, the lock of what every CPU of a parallel run appends to, and
 * the gathering of a parallel run's shares. */
#include "suite.h"
#include "platform.h"
#include "../lib/str.h"
#include "../pmu/hw.h"

void suite_lock(struct suite *s)
{
	while (__atomic_test_and_set(&s->lock, __ATOMIC_ACQUIRE))
		hw_relax();
}

void suite_unlock(struct suite *s)
{
	__atomic_clear(&s->lock, __ATOMIC_RELEASE);
}

/* The suite's own tables in use, empty. */
void suite_own_tables(struct suite *s)
{
	s->results = s->own_results;
	s->cap_results = SUITE_OWN_RESULTS;
	s->cpus = s->own_cpus;
	s->cap_cpus = SUITE_OWN_CPUS;
	s->more = s->own_more;
	s->cap_more = SUITE_OWN_MORE;
	s->n_results = s->n_cpus = s->n_more = 0;
}

void suite_release(struct suite *s)
{
	if (s->mem && s->mem_free)
		s->mem_free(s->mem_ctx, s->mem);
	s->mem = 0;
	s->mem_free = 0;
	suite_own_tables(s);
}

void suite_keep_tables(struct suite *s)
{
	s->mem_free = 0; /* suite_release forgets the block, never frees it */
}

/* CPU cpu's record, a new one (not identified) when it has none; NULL
 * when the table is full. */
struct cpu_record *suite_cpu_rec(struct suite *s, unsigned cpu, bool make)
{
	for (unsigned i = 0; i < s->n_cpus; i++)
		if (s->cpus[i].cpu == cpu)
			return &s->cpus[i];
	if (s->n_cpus >= s->cap_cpus || !make)
		return 0;
	struct cpu_record *r = &s->cpus[s->n_cpus++];
	pmh_memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	return r;
}

/* Bytes of a block of r results, c CPUs' records and the further
 * failures: one per result, never fewer than the own table holds; 0 past
 * what a size_t holds. */
static size_t block_size(unsigned r, unsigned c)
{
	uint64_t m = r > SUITE_OWN_MORE ? r : SUITE_OWN_MORE;
	uint64_t n = r * (uint64_t)sizeof(struct result) + c * (uint64_t)sizeof(struct cpu_record) +
		     m * RESULT_MSG;

	return n == (size_t)n ? (size_t)n : 0;
}

/* s's tables moved into a new block from p with room for r results and c
 * records, what they hold copied; false when p has no such block. */
static bool move_tables(struct suite *s, const struct platform *p, unsigned r, unsigned c)
{
	size_t n = block_size(r, c);
	char *b = n ? p->alloc(p->ctx, n) : 0;

	if (!b)
		return false;
	/* results first: their size keeps the records after them aligned */
	struct result *res = (struct result *)(void *)b;
	struct cpu_record *cr = (struct cpu_record *)(void *)(res + r);
	char(*more)[RESULT_MSG] = (char(*)[RESULT_MSG])(void *)(cr + c);

	pmh_memcpy(res, s->results, s->n_results * sizeof(*res));
	pmh_memcpy(cr, s->cpus, s->n_cpus * sizeof(*cr));
	pmh_memcpy(more, s->more, s->n_more * sizeof(*more));
	if (s->mem && s->mem_free)
		s->mem_free(s->mem_ctx, s->mem);
	s->mem = b;
	s->mem_free = p->free;
	s->mem_ctx = p->ctx;
	s->results = res;
	s->cap_results = r;
	s->cpus = cr;
	s->cap_cpus = c;
	s->more = more;
	s->cap_more = r > SUITE_OWN_MORE ? r : SUITE_OWN_MORE;
	return true;
}

/* Whether p has a block for k more CPUs of per results each (tried and
 * given back). */
static bool block_for(const struct suite *s, const struct platform *p, unsigned k, unsigned per)
{
	size_t n = block_size(s->n_results + k * per, s->n_cpus + k);
	void *b = n ? p->alloc(p->ctx, n) : 0;

	if (b)
		p->free(p->ctx, b);
	return b != 0;
}

unsigned suite_reserve(struct suite *s, unsigned k)
{
	const struct platform *p = s->platform;
	unsigned per = suite_selected(s->opt) + SUITE_CPU_RUN_RESULTS;
	unsigned r = (s->cap_results - s->n_results) / per, c = s->cap_cpus - s->n_cpus;
	unsigned have = r < c ? r : c, lo = have, hi;

	k = k < SUITE_MAX_CPUS ? k : SUITE_MAX_CPUS; /* the selection's limit */
	if (have >= k || !p || !p->alloc || !p->free)
		return have < k ? have : k;
	if (move_tables(s, p, s->n_results + k * per, s->n_cpus + k))
		return k;
	/* the most that fit, halving what lies between: lo CPUs do, hi not */
	for (hi = k; hi - lo > 1;) {
		unsigned mid = lo + (hi - lo) / 2;
		if (block_for(s, p, mid, per))
			lo = mid;
		else
			hi = mid;
	}
	if (lo > have && move_tables(s, p, s->n_results + lo * per, s->n_cpus + lo))
		return lo;
	return have; /* no more than the tables hold now */
}

/* Stable insertion sorts by CPU: a parallel run's CPUs appended their
 * rows as they went; a serial run's are in CPU order. */
#define SORT_BY_CPU(name, type)                                                                    \
	static void name(type *a, unsigned n)                                                      \
	{                                                                                          \
		for (unsigned i = 1; i < n; i++) {                                                 \
			type t = a[i];                                                             \
			unsigned j = i;                                                            \
			for (; j > 0 && a[j - 1].cpu > t.cpu; j--)                                 \
				a[j] = a[j - 1];                                                   \
			a[j] = t;                                                                  \
		}                                                                                  \
	}
SORT_BY_CPU(sort_rows, struct event_row)
SORT_BY_CPU(sort_cov, struct event_coverage)
SORT_BY_CPU(sort_hv, struct hv_finding)

void suite_note_cpu(struct suite *s, unsigned cpu)
{
	(void)suite_cpu_rec(s, cpu, true);
}

const struct cpu_record *suite_cpu_record(const struct suite *s, unsigned cpu)
{
	for (unsigned i = 0; i < s->n_cpus; i++)
		if (s->cpus[i].cpu == cpu)
			return &s->cpus[i];
	return 0;
}

/* The tables moved to a new block of the same size, the old one kept: the
 * results before base and every further failure come along. */
static const struct result *fresh_tables(struct suite *s, unsigned base, unsigned more_end)
{
	const struct result *old = s->results;
	unsigned n = s->n_results, m = s->n_more;

	suite_keep_tables(s);
	s->n_results = base;
	s->n_more = more_end;
	if (!s->platform || !move_tables(s, s->platform, s->cap_results, s->cap_cpus)) {
		s->n_results = n;
		s->n_more = m;
		return old; /* in place, as without a CPU still running */
	}
	s->n_results = n;
	return old;
}

void suite_gather_shares(struct suite *s, unsigned base, unsigned per, const unsigned *n,
			 unsigned k, bool fresh)
{
	const struct result *from = fresh ? fresh_tables(s, base, s->cap_more) : s->results;
	unsigned to = s->n_results;

	for (unsigned i = 0; i < k; i++) {
		/* to never passes the share's start: a forward copy is safe */
		for (unsigned j = 0; j < n[i]; j++)
			s->results[to++] = from[base + i * per + j];
	}
	s->n_results = to;
	sort_rows(s->ev_rows, s->n_ev_rows);
	sort_cov(s->ev_cov, s->n_ev_cov);
	sort_hv(s->hv, s->n_hv);
}
