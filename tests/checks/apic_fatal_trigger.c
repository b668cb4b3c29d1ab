/* apic.fatal-trigger: a test trigger, not a measurement. Named explicitly in
 * checks= it raises #UD with known values in RAX and RBX, so that a QEMU test
 * can see the unexpected-exception report (vector, error code, RIP,
 * registers) and the recovery: the harness stops, restores the firmware's
 * LVTPC and IDT and returns (host/qemu/test_shell_twice.py). Selected by a
 * glob such as "*" it only SKIPs. */
#include "../../lib/str.h"
#include "../suite.h"

#define ID "apic.fatal-trigger"

/* Whether ID is one of the comma-separated entries of checks= as it is. */
static bool named(const char *list)
{
	size_t n = pmh_strlen(ID);

	for (const char *p = list; *p;) {
		const char *e = p;
		while (*e && *e != ',')
			e++;
		if ((size_t)(e - p) == n && !pmh_strncmp(p, ID, n))
			return true;
		p = *e ? e + 1 : e;
	}
	return false;
}

static void run(struct check_ctx *c)
{
	if (!named(c->opt->checks)) {
		check_skip(c, "a test trigger: runs only when named in checks=" ID);
		return;
	}
#ifdef PMH_HOST
	check_skip(c, "the host build has no exception path to exercise");
#else
	__asm__ volatile("mov $0x5a5a1234, %%rax\n\t"
			 "mov $0x0badcafe, %%rbx\n\t"
			 "ud2" ::
			     : "rax", "rbx", "memory");
	check_fail(c, "expected #UD from ud2, got execution past it");
#endif
}

PMH_CHECK(apic_fatal_trigger, .id = ID,
	  .summary = "test trigger for the unexpected-exception report and recovery", .order = 29,
	  .run = run);
