/* idt.restore's verdict from what one restore/install cycle read, apart
 * from the reading (target only), so that a host test can give it a cycle
 * whose restore or reinstall was lost. */
#ifndef PMH_TESTS_CHECKS_IDT_RESTORE_H
#define PMH_TESTS_CHECKS_IDT_RESTORE_H

#include "../suite.h"
#include "../../apic/idt.h"

/* The IDTRs around one cycle: ours before, after idt_restore (mid) and
 * after idt_install (again); the PMI gate's target and our stub's address. */
struct idt_cycle {
	struct idtr fw, ours, mid, again;
	uint64_t gate, stub;
};

/* FAILs unless mid is the firmware's and again ours with the PMI gate at
 * our stub; PASSes otherwise. */
void idt_restore_judge(struct check_ctx *c, const struct idt_cycle *y);

#endif
