/* Per-CPU state (pmu/percpu.h): the template section starts zeroed, a
 * region of k stacks holds k zeroed blocks that the stack pointer finds,
 * and on the host the running CPU's block is the simulated CPU's sim.pcpu:
 * state reached through PCPU() lands there, the template untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h> /* after the headers it needs */

#include "../../apic/apic.h"
#include "../../apic/isr.h"
#include "../../apic/pmi.h"
#include "../../pmu/hw.h"
#include "../../pmu/percpu.h"
#include "../sim/sim.h"

extern char __start_pmh_percpu[], __stop_pmh_percpu[];

#define K 3 /* stacks in the region */

static bool all_zero(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static bool in_block(const volatile void *p, const char *block)
{
	return (const volatile char *)p >= block && (const volatile char *)p < block + pcpu_size();
}

/* First, before any test wrote state: a CPU's block starts as zeroed
 * memory, so the template must be zero too (no PMH_PERCPU initializer). */
static void template_starts_zeroed(void **st)
{
	(void)st;
	assert_true(pcpu_size() > 0);
	/* cppcheck-suppress comparePointers ; the bounds of one section */
	assert_int_equal(pcpu_size(), (size_t)(__stop_pmh_percpu - __start_pmh_percpu));
	assert_true(all_zero(__start_pmh_percpu, pcpu_size()));
}

static void region_holds_k_blocks(void **st)
{
	size_t bytes = pcpu_region_bytes(K);
	char *mem;
	uintptr_t base;

	(void)st;
	assert_true(bytes >= (size_t)K * PCPU_STACK);
	assert_int_equal(pcpu_region_init(NULL, K), 0);
	mem = malloc(bytes);
	assert_non_null(mem);
	memset(mem, 0xa5, bytes); /* the blocks must come out zeroed */
	base = pcpu_region_init(mem, K);
	assert_true(base != 0 && base % PCPU_STACK == 0);
	assert_true(base >= (uintptr_t)mem && base + K * PCPU_STACK <= (uintptr_t)mem + bytes);
	for (unsigned i = 0; i < K; i++) {
		uintptr_t lo = base + i * PCPU_STACK;
		const struct pcpu_base *b = (const struct pcpu_base *)lo;
		char *block = b->block;

		assert_int_equal(b->slot, i);
		assert_true((uintptr_t)block > lo && (uintptr_t)block % 64 == 0);
		assert_true((uintptr_t)block + pcpu_size() + PCPU_STACK_MIN <= lo + PCPU_STACK);
		assert_ptr_equal(pcpu_stack_top(base, i), (void *)(lo + PCPU_STACK));
		assert_true(all_zero(block, pcpu_size()));
		/* any address on stack i: its base, its middle, its last byte */
		assert_ptr_equal(pcpu_block_of_stack(lo), block);
		assert_ptr_equal(pcpu_block_of_stack(lo + PCPU_STACK / 2), block);
		assert_ptr_equal(pcpu_block_of_stack(lo + PCPU_STACK - 1), block);
	}
	assert_null(pcpu_block_of_stack(base - 1));
	assert_null(pcpu_block_of_stack(base + K * PCPU_STACK));
	assert_null(pcpu_block_of_stack(0));
	pcpu_stacks_register(0, 0);
	assert_null(pcpu_block_of_stack(base));
	free(mem);
}

static unsigned hits;

static void on_test_vector(struct int_frame *f)
{
	(void)f;
	hits++;
}

/* The host's hw_cpu_local is the simulated CPU's block: the APIC state
 * apic_detect keeps, the PMI counts and an interrupt handler go to it.
 * Without it (and with no boot block: a unit test sets none) the state is
 * the section itself, which stays as it was. */
static void sim_block_holds_the_state(void **st)
{
	size_t n = (pcpu_size() + 63) & ~(size_t)63;
	char *block = aligned_alloc(64, n);
	struct int_frame f = {.vector = VEC_SPURIOUS_TEST};
	struct apic_info ai;

	(void)st;
	assert_non_null(block);
	memset(block, 0, n);
	assert_int_equal(sim_start("skylake", SF_NONE), 0);
	assert_null(hw_cpu_local());
	assert_int_equal(apic_current_mode(), APIC_MODE_DISABLED);
	assert_false(in_block(pmi_stats(), block));

	sim.pcpu = block;
	assert_ptr_equal(hw_cpu_local(), block);
	assert_true(in_block(pmi_stats(), block));
	assert_int_equal(apic_detect(&ai), 0);
	assert_int_not_equal(apic_current_mode(), APIC_MODE_DISABLED);
	isr_set_handler(VEC_SPURIOUS_TEST, on_test_vector);
	isr_dispatch(&f); /* taken on this CPU: its handler */
	assert_int_equal(hits, 1);
	assert_false(all_zero(block, pcpu_size()));

	sim.pcpu = NULL;
	assert_int_equal(apic_current_mode(), APIC_MODE_DISABLED);
	assert_null(isr_last_fatal());
	assert_true(all_zero(__start_pmh_percpu, pcpu_size()));
	free(block);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(template_starts_zeroed), /* first: nothing ran yet */
	    cmocka_unit_test(region_holds_k_blocks),
	    cmocka_unit_test(sim_block_holds_the_state),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
