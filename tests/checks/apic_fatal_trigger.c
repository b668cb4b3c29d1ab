/* apic.fatal-trigger: a test trigger, not a measurement. It runs only when
 * checks= names it exactly (a glob such as "*" leaves it out of the run and
 * the counts): it raises #UD with known values in RAX and RBX, so that a
 * QEMU test can see the unexpected-exception report (vector, error code,
 * RIP, registers) and the recovery: the harness stops, restores the
 * firmware's LVTPC and IDT and returns (host/qemu/test_shell_twice.py). */
#include "../suite.h"

static void run(struct check_ctx *c)
{
#ifdef PMH_HOST
	check_skip(c, "the host build has no exception path to exercise");
#else
	/* 32-bit moves: RAX and RBX get the same values (zero-extended), and
	 * the i386 build assembles them too */
	__asm__ volatile("mov $0x5a5a1234, %%eax\n\t"
			 "mov $0x0badcafe, %%ebx\n\t"
			 "ud2" ::
			     : "ax", "bx", "memory");
	check_fail(c, "expected #UD from ud2, got execution past it");
#endif
}

PMH_CHECK(apic_fatal_trigger, .id = "apic.fatal-trigger",
	  .summary = "test trigger for the unexpected-exception report and recovery", .order = 29,
	  .only_when_named = true, .run = run);
