/* Interrupt dispatch shared by the target's entry stubs and the simulator:
 * both call isr_dispatch() with a frame. */
#ifndef PMH_APIC_ISR_H
#define PMH_APIC_ISR_H

#include <stdbool.h>
#include <stdint.h>

#define VEC_NMI		  2
#define VEC_UD		  6
#define VEC_GP		  13
#define VEC_PMI		  0xee /* LVTPC fixed-delivery vector */
#define VEC_SPURIOUS_TEST 0xef /* spare vector for self-IPI plumbing checks */

struct int_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

struct pmh_jmpbuf {
	uint64_t rbx, rbp, r12, r13, r14, r15, rsp, rip;
};

typedef void (*isr_handler_fn)(struct int_frame *f);

/* Every setting below is the running CPU's own (pmu/percpu.h): an
 * interrupt is dispatched with the settings of the CPU that took it. */
void isr_dispatch(struct int_frame *f);
/* Install a handler for one of the harness's vectors (PMI, NMI, test). */
void isr_set_handler(unsigned vector, isr_handler_fn fn);
/* Where an unexpected exception is reported and recovered (may be null). */
void isr_set_fatal(void (*report)(const char *line), struct pmh_jmpbuf *recover);
/* This CPU's report and recovery as isr_set_fatal left them, to put back. */
struct isr_fatal {
	void (*report)(const char *line);
	struct pmh_jmpbuf *recover;
};
struct isr_fatal isr_fatal_now(void);
/* Where an exception raised at CPL 3 goes (the ring-3 excursion of
 * pmu/hw.h hw_user_*, while one runs; NULL otherwise): fn rewrites the
 * frame so that its IRET lands back at CPL 0. NMIs at CPL 3 are serviced
 * as anywhere and resume there. */
void isr_set_user_fault(isr_handler_fn fn);
/* The frame of the last unexpected exception (for the results), or NULL. */
const struct int_frame *isr_last_fatal(void);
/* NMIs that arrived on this CPU with no NMI handler installed (not fatal;
 * nothing printed in NMI context), and where the last one came. */
uint64_t isr_unexpected_nmis(void);
uint64_t isr_unexpected_nmi_rip(void);
/* Looks up a fault fixup for rip; 0 when none (target only). */
uint64_t isr_fixup_for(uint64_t rip);

/* returns_twice: the compiler keeps nothing in registers across the
 * second return. */
int pmh_setjmp(struct pmh_jmpbuf *b) __attribute__((returns_twice));
void pmh_longjmp(struct pmh_jmpbuf *b, int v);
/* Rewrites an exception's frame so that its IRET lands on
 * pmh_longjmp(b, 1): the handler returns to b's pmh_setjmp with the
 * interrupted RFLAGS restored (target only). */
void isr_resume_longjmp(struct int_frame *f, struct pmh_jmpbuf *b);

#endif
