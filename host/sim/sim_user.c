/* Ring 3 on the simulated CPU (pmu/hw.h "Ring 3"): the platform's excursion
 * to CPL 3 and back as the target's code makes it, its instructions
 * retired at the privilege level they run at, so that the OS and USR bits
 * of each model's counters (sim_priv_counts) meet user code; RDPMC at CPL
 * 3 under CR4.PCE; the descriptor-table registers a firmware leaves, which
 * the return must give back. */
#include "sim.h"

/* What the platform's code retires around the excursion (ours: the
 * target's SGDT/LGDT/LTR, IRET and the return handler, about 40
 * instructions with 4 branches at CPL 0, and the trampoline's call and
 * INT at CPL 3). The same in every excursion, so N/2N differences cancel
 * it as they cancel the harness's own code. */
#define ENTRY_INSN 24u
#define EXIT_INSN  16u
#define ENTRY_BR   2u
#define TRAMP_INSN 4u
#define TRAMP_BR   2u

/* A firmware's tables (ours: OVMF-like addresses; a firmware that loaded
 * a TSS, so that TR has a value to give back), CR4 with PAE and OSFXSR. */
#define FW_GDT 0x7f9dc000ull
#define FW_IDT 0x7f9dd000ull
#define FW_TR  0x38u
#define OUR_TR 0x50u /* the harness's TSS selector in its own GDT */
#define FW_CR4 0x668ull

void sim_user_power_on(struct sim_cpu *s)
{
	s->cpl = 0;
	s->tables.gdt_base = FW_GDT;
	s->tables.gdt_limit = 0x47;
	s->tables.idt_base = FW_IDT;
	s->tables.idt_limit = 0xfff;
	s->tables.tr = FW_TR;
	s->tables.tr_tss = true;
	s->tables.cr4 = FW_CR4;
}

/* The platform's own code: the harness's path to it, its ring-0 part, then
 * CPL 3 for the trampoline's part; leave() the way back. */
static void enter(struct sim_cpu *s)
{
	sim_real_access(s, SA_ENTRY, HW_USER_VECTOR);
	sim_retire(s, ENTRY_INSN, ENTRY_BR, ENTRY_INSN);
	s->cpl = 3;
	sim_retire(s, TRAMP_INSN / 2, TRAMP_BR / 2, TRAMP_INSN);
}

static void leave(struct sim_cpu *s)
{
	sim_retire(s, TRAMP_INSN / 2, TRAMP_BR / 2, TRAMP_INSN);
	s->cpl = 0;
	sim_retire(s, EXIT_INSN, ENTRY_BR, EXIT_INSN);
	/* tr-leaked: the harness's TSS stays loaded where the firmware's was;
	 * and where TR named no TSS to load back (0, a loader's selector), it
	 * stays on any CPU (x86/hw_user.c gdt_restore) */
	if (sim_has_fault(s, SF_TR_LEAKED) || !s->tables.tr_tss) {
		s->tables.tr = OUR_TR;
		s->tables.tr_tss = true;
	}
	sim_real_access(s, SA_EXIT, HW_USER_VECTOR);
}

int hw_user_run(const struct workload *w, uint64_t iterations)
{
	if (w->mem != WL_MEM_NONE)
		return HW_REFUSED; /* no user mapping of the harness's buffers */
	enter(&sim);
	sim_workload_at(&sim, w, iterations, 3);
	leave(&sim);
	return HW_OK;
}

/* RDPMC at CPL > 0 with CR4.PCE clear raises #GP (SDM Vol. 2B RDPMC;
 * QEMU TCG's helper_rdpmc checks the same before its #UD); pce-ignored
 * lets it through. */
int hw_user_rdpmc(uint32_t ecx, bool pce, uint64_t *val)
{
	int e;

	*val = 0;
	enter(&sim);
	if (!pce && !sim_has_fault(&sim, SF_PCE_IGNORED))
		e = HW_FAULT_GP;
	else if (!sim.m->rdpmc)
		e = HW_FAULT_UD;
	else
		e = sim.m->rdpmc(&sim, ecx, val);
	sim_retire(&sim, 1, 0, 1); /* the RDPMC itself, at CPL 3 */
	leave(&sim);
	if (e != HW_OK)
		*val = 0;
	return e;
}

void hw_cpu_tables(struct hw_cpu_tables *t)
{
	struct hw_paging p;

	*t = sim.tables;
	hw_paging_get(&p);
	t->cr3 = p.root;
}
