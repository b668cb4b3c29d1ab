/* ring3.entry: the harness enters CPL 3 and comes back (pmu/hw.h "Ring 3"):
 * a workload runs there, RDPMC there with CR4.PCE clear raises #GP (SDM
 * Vol. 2B RDPMC: CPL > 0 and PCE = 0; QEMU TCG's helper_rdpmc does the
 * same), the fault comes back as its vector and CPL 3 is entered again.
 * Then what the excursions change reads as before: GDTR, IDTR, TR, CR3 and
 * CR4. One exception: a TR that names no TSS of the GDT cannot be put back
 * (LTR of a null selector, or of one that is no TSS descriptor, is #GP,
 * SDM Vol. 2A LTR): 0, or a Multiboot loader's selector, which the BIOS
 * kernel's own GDT gives another meaning. The harness's TSS stays loaded
 * there, and the line says so. */
#include "../suite.h"
#include "../../pmu/hw.h"
#include "../../events/workload.h"

#define RING3_LOOPS 1000 /* any count: the excursion is under test */

/* FAILs naming the register when a != b. */
static bool same(struct check_ctx *c, const char *what, uint64_t b, uint64_t a)
{
	if (a == b)
		return true;
	check_fail(c, "%s 0x%llx before, 0x%llx after: not restored", what, (unsigned long long)b,
		   (unsigned long long)a);
	return false;
}

/* Every field of before and after; a TR that named no TSS of the GDT (0,
 * or a Multiboot loader's selector read against the kernel's own GDT) may
 * now be the harness's. Each difference is a FAIL of its own. */
static bool tables_same(struct check_ctx *c, const struct hw_cpu_tables *b,
			const struct hw_cpu_tables *a)
{
	bool ok = same(c, "GDTR base", b->gdt_base, a->gdt_base);

	ok &= same(c, "GDTR limit", b->gdt_limit, a->gdt_limit);
	ok &= same(c, "IDTR base", b->idt_base, a->idt_base);
	ok &= same(c, "IDTR limit", b->idt_limit, a->idt_limit);
	ok &= same(c, "CR3", b->cr3, a->cr3);
	ok &= same(c, "CR4", b->cr4, a->cr4);
	if (b->tr != a->tr && b->tr_tss) {
		check_fail(c, "TR 0x%x before, 0x%x after: not restored", b->tr, a->tr);
		ok = false;
	}
	return ok;
}

/* An excursion of wl_loop that answered st; false after a FAIL (which
 * names `when`). */
static bool loop_ok(struct check_ctx *c, int st, const char *when)
{
	if (st == HW_OK)
		return true;
	check_fail(c, "expected wl_loop x%u at CPL 3 %s to come back ok, got %s (%d)", RING3_LOOPS,
		   when, hw_err_name(st), st);
	return false;
}

static void run(struct check_ctx *c)
{
	struct hw_cpu_tables before, after;
	uint64_t v = 0;
	int gp, st;

	hw_cpu_tables(&before);
	st = hw_user_run(&wl_loop, RING3_LOOPS);
	if (st == HW_UNSUPPORTED) {
		check_skip(c, "the platform cannot enter CPL 3 here (hw_user_run: unsupported: no "
			      "harness IDT loaded, paging it cannot copy, or a GDT too large)");
		return;
	}
	bool ran = loop_ok(c, st, "first");
	gp = hw_user_rdpmc(0, false, &v);
	if (gp != HW_FAULT_GP)
		check_fail(
		    c,
		    "expected #GP (13) from RDPMC 0 at CPL 3 with CR4.PCE clear (SDM Vol. 2B "
		    "RDPMC), got %s (%d, value 0x%llx)",
		    hw_err_name(gp), gp, (unsigned long long)v);
	ran &= loop_ok(c, hw_user_run(&wl_loop, RING3_LOOPS), "after the RDPMC");
	hw_cpu_tables(&after);
	if (!tables_same(c, &before, &after) || !ran || gp != HW_FAULT_GP)
		return;
	if (before.tr == after.tr)
		check_pass(c,
			   "CPL 3 entered and left 3 times (wl_loop x%u twice, RDPMC with "
			   "CR4.PCE=0: #GP caught); GDTR, IDTR, CR3, CR4 and TR 0x%x as before",
			   RING3_LOOPS, before.tr);
	else
		check_pass(c,
			   "CPL 3 entered and left 3 times (wl_loop x%u twice, RDPMC with "
			   "CR4.PCE=0: #GP caught); GDTR, IDTR, CR3, CR4 as before; TR 0x%x before "
			   "named no TSS of this GDT (%s), 0x%x after: the harness's TSS stays "
			   "loaded, there was none to load back (LTR)",
			   RING3_LOOPS, before.tr, before.tr ? "its loader's selector" : "null",
			   after.tr);
}

PMH_CHECK(
    ring3_entry, .id = "ring3.entry",
    .summary = "CPL 3 entered and left; a fault there comes back; GDTR, TR, CR3, CR4 restored",
    .order = 25, .needs_pmu = false, .run = run);
