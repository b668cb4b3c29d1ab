/* The machine's screen as a layout, apart from any firmware: a fixed
 * identification header, a progress row, a results area that fits the
 * screen and, at the end, a large coloured verdict box (or a crash panel).
 * It is fed events and the output lines, and lays them out on a W x H grid
 * of characters with a colour per cell; the platform paints the grid (the
 * UEFI image through ConOut, boot/screen_efi.c). The serial port and the
 * log keep the plain lines; this is only what a person reads. */
#ifndef PMH_TESTS_SCREEN_H
#define PMH_TESTS_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Colours as UEFI numbers them (UEFI spec, SIMPLE_TEXT_OUTPUT SetAttribute):
 * a cell's attribute is fg | bg << 4, bg one of the first eight. */
enum screen_colour {
	SC_BLACK,
	SC_BLUE,
	SC_GREEN,
	SC_CYAN,
	SC_RED,
	SC_MAGENTA,
	SC_BROWN,
	SC_LIGHTGRAY,
	SC_DARKGRAY,
	SC_LIGHTBLUE,
	SC_LIGHTGREEN,
	SC_LIGHTCYAN,
	SC_LIGHTRED,
	SC_LIGHTMAGENTA,
	SC_YELLOW,
	SC_WHITE,
};
#define SCREEN_ATTR(fg, bg) ((uint8_t)((fg) | (bg) << 4))

/* The verdict box's colours (docs/user-guide.md "The screen"). */
#define SCREEN_PASS	  SCREEN_ATTR(SC_WHITE, SC_GREEN)
#define SCREEN_FAIL	  SCREEN_ATTR(SC_WHITE, SC_RED)
#define SCREEN_ERROR	  SCREEN_ATTR(SC_RED, SC_LIGHTGRAY)
#define SCREEN_NO_PMU	  SCREEN_ATTR(SC_BLACK, SC_BROWN)
#define SCREEN_NO_VERDICT SCREEN_ATTR(SC_WHITE, SC_BLUE)
#define SCREEN_CRASH	  SCREEN_ATTR(SC_YELLOW, SC_MAGENTA)

struct screen_cell {
	char ch;
	uint8_t attr;
};

/* What the header shows; any string may be NULL ("unknown"). */
struct screen_ident {
	const char *version, *brand, *driver, *apic_mode, *board, *firmware;
	unsigned family, model, stepping, microcode;
	bool microcode_valid;
	unsigned pmu_version, n_gp, gp_width, n_fixed, fixed_width;
};

enum screen_ev {
	SEV_START,    /* a run begins: the layout replaces the scrolling lines */
	SEV_IDENT,    /* ident */
	SEV_PROGRESS, /* check i of n (from 1), id, on cpu, elapsed_us */
	SEV_END,      /* the run's verdict (enum run_verdict) and saved */
};

struct screen_event {
	enum screen_ev kind;
	const struct screen_ident *ident;
	unsigned i, n, cpu;
	const char *id;
	uint64_t elapsed_us; /* PROGRESS and END */
	int verdict;
	bool saved;
};

#define SCREEN_ID_MAX	      40
#define SCREEN_REASON_MAX     100
#define SCREEN_MAX_ROWS	      160
#define SCREEN_MAX_REASONS    48
#define SCREEN_CRASH_LINES    4
#define SCREEN_CRASH_LINE_MAX 112
#define SCREEN_MAX_EV_TEXTS   64 /* event.semantics' coverage and failing rows */

/* An unexpected exception as it was reported: the "fatal:" lines (vector,
 * error code, RIP, registers) and the last check started, with its CPU
 * (on an AP, whose checks report no progress, the exception may be in a
 * later one). The record a results document may carry. */
struct screen_crash {
	char check[SCREEN_ID_MAX];
	unsigned cpu;
	char line[SCREEN_CRASH_LINES][SCREEN_CRASH_LINE_MAX];
	unsigned n;
};

struct screen_row {
	/* 'P', 'F', 'S' (verdicts), 'E' error, 'W' warning; 'C' a catalogue's
	 * coverage and 'X' a failing event of event.semantics (its lines
	 * "  event.coverage: ..." and "  event: FAIL ...", report_events.h),
	 * whose text is in ev_text */
	char kind;
	uint8_t reason;
	char id[SCREEN_ID_MAX];
};

struct screen {
	unsigned w, h;
	struct screen_cell *grid; /* w * h cells, the caller's */
	bool started, ended;
	char head[5][SCREEN_REASON_MAX]; /* the header's text rows */
	char progress[SCREEN_REASON_MAX];
	char prompt[SCREEN_REASON_MAX];
	char why[SCREEN_REASON_MAX];	   /* the verdict's reason */
	char files[SCREEN_REASON_MAX];	   /* the results files' names */
	char where[SCREEN_REASON_MAX * 2]; /* why the results are not in files */
	int verdict;
	bool saved;
	unsigned cpu, n_cpus;
	struct screen_row rows[SCREEN_MAX_ROWS];
	unsigned n_rows, dropped;
	char reason[SCREEN_MAX_REASONS][SCREEN_REASON_MAX];
	unsigned n_reasons;
	/* SKIP results per reason, every one counted: a check skipped again
	 * for the same reason (on another CPU) adds no row, and rows that
	 * left the table still count in the shared reason's line */
	unsigned reason_skips[SCREEN_MAX_REASONS];
	char ev_text[SCREEN_MAX_EV_TEXTS][SCREEN_REASON_MAX];
	unsigned n_ev_texts;
	/* 1 + the index of the first row of event lines that waits for its
	 * check's row (event.semantics prints them before it); 0: none */
	unsigned ev_pending;
	struct screen_crash crash;
};

/* A screen of w x h cells (at least 40 x 12) over grid; nothing shown. */
void screen_init(struct screen *s, unsigned w, unsigned h, struct screen_cell *grid);
void screen_event(struct screen *s, const struct screen_event *ev);
/* An output line ("PASS id msg", "SKIP id: msg", "error: ..."): the
 * results area keeps the verdicts, errors and warnings, and where the
 * results files went; event.semantics' coverage lines and failing events
 * follow that check's row. */
void screen_line(struct screen *s, const char *line);
/* A prompt for the person at the machine (the bottom row). */
void screen_prompt(struct screen *s, const char *line);
/* A "fatal:" line from exception context: memory only, no call out. */
void screen_fatal(struct screen *s, const char *line);
/* The layout into the grid. */
void screen_render(struct screen *s);

/* Between screen.c and screen_events.c, not for callers. A row's reason
 * (or ev_text) index that did not fit its table: */
#define SCREEN_NO_TEXT 0xff
/* Failures, errors and failing events: rows kept whatever else goes. */
bool screen_row_kept(char kind);
/* A row of kind with id[0..id_len) and its text (reasons or ev_text);
 * the oldest row that is no failure goes when the table is full. A SKIP
 * whose check (its id without "@cpuN") has a row for the same reason is
 * counted there and adds none: false then. */
bool screen_add_row(struct screen *s, char kind, const char *id, size_t id_len, const char *why);
/* A result line's row, event.semantics' before the event rows that wait
 * for it; an event line as a waiting row (false: not one). */
void screen_result_row(struct screen *s, char kind, const char *id, size_t id_len, const char *why);
bool screen_event_line(struct screen *s, const char *line);
/* The text of a 'C' or 'X' row into buf (n bytes); returns buf. */
const char *screen_event_row_text(const struct screen *s, const struct screen_row *w, char *buf,
				  size_t n);

#endif
