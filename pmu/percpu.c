/* Per-CPU state (percpu.h). */
#include "percpu.h"
#include "hw.h"
#include "../lib/str.h"

/* The linker gathers every PMH_PERCPU variable into one section (GNU ld
 * names its bounds for a section named as a C identifier; the image's
 * link map names them too). */
extern char __start_pmh_percpu[], __stop_pmh_percpu[];

/* The registered stacks: written by the boot CPU before it starts the
 * others and when every one of them is back, read by all. */
static volatile uintptr_t stacks_lo;
static volatile size_t stacks_span;
static char *boot_block; /* set once, before any other CPU starts */
/* The section is in every link that has this file, variables or not. */
static unsigned char section_present PMH_PERCPU __attribute__((used));

size_t pcpu_size(void)
{
	/* cppcheck-suppress comparePointers ; the bounds of one section */
	return (size_t)(__stop_pmh_percpu - __start_pmh_percpu);
}

void pcpu_set_boot_block(void *b)
{
	boot_block = b;
}

void *pcpu_addr(const void *v)
{
	char *b = hw_cpu_local();

	if (!b)
		b = boot_block;
	/* cppcheck-suppress comparePointers ; v lies in the section */
	return b ? b + ((const char *)v - __start_pmh_percpu) : (void *)(uintptr_t)v;
}

/* Where a stack's block starts: after its base, as aligned as the
 * section. */
static size_t block_offset(void)
{
	return (sizeof(struct pcpu_base) + PCPU_ALIGN - 1) & ~(size_t)(PCPU_ALIGN - 1);
}

size_t pcpu_region_bytes(unsigned k)
{
	uint64_t n = (uint64_t)k * PCPU_STACK + PCPU_STACK; /* + room to align */

	if (block_offset() + pcpu_size() + PCPU_STACK_MIN > PCPU_STACK)
		return 0;
	return n == (size_t)n ? (size_t)n : 0;
}

uintptr_t pcpu_region_init(void *mem, unsigned k)
{
	uintptr_t base = ((uintptr_t)mem + PCPU_STACK - 1) & ~(uintptr_t)(PCPU_STACK - 1);

	if (!mem || !pcpu_region_bytes(k))
		return 0;
	for (unsigned i = 0; i < k; i++) {
		struct pcpu_base *b = (struct pcpu_base *)(base + (uintptr_t)i * PCPU_STACK);
		b->block = (char *)b + block_offset();
		b->slot = i;
		pmh_memset(b->block, 0, pcpu_size());
	}
	pcpu_stacks_register(base, (size_t)k * PCPU_STACK);
	return base;
}

void pcpu_stacks_register(uintptr_t lo, size_t span)
{
	stacks_span = 0; /* never a moment with the new base and the old span */
	stacks_lo = lo;
	stacks_span = span;
}

void *pcpu_block_of_stack(uintptr_t sp)
{
	if (sp - stacks_lo >= stacks_span)
		return 0;
	return ((struct pcpu_base *)(sp & ~(uintptr_t)(PCPU_STACK - 1)))->block;
}
