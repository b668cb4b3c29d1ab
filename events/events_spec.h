/* An event specification taken apart into its items (the syntax is in
 * events.h). Internal to events/: events_resolve.c judges the items
 * against the catalogue. */
#ifndef PMH_EVENTS_EVENTS_SPEC_H
#define PMH_EVENTS_EVENTS_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A numeric key=value item. */
struct ev_num {
	bool given;
	uint64_t val;
};

struct ev_spec {
	char name[64];			     /* catalogue name, "" for a raw spec */
	struct ev_num event, umask, counter; /* event=, umask= (or a raw config), counter= */
	struct ev_num escr, mask, sel;	     /* NetBurst: escr=, mask=, escr_sel= */
	uint32_t flags;			     /* PMU_F_EDGE / PMU_F_INV / PMU_F_CMASK */
};

/* Parses spec into p; returns 0, or -1 with the reason in msg. */
int ev_spec_parse(const char *spec, struct ev_spec *p, char *msg, size_t n);

#endif
