/* columns.h - the grid's columns: what each shows for a node, how it sorts,
 * and which of them fit in a given width.
 *
 * Pure: reads the model, writes text.  Cells hold our own formatting of
 * numbers plus remote text already cleaned by tw_clean(), so the grid can
 * print them as they are. */
#ifndef SYNCTOP_COLUMNS_H
#define SYNCTOP_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grid_column.h"
#include "node.h"

/* A column: the grid's own (below, fixed numbers) or one a collector
 * offers (core/grid_column.h), numbered after them in the registry's order.
 * The number is an identity, not a position: columns are shown by their
 * `place`. */
typedef int column_id;

enum {
	COL_NODE = 0,
	COL_STATUS,
	COL_SOURCE,     /* chrony reference or PTP grandmaster */
	COL_STRATUM,    /* chrony stratum or PTP stepsRemoved */
	COL_OFFSET,     /* chrony system time offset */
	COL_CLOCK,      /* the independent clock check: node - this machine */
	COL_SPARK,      /* offset trend */
	COL_FREQ,
	COL_SKEW,
	COL_LEAP,
	COL_HWTS,       /* HW / SW / none / ? (ethtool and ptp4l together) */
	COL_RTT,
	COL_AGE,        /* of the last completed poll */
	COL_CORE_COUNT  /* the collectors' columns follow */
};

/* Every column fits a column_mask: the registry's invariants test
 * (test_probe) checks that the collectors' columns stay within it. */
#define COLUMNS_MAX 64
typedef uint64_t column_mask;
#define COLUMN_BIT(id) ((column_mask)1 << (unsigned)(id))

typedef grid_column column_info;

/* The number of columns (the grid's and the collectors'). */
int columns_count(void);

/* The column whose key is `key` ("ptp-offset"), or -1. */
column_id columns_find(const char *key);

/* Every column id, left to right as the grid would show them (by place);
 * returns how many. */
int columns_in_place_order(column_id ids[COLUMNS_MAX]);

/* The column's description; id out of range gives the node column's. */
const column_info *columns_info(column_id id);

/* How a cell should look; the grid maps tones to theme roles. */
typedef enum {
	TONE_PLAIN = 0,
	TONE_WARN,     /* a finding about this value is a warning */
	TONE_CRIT,
	TONE_DIM,      /* stale (node unreachable) or not applicable */
	TONE_BADGE,    /* the status column: drawn as the node's status badge */
} cell_tone;

#define CELL_TEXT_LEN 512

typedef struct {
	char text[CELL_TEXT_LEN];
	cell_tone tone;
} column_cell;

/* One cell.  width matters for the sparkline (one bar per column) only.
 * now is the client's wall clock (for the age).  Unknown values print "?",
 * values that do not apply to the node "-". */
void columns_cell(const node *nd, column_id id, int width, double now, bool utf8, column_cell *out);

/* The tone the node's findings give a column's value: TONE_CRIT, TONE_WARN
 * or TONE_PLAIN (e.g. a chrony.offset warning makes the offset warn). */
cell_tone columns_finding_tone(const node *nd, column_id id);

/* The node's sync source as the SOURCE column shows it, raw (not cleaned:
 * for matching, not for printing).  "" when there is none. */
void columns_source(const node *nd, char *out, size_t out_len);

/* COLUMN_BIT(column) set for each column this node has data for. */
column_mask columns_data_mask(const node *nd);

typedef struct {
	int n;                  /* columns shown, left to right */
	column_id id[COLUMNS_MAX];
	int x[COLUMNS_MAX];
	int width[COLUMNS_MAX];
	bool offset_shares_ptp; /* no PTP OFFSET column: OFFSET shows it (columns_offset_cell) */
} column_layout;

/* Chooses columns for a screen `width` wide.  Columns go in by rank, what an
 * operator needs most (grid_column.h): node, status, offset, frequency,
 * leap, timestamping, then source, port, age, PTP offset, clock, trend,
 * stratum, path delay, skew, rtt; first those some node has data for
 * (data_mask), then the rest while room is left.  At 80 columns node,
 * status, offset, frequency, leap and timestamping always fit.  When some
 * node has a PTP offset but its column does not fit, the OFFSET column shows
 * it (offset_shares_ptp).  Spare room widens node (up to node_width, the
 * longest host name), the collectors' columns (port), source and the
 * sparkline.  Shown left to right by place. */
void columns_layout(int width, column_mask data_mask, int node_width, column_layout *out);

/* The OFFSET column's heading: "OFFSET", or "OFFSET/PTP" when it shares. */
const char *columns_offset_title(const column_layout *l);

/* The OFFSET cell when it shares the PTP offset's column: chrony's offset,
 * or for a node without one that follows a PTP master its PTP offset,
 * marked "P " (the heading says OFFSET/PTP). */
void columns_offset_cell(const node *nd, double now, bool utf8, column_cell *out);

/* Sort keys.  A numeric key sorts on num (NAN = unknown, always last), a
 * text key on str. */
typedef grid_sort_key sort_key;

void columns_sort_key(const node *nd, column_id id, double now, sort_key *out);


/* |offset| the default order breaks ties with: chrony's, else PTP's (in
 * seconds); NAN when neither is known. */
double columns_abs_offset(const node *nd);

#endif
