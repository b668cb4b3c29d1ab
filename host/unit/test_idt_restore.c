/* idt.restore's verdict (tests/checks/idt_restore.h): PASS only for a cycle
 * that loaded the firmware's IDTR and then ours with the PMI gate at our
 * stub; FAIL when the restore, the reinstall or the gate was lost. The
 * reading itself is target-only (the host build has no IDT). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../tests/checks/idt_restore.h"

#define FW_BASE	 0x7f000000ull
#define OUR_BASE 0x00120000ull
#define STUB	 0x00101234ull

/* A cycle as a healthy machine reads it. */
static struct idt_cycle healthy(void)
{
	struct idt_cycle y = {.fw = {0xfff, FW_BASE},
			      .ours = {0xfff, OUR_BASE},
			      .mid = {0xfff, FW_BASE},
			      .again = {0xfff, OUR_BASE},
			      .gate = STUB,
			      .stub = STUB};
	return y;
}

/* The verdict of y; its message in msg. */
static enum verdict judge(const struct idt_cycle *y, char *msg, size_t n)
{
	struct check_ctx c;
	memset(&c, 0, sizeof(c));
	idt_restore_judge(&c, y);
	strncpy(msg, c.msg, n - 1);
	msg[n - 1] = 0;
	return c.v;
}

static void pass_when_both_loads_land(void **st)
{
	(void)st;
	char m[256];
	struct idt_cycle y = healthy();
	assert_int_equal(judge(&y, m, sizeof(m)), V_PASS);
	assert_non_null(strstr(m, "restored"));
}

static void fail_when_the_restore_is_lost(void **st)
{
	(void)st;
	char m[256];
	struct idt_cycle y = healthy();
	y.mid = y.ours; /* LIDT of the firmware's IDTR did not land */
	assert_int_equal(judge(&y, m, sizeof(m)), V_FAIL);
	assert_non_null(strstr(m, "after restore"));
	y = healthy();
	y.mid.limit = 0x7ff; /* the base back, the limit not */
	assert_int_equal(judge(&y, m, sizeof(m)), V_FAIL);
}

static void fail_when_the_reinstall_is_lost(void **st)
{
	(void)st;
	char m[256];
	struct idt_cycle y = healthy();
	y.again = y.fw;
	assert_int_equal(judge(&y, m, sizeof(m)), V_FAIL);
	assert_non_null(strstr(m, "after reinstall"));
	y = healthy();
	y.gate = 0x00ffee00; /* our IDTR, the firmware's PMI gate */
	assert_int_equal(judge(&y, m, sizeof(m)), V_FAIL);
	assert_non_null(strstr(m, "gate 0xee"));
	y = healthy();
	y.ours = y.fw; /* the harness never installed its IDT */
	assert_int_equal(judge(&y, m, sizeof(m)), V_FAIL);
	assert_non_null(strstr(m, "got the firmware's"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(pass_when_both_loads_land),
	    cmocka_unit_test(fail_when_the_restore_is_lost),
	    cmocka_unit_test(fail_when_the_reinstall_is_lost),
	};
	return cmocka_run_group_tests(tests, 0, 0);
}
