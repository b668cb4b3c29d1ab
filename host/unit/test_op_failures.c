/* A driver op that fails inside a check is reported as what it is: a FAIL
 * naming the operation, the counter and the error (tests/measure.h m_op),
 * and the check stops. Before, the checks read on past the failure and
 * reported what followed from it: a lost or spurious PMI, a gate that
 * leaks, a flag that is not set, or a PASS on the counters left. The
 * driver's ops are wrapped so that one op fails where a test picks; the
 * simulated CPU is healthy otherwise. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim_drv.h"
#include "../../apic/pmi.h"
#include "../../tests/checks/pmi_common.h"
#include "../../tests/suite.h"
#include "sim_suite.h"

/* ---- the wrapped driver -------------------------------------------------- */

enum which { W_NONE, W_PRELOAD, W_REARM, W_STOP, W_STATUS };

static struct {
	struct pmu_ops ops;
	const struct pmu_ops *orig;
	enum which which;
	unsigned ctr; /* the counter whose op fails */
	int err;      /* what it returns */
	unsigned hits;
} w;

/* A preload is a nonzero write through the preload path: outside the PMI
 * handler (sim.depth 0) the check's, inside it the handler's re-arm. */
static int w_write(struct pmu *p, unsigned ctr, uint64_t val, enum pmu_write_path path)
{
	bool preload = path == PMU_WRITE_PRELOAD && val && ctr == w.ctr;
	if (preload &&
	    ((w.which == W_PRELOAD && !sim.depth) || (w.which == W_REARM && sim.depth))) {
		w.hits++;
		return w.err;
	}
	return w.orig->write(p, ctr, val, path);
}

/* A stop that fails leaves the counter running, as a refused write does. */
static int w_stop(struct pmu *p, uint64_t mask)
{
	if (w.which == W_STOP && ((mask >> w.ctr) & 1) && !sim.depth) {
		w.hits++;
		return w.err;
	}
	return w.orig->stop(p, mask);
}

static int w_status(struct pmu *p, uint64_t *mask)
{
	int st = w.orig->overflow_status(p, mask);
	if (w.which == W_STATUS && !sim.depth) {
		w.hits++;
		*mask = 0;
		return w.err;
	}
	return st;
}

/* The model, healthy and ideal, with op `which` of counter ctr failing
 * with err. */
static void wrapped(const char *model, enum which which, unsigned ctr, int err)
{
	up(model, SF_NONE, 0, 1);
	memset(&w, 0, sizeof(w));
	w.orig = drv_p.ops;
	w.ops = *drv_p.ops;
	w.ops.write = w_write;
	w.ops.stop = w_stop;
	w.ops.overflow_status = w_status;
	w.which = which;
	w.ctr = ctr;
	w.err = err;
	drv_p.ops = &w.ops;
}

static int teardown(void **st)
{
	(void)st;
	pmi_disarm();
	return 0;
}

static void expect(const char *id, enum verdict v, const char *words)
{
	const struct result *r = run_check(id);
	if (r->v != v || !strstr(r->msg, words))
		fail_msg("%s: verdict %d, expected %d with \"%s\": %s", id, r->v, v, words, r->msg);
	assert_true(w.hits > 0);
}

/* ---- the checks ---------------------------------------------------------- */

/* overflow.pmi's preload of -1000 on gp0 raises #GP. Before: the counter
 * ran from 0, never overflowed, and the check said "PMI lost". */
static void pmi_preload_named(void **st)
{
	(void)st;
	wrapped("skylake", W_PRELOAD, 0, HW_FAULT_GP);
	expect("overflow.pmi", V_FAIL, "gp0: preload of -1000 failed: #GP");
}

/* The PMI handler's re-arm of gp0 fails. Before: overflow.rearm counted
 * the overflows that never came and said "PMIs lost". */
static void handler_rearm_named(void **st)
{
	(void)st;
	wrapped("skylake", W_REARM, 0, HW_FAULT_GP);
	expect("overflow.rearm", V_FAIL, "failed in the PMI handler, the last its re-arm: #GP");
}

/* count.enable: gp0's stop() is refused and the counter runs on. Before:
 * "expected no counting after stop" (a gate that does not close). */
static void enable_stop_named(void **st)
{
	(void)st;
	wrapped("core2", W_STOP, 0, HW_REFUSED);
	expect("count.enable", V_FAIL, "gp0: stop failed: refused");
}

/* overflow.status: the status read faults. Before: "expected the overflow
 * status bit after an overflow, status 0x0" (a flag that is not set). */
static void status_read_named(void **st)
{
	(void)st;
	wrapped("core2", W_STATUS, 0, HW_FAULT_GP);
	expect("overflow.status", V_FAIL, "intel-arch: overflow status read failed: #GP");
}

/* An op the family does not have SKIPs the check, naming it. */
static void unsupported_skips(void **st)
{
	(void)st;
	wrapped("core2", W_STATUS, 0, HW_UNSUPPORTED);
	expect("overflow.status", V_SKIP, "overflow status read: not supported by intel-arch");
}

/* A counter whose MSRs fault (msr-fault on gp1, the probe on gp0): the
 * counting checks name it. Before: they passed on the one counter left. */
static void msr_fault_named(void **st)
{
	(void)st;
	up("knc", SF_MSR_FAULT, 0, 1);
	const struct result *r = run_check("count.instructions");
	assert_int_equal(r->v, V_FAIL);
	assert_non_null(strstr(r->msg, "gp1: "));
	assert_non_null(strstr(r->msg, "failed: #GP"));
}

/* An MSR no model implements: RDMSR and WRMSR raise #GP. */
#define MISSING_MSR 0x12345u

/* ---- m_op ---------------------------------------------------------------- */

/* The message names the op, its argument, the counter(s) and the error. */
static void op_messages(void **st)
{
	(void)st;
	static const struct {
		int err;
		enum m_op op;
		uint64_t mask, arg;
		enum verdict v;
		const char *words;
	} t[] = {
	    {HW_FAULT_GP, MO_PRELOAD, 2, 1000, V_FAIL, "gp1: preload of -1000 failed: #GP"},
	    {HW_REFUSED, MO_WRITE, 1, 0x80, V_FAIL, "gp0: write of 0x80 failed: refused"},
	    {HW_FAULT_UD, MO_READ, 1, 0, V_FAIL, "gp0: read failed: #UD"},
	    {HW_STUCK, MO_ACK, 3, 0, V_FAIL, "counters 0x3: ack failed: stuck"},
	    {HW_FAULT_GP, MO_STATUS, 0, 0, V_FAIL, "intel-arch: overflow status read failed"},
	    {HW_UNSUPPORTED, MO_START, 1, 0, V_SKIP, "gp0: start: not supported by intel-arch"},
	};
	for (unsigned k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		struct check_ctx c = up("skylake", SF_NONE, 0, 1);
		c.v = V_NONE; /* as the suite starts a check */
		assert_true(m_op(&c, HW_OK, t[k].op, t[k].mask, t[k].arg));
		assert_int_equal(c.v, V_NONE);
		assert_false(m_op(&c, t[k].err, t[k].op, t[k].mask, t[k].arg));
		assert_int_equal(c.v, t[k].v);
		if (!strstr(c.msg, t[k].words))
			fail_msg("case %u: \"%s\", expected \"%s\"", k, c.msg, t[k].words);
	}
}

/* A measurement's M_FAULT was named by m_op: m_fail_status adds no second
 * message, and does not turn m_op's SKIP into a FAIL. */
static void fault_status_once(void **st)
{
	(void)st;
	struct check_ctx c = up("skylake", SF_NONE, 0, 1);
	assert_false(m_op(&c, HW_FAULT_GP, MO_READ, 1, 0));
	m_fail_status(&c, M_FAULT, 0, "gp0");
	assert_int_equal(c.n_fail, 1);
	c = up("skylake", SF_NONE, 0, 1);
	assert_false(m_op(&c, HW_UNSUPPORTED, MO_READ, 1, 0));
	m_fail_status(&c, M_FAULT, 0, "gp0");
	assert_int_equal(c.v, V_SKIP);
}

/* A register a check reads or writes itself: a fault FAILs naming the MSR
 * and the error; a good access leaves the verdict alone. Before, the check
 * judged the 0 a faulting read leaves behind. */
static void msr_access_named(void **st)
{
	(void)st;
	uint64_t v = 1;
	struct check_ctx c = up("skylake", SF_NONE, 0, 1);
	c.v = V_NONE;
	assert_true(m_rdmsr(&c, c.pmu->ctr[0].ctl_msr, &v));
	assert_true(m_wrmsr(&c, c.pmu->ctr[0].ctl_msr, 0));
	assert_int_equal(c.v, V_NONE);
	assert_false(m_rdmsr(&c, MISSING_MSR, &v));
	assert_int_equal(c.v, V_FAIL);
	assert_non_null(strstr(c.msg, "RDMSR 0x12345 failed: #GP"));
	c = up("skylake", SF_NONE, 0, 1);
	c.v = V_NONE;
	assert_false(m_wrmsr(&c, MISSING_MSR, 5));
	assert_non_null(strstr(c.msg, "WRMSR 0x12345 <- 0x5 failed: #GP"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(pmi_preload_named, teardown),
	    cmocka_unit_test_teardown(handler_rearm_named, teardown),
	    cmocka_unit_test_teardown(enable_stop_named, teardown),
	    cmocka_unit_test_teardown(status_read_named, teardown),
	    cmocka_unit_test_teardown(unsupported_skips, teardown),
	    cmocka_unit_test_teardown(msr_fault_named, teardown),
	    cmocka_unit_test(op_messages),
	    cmocka_unit_test(fault_status_once),
	    cmocka_unit_test(msr_access_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
