/* Register layout of the "pentium4" model's sim_cpu.reg[], for unit tests
 * that poke the model state directly (e.g. an overflow without CCCR.OVF). */
#ifndef PMH_SIM_MODEL_NETBURST_H
#define PMH_SIM_MODEL_NETBURST_H

#define P4SIM_CCCR(i)	  (i)	     /* CCCR i, 0..17 */
#define P4SIM_ESCR(k)	  (20 + (k)) /* ESCR k of the model's table, 0..45 */
#define P4SIM_MISC_ENABLE 70	     /* IA32_MISC_ENABLE */
#define P4SIM_LASTW(i)	  (71 + (i)) /* N15: the last value written to counter i, 0..17 */
#define P4SIM_CCCR_OVF	  (1ull << 31)
/* The last 16 MSR addresses written (a ring), to check write order. */
#define P4SIM_WLOG_N  95		/* writes so far */
#define P4SIM_WLOG(k) (96 + ((k) % 16)) /* address of write number k */

#include <stdint.h>
struct sim_cpu;
struct workload_vector;
/* Events per workload iteration of the ESCR at escr with event select
 * event and event mask mask (netburst_events.c). */
uint64_t p4sim_event(const struct sim_cpu *s, uint32_t escr, unsigned event, unsigned mask,
		     const struct workload_vector *v);

#endif
