/* Per-CPU state for runs on several CPUs at once. A variable of the
 * harness that belongs to the CPU running it (the PMI service's state, a
 * check's buffers, the interrupt handlers) is defined with PMH_PERCPU and
 * reached through PCPU(v): the running CPU's own copy during a parallel
 * run, the variable itself otherwise (a serial run uses it as it always
 * did). Every PMH_PERCPU variable starts zeroed: a CPU's copy is zeroed
 * memory, never a copy of what another CPU left (the variables are not
 * initialised; host/unit/test_percpu.c checks the section is zero).
 *
 * Where a CPU's copy lives: a parallel run puts each CPU on a stack of
 * PCPU_STACK bytes aligned to its size; its base holds a pointer to the
 * CPU's block and the block itself, and the stack grows down from the
 * top. The target finds the block from its stack pointer (hw_cpu_local,
 * x86/hw_x86.c) only inside the range pcpu_stacks_register names, so
 * code on the firmware's stack gets NULL, the template. */
#ifndef PMH_PMU_PERCPU_H
#define PMH_PMU_PERCPU_H

#include <stddef.h>
#include <stdint.h>

#define PMH_PERCPU __attribute__((section("pmh_percpu")))
/* The alignment every block keeps (the section's, the link maps'): a
 * variable aligned up to it keeps its alignment in every copy. */
#define PCPU_ALIGN 64u
#define PCPU(v)	   (*(__typeof__(&(v)))pcpu_addr(&(v)))

/* The running CPU's copy of the PMH_PERCPU variable at v (its template). */
void *pcpu_addr(const void *v);
/* Where the state of a CPU with no block of its own lives (NULL: in the
 * section itself). The EFI image keeps the section out of its file (its
 * link map: zero-filled memory is not carried in the image), so the UEFI
 * platform gives a zeroed block of pcpu_size() bytes before anything
 * else runs; the simulator gives one too, and under ASan poisons the
 * section, so that a variable reached without PCPU is a report. */
void pcpu_set_boot_block(void *b);
/* The bytes of one CPU's block: every PMH_PERCPU variable. */
size_t pcpu_size(void);

/* One CPU's stack and block in a parallel run (aligned to PCPU_STACK);
 * at least PCPU_STACK_MIN bytes of it are stack above the block. */
#define PCPU_STACK     (128u * 1024u)
#define PCPU_STACK_MIN (64u * 1024u)
struct pcpu_base {
	void *block;   /* this CPU's PMH_PERCPU variables (zeroed at set-up) */
	unsigned slot; /* its place in the run (the selection's order) */
};

/* The bytes a region for k CPUs' stacks takes (room to align included;
 * 0 when it overflows or a block does not leave PCPU_STACK_MIN). */
size_t pcpu_region_bytes(unsigned k);
/* Lays out k stacks in mem (pcpu_region_bytes(k) bytes): each zeroed
 * block and its base; returns the first stack's base (stack i is
 * PCPU_STACK bytes after it) or NULL. The range becomes the one
 * hw_cpu_local looks in (pcpu_stacks_register). */
uintptr_t pcpu_region_init(void *mem, unsigned k);
/* The top of stack i of a region pcpu_region_init laid out at base. */
static inline void *pcpu_stack_top(uintptr_t base, unsigned i)
{
	return (void *)(base + (uintptr_t)(i + 1) * PCPU_STACK);
}
/* The range of stacks hw_cpu_local looks in ([lo, lo + span); span 0:
 * none, every lookup is the template). */
void pcpu_stacks_register(uintptr_t lo, size_t span);
/* The block of the stack sp lies on, or NULL outside the registered
 * range (the target's hw_cpu_local). */
void *pcpu_block_of_stack(uintptr_t sp);

#endif
