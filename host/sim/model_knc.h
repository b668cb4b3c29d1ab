/* Register layout of the "knc" model's sim_cpu.reg[], for unit tests. */
#ifndef PMH_SIM_MODEL_KNC_H
#define PMH_SIM_MODEL_KNC_H

#define KNCSIM_EVNTSEL(i) (i) /* IA32_PerfEvtSel0/1 */
#define KNCSIM_SPFLT	  2   /* PERF_SPFLT_CONTROL */
#define KNCSIM_STATUS	  3   /* IA32_PERF_GLOBAL_STATUS */
#define KNCSIM_CTRL	  4   /* IA32_PERF_GLOBAL_CTRL */

#endif
