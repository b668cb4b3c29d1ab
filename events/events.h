/* The event catalogue: one table per PMU family, typed from the public
 * documents each table names (vendor manuals, Linux), lookup by name or raw
 * encoding, validation and listing (the generic-event maps ship in the drivers'
 * generic_event). Freestanding C11.
 *
 * Event specification syntax (the `event` option, `--event SPEC`):
 *
 *   NAME[,key...]                 a catalogue name, case-insensitive
 *                                 (L2_RQSTS.DEMAND_DATA_RD_MISS, retired_instructions)
 *   event=E[,umask=U][,key...]    raw P6/arch/AMD/KNC encoding; E up to 0xfff on AMD
 *                                 (bits 35:32 of the event select hold E[11:8])
 *   0xUUEE or rUUEE               raw config in Linux's layout: bits 7:0 event,
 *                                 15:8 umask, 18 edge, 23 inv, 31:24 cmask,
 *                                 35:32 AMD event[11:8] (r00c0 = 0xc0 = event 0xc0)
 *   escr=A,event=E,mask=M[,escr_sel=S][,key...]
 *                                 NetBurst: ESCR address (thread 0), ESCR event
 *                                 select, ESCR event mask (ESCR bits 24:9 >> 9)
 *
 *   keys: counter=N (flat counter the event must run on), cmask=N, inv, edge.
 *
 * Numbers are decimal or 0x hex. Every spec resolves to a verdict:
 *   EV_OK       the encoding is documented;
 *   EV_WARN     allowed but suspect (e.g. an L2_RQSTS unit mask without an
 *               origin or without a result bit counts nothing; a raw event the
 *               catalogue does not cover on a family whose table is partial);
 *   EV_REFUSED  unknown name, reserved/undocumented event on a family whose
 *               document lists every event, counter not allowed, parse error.
 */
#ifndef PMH_EVENTS_EVENTS_H
#define PMH_EVENTS_EVENTS_H

#include "../pmu/pmu.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Entry flags. */
#define EVF_SUB		   (1u << 0) /* a unit-mask / event-mask sub-event of the entry's event */
#define EVF_FIXED	   (1u << 1) /* fixed-counter pseudo event (fixed_index) */
#define EVF_DOC_WRONG	   (1u << 2) /* as published, but documented incorrectly */
#define EVF_CORRECTED	   (1u << 3) /* corrected variant; not a vendor name */
#define EVF_NB		   (1u << 4) /* AMD northbridge event (one core per node) */
#define EVF_FACTS_MAP	   (1u << 5) /* from Linux's event map, not a vendor table */
#define EVF_CTR_RESTRICTED (1u << 6) /* only on the counters in .counters */

/* One catalogue entry. */
struct event_def {
	const char *name;
	uint16_t code;	     /* event select (AMD: 12 bits); NetBurst: ESCR event select */
	uint8_t umask;	     /* unit mask this entry programs */
	uint8_t umask_bits;  /* unit-mask bits the document defines for this event code */
	uint32_t escr_mask;  /* NetBurst: ESCR event mask this entry programs */
	uint32_t escr_bits;  /* NetBurst: event-mask bits the document defines */
	uint32_t escr_msr;   /* NetBurst: ESCR address, thread 0 */
	uint8_t escr_select; /* NetBurst: CCCR ESCR-select */
	uint32_t counters;   /* allowed flat counters; 0 = any GP counter */
	int8_t fixed_index;  /* EVF_FIXED: fixed counter number; else -1 */
	int8_t cpuid_bit;    /* Intel arch: CPUID.0AH:EBX bit; else -1 */
	uint16_t flags;	     /* EVF_* */
	const char *desc;    /* one line from the document */
};

enum ev_verdict { EV_OK, EV_WARN, EV_REFUSED };

struct event_table;
struct sem_rule;
/* Family-specific check of a (code, umask, PMU_F_* flags) request. Sets *known
 * when the document defines the encoding (e.g. any OR of a K8 event's unit-mask
 * bits); returns EV_OK when it has nothing against it, else the verdict with
 * the reason in msg. */
typedef enum ev_verdict (*event_rule_fn)(const struct event_table *t, uint16_t code, uint8_t umask,
					 uint32_t flags, bool *known, char *msg, size_t n);

struct event_table {
	const char *id; /* "amd-k8", "intel-skylake", ... */
	const char *title;
	const char *doc; /* the document the entries come from */
	enum pmu_driver_id driver;
	unsigned family_min, family_max; /* display family range */
	const uint16_t *models;		 /* display models it applies to; 0 = all */
	size_t n_models;
	bool complete;	    /* the document lists every event: raw codes outside are refused */
	bool netburst;	    /* entries use the ESCR fields */
	uint16_t max_code;  /* widest event select the family has */
	uint8_t n_counters; /* GP counters the document gives; 0 = CPUID decides */
	event_rule_fn rule; /* may be 0 */
	const struct event_def *ev;
	size_t n;
	/* What the validated events must count (events/semantics.h), ended
	 * by an entry without an event; 0: none. */
	const struct sem_rule *sem;
};

/* The family tables (one file each under events/). */
extern const struct event_table events_amd_k7, events_amd_k8, events_amd_zen, events_intel_knc,
    events_intel_netburst, events_intel_arch, events_intel_skylake, events_intel_p6;

/* NetBurst ESCR names by address (SDM NetBurst 'ESCR MSRs'); 0 when addr is no ESCR. */
const char *events_netburst_escr_name(uint32_t addr);
size_t events_netburst_escr_count(void);

/* A PerfEvtSel field (AMD K7 document; the same layout as K8 BKDG §10.2). */
struct evsel_field {
	const char *name;
	uint8_t lo, hi;
	const char *desc;
};
extern const struct evsel_field events_amd_k7_fields[];
extern const size_t events_amd_k7_nfields;

/* Pass as model to mean "any model" (listing every table of the family). */
#define EVENTS_ANY_MODEL 0xffffffffu
/* Room for the tables of one CPU: there are eight tables in all. */
#define EVENTS_MAX_TABLES 8
/* Counter masks (event_def.counters, pmu_event.counters) are 32 bits wide:
 * flat counters 0..31. */
#define EVENTS_FLAT_COUNTERS 32
/* Event selects are 8 bits wide but on AMD Fam15h and later, whose 12 bits
 * put event[11:8] in PerfEvtSel 35:32 (AMD APM Vol. 2 #24593 §13.2). */
#define EVENTS_CODE_MAX	    0xffu
#define EVENTS_CODE_MAX_AMD 0xfffu
/* Room for a verdict's reason (struct ev_result.msg). */
#define EVENTS_MSG_MAX 192

/* The AMD drivers (legacy and core extension) share the AMD tables. */
static inline bool events_driver_is_amd(enum pmu_driver_id d)
{
	return d == PMU_DRV_AMD_LEGACY || d == PMU_DRV_AMD_CORE;
}
/* The tables that apply to a driver, display family and model. */
size_t events_tables_for(enum pmu_driver_id d, unsigned family, unsigned model,
			 const struct event_table **out, size_t max);
/* Case-insensitive name lookup across the applicable tables. */
const struct event_def *events_find(enum pmu_driver_id d, unsigned family, unsigned model,
				    const char *name, const struct event_table **table);
/* Case-insensitive name lookup in one table; 0 when it has no such entry. */
const struct event_def *events_find_in(const struct event_table *t, const char *name);
/* Exact (code, umask) lookup in one table; NetBurst tables match (escr, code, mask). */
const struct event_def *events_find_raw(const struct event_table *t, uint16_t code, uint8_t umask,
					uint32_t escr_msr, uint32_t escr_mask);
/* The encoding a catalogue entry programs, named after it. */
void events_def_event(const struct event_def *e, struct pmu_event *ev);

/* The outcome of resolving a spec. */
struct ev_result {
	enum ev_verdict verdict;
	char msg[EVENTS_MSG_MAX];	 /* reason for EV_WARN / EV_REFUSED */
	struct pmu_event ev;		 /* the resolved encoding */
	const struct event_def *def;	 /* catalogue entry, 0 if none */
	const struct event_table *table; /* its table */
	int counter;			 /* counter=N, or -1 */
	uint32_t flags;			 /* PMU_F_EDGE / PMU_F_INV / PMU_F_CMASK from the spec */
};

/* Parses and validates a spec for the CPU (syntax above). */
enum ev_verdict events_resolve(enum pmu_driver_id d, unsigned family, unsigned model,
			       const char *spec, struct ev_result *r);
/* Whether a resolved event may run on flat counter ctr. */
enum ev_verdict events_check_counter(const struct pmu_event *ev, unsigned ctr, char *msg, size_t n);
/* "event=0xc0,umask=0x00" / NetBurst "escr=0x3b8,event=0x02,mask=0x0001,escr_sel=4". */
size_t events_format(const struct pmu_event *ev, bool netburst, char *buf, size_t n);

/* Fixed counter of an arch fixed pseudo event (0x00c0, 0x003c, 0x0300, 0x0400), else -1. */
int events_fixed_index(const struct pmu_event *ev);

/* Line output (same shape as the suite's sink). */
struct events_sink {
	void (*line)(void *ctx, const char *s);
	void *ctx;
};

/* Prints the tables for the CPU, one line per entry, as text or JSON (one
 * JSON document, an entry per line). Returns the number of entries. */
size_t events_list(enum pmu_driver_id d, unsigned family, unsigned model, bool json,
		   const struct events_sink *out);

/* What the harness does with the list_events / json / event options, for the
 * target's boot code and the simulator alike. */
enum events_opt {
	EVOPT_NONE,	/* nothing asked */
	EVOPT_LISTED,	/* a listing was printed: stop there */
	EVOPT_RESOLVED, /* event resolved (maybe with a warning line): continue */
	EVOPT_REFUSED	/* "error: ..." printed, naming at: the run goes on without it */
};
/* at: where the event option was set ("pmuharness.cfg line 3"), for the
 * message when this CPU refuses it. */
enum events_opt events_handle_options(enum pmu_driver_id d, unsigned family, unsigned model,
				      bool list, bool json, const char *event, const char *at,
				      const struct events_sink *out, struct ev_result *r);

#endif
