/* apic.self-ipi: a fixed self-IPI (xAPIC ICR shorthand self, x2APIC
 * SELF_IPI MSR; SDM Vol. 3A 11.6.1) on the harness's test vector reaches
 * our handler exactly once and is in service there; EOI clears the ISR bit
 * (SDM Vol. 3A 11.8.5), so that a second self-IPI is delivered too. Every
 * wait is bounded (apic_wait_us); a FAIL names the deliveries seen and
 * what the ISR held. */
#include "../../apic/apic.h"
#include "../../apic/isr.h"
#include "../../pmu/hw.h"
#include "../../pmu/percpu.h"
#include "../suite.h"

#define WAIT_US	  10000 /* delivery is immediate; 10 ms is generous */
#define SETTLE_US 1000	/* extra time in which a duplicate would show */

/* Per CPU (pmu/percpu.h): the handler counts on the CPU it runs on. */
struct ipi_seen {
	volatile unsigned hits, in_service;
};
static struct ipi_seen seen PMH_PERCPU;

static void on_ipi(struct int_frame *f)
{
	(void)f;
	PCPU(seen).hits++;
	if (apic_in_service(VEC_SPURIOUS_TEST))
		PCPU(seen).in_service++;
	apic_eoi();
}

static bool reached(const void *n)
{
	return PCPU(seen).hits >= *(const unsigned *)n;
}

/* The highest vector in service (ISR bits 255:0 as eight 32-bit registers
 * 16 bytes apart), what holds off a vector of its class or below; 0: none
 * (vectors 0-15 are never delivered, SDM Vol. 3A 11.5.2). */
static unsigned highest_in_service(void)
{
	for (unsigned k = 8; k-- > 0;) {
		uint32_t r = apic_read(APIC_ISR0 + k * 0x10);
		if (r)
			return k * 32 + 31 - (unsigned)__builtin_clz(r);
	}
	return 0;
}

/* Waits until `hits` reaches n or us microseconds pass. */
static void wait_hits(unsigned n, uint64_t us)
{
	apic_wait_us(reached, &n, us);
}

static void run(struct check_ctx *c)
{
	bool irq = hw_irq_enabled();
	unsigned first, second;
	bool isr_after;

	if (!c->apic || c->apic->mode == APIC_MODE_DISABLED) {
		check_skip(c, "the local APIC is disabled (IA32_APIC_BASE enable bit clear)");
		return;
	}
	PCPU(seen).hits = PCPU(seen).in_service = 0;
	isr_set_handler(VEC_SPURIOUS_TEST, on_ipi);
	if (!irq)
		hw_irq_enable(); /* a fixed interrupt needs IF = 1 */
	if (apic_self_ipi(VEC_SPURIOUS_TEST))
		check_fail(c, "expected the ICR to go idle, got delivery status still pending");
	wait_hits(1, WAIT_US);
	wait_hits(2, SETTLE_US);
	first = PCPU(seen).hits;
	isr_after = apic_in_service(VEC_SPURIOUS_TEST);
	if (apic_self_ipi(VEC_SPURIOUS_TEST))
		check_fail(c, "expected the ICR to go idle, got delivery status still pending");
	wait_hits(first + 1, WAIT_US);
	wait_hits(first + 2, SETTLE_US);
	second = PCPU(seen).hits - first;
	if (!irq)
		hw_irq_disable();
	isr_set_handler(VEC_SPURIOUS_TEST, 0);

	if (first != 1)
		check_fail(
		    c,
		    "expected 1 delivery of vector 0x%x within %u us, got %u (TPR 0x%x, highest "
		    "vector in service 0x%x)",
		    VEC_SPURIOUS_TEST, WAIT_US, first, apic_read(APIC_TPR), highest_in_service());
	if (PCPU(seen).in_service != PCPU(seen).hits)
		check_fail(c, "expected vector 0x%x in service in its handler, got %u of %u",
			   VEC_SPURIOUS_TEST, PCPU(seen).in_service, PCPU(seen).hits);
	if (isr_after)
		check_fail(c, "expected ISR bit 0x%x clear after EOI, got set", VEC_SPURIOUS_TEST);
	if (second != 1)
		check_fail(c,
			   "expected the second self-IPI delivered once after EOI, got %u (ISR bit "
			   "0x%x %s)",
			   second, VEC_SPURIOUS_TEST,
			   apic_in_service(VEC_SPURIOUS_TEST) ? "still set" : "clear");
	check_pass(c, "%s: 2 self-IPIs on vector 0x%x, each delivered once, in service until EOI",
		   apic_mode_name(c->apic->mode), VEC_SPURIOUS_TEST);
}

PMH_CHECK(apic_self_ipi, .id = "apic.self-ipi",
	  .summary = "a self-IPI reaches our handler once; EOI lets the next one in", .order = 21,
	  .run = run);
