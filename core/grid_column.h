/* grid_column.h - a column of the dashboard's grid, as a collector offers it.
 *
 * The grid (tui/columns.c) shows its own columns (node, status, the time
 * service's source, offset, frequency, leap, ..., the clock check, round
 * trip, age) and, after them in the registry's order, the columns each
 * collector lists in its descriptor (core/collector.h).  A collector's
 * column reads only the observation: the grid dims it for an unreachable
 * node, prints "-" for a node without an observation, colours it by the
 * node's findings named in finding_codes, lays it out by `rank` and places
 * it by `place`.
 *
 * The grid's own columns, for choosing `place` (left to right) and `rank`
 * (what goes in first on a narrow screen):
 *     place  10 NODE, 20 STAT, 30 SOURCE, 40 ST, 50 OFFSET, 60 CLOCK,
 *            70 TREND, 80 FREQ, 90 SKEW, 100 LEAP, 140 TS, 150 RTT, 160 AGE
 *     rank    0 NODE, 1 STAT, 2 OFFSET, 3 FREQ, 4 LEAP, 5 TS, 6 SOURCE,
 *            8 AGE, 10 CLOCK, 11 TREND, 12 ST, 14 SKEW, 15 RTT
 * (the PTP collector's PORT, PTP OFFSET and PATH DELAY sit at places
 * 110..130 and ranks 7, 9, 13). */
#ifndef SYNCTOP_GRID_COLUMN_H
#define SYNCTOP_GRID_COLUMN_H

#include <stdbool.h>
#include <stddef.h>

#include "observation.h"

/* What a cell holds. */
typedef enum {
	GRID_CELL_VALUE = 0, /* out holds the value */
	GRID_CELL_UNKNOWN,   /* the value applies but is not known: "?" */
	GRID_CELL_NA,        /* the value does not apply to this node: "-", dimmed */
} grid_cell;

/* A sort key: numeric sorts on num (NAN = unknown, always last), text on
 * str ("" = unknown). */
typedef struct {
	bool numeric;
	double num;
	char str[80];
} grid_sort_key;

typedef struct grid_column {
	const char *title;   /* heading */
	const char *key;     /* its name in the sort indicator and the help */
	const char *help;    /* what it shows, one line for the help screen */
	int min_width, max_width;
	bool right;          /* numbers align right */
	bool sortable;
	bool descending;     /* first sort direction: biggest (worst) first */
	int place;           /* left-to-right position (above) */
	int rank;            /* layout priority: lower goes in first (above) */
	/* The cell's text (our formatting of numbers, or remote text the grid
	 * cleans before printing) for a node that answered at least once. */
	grid_cell (*cell)(const observation *obs, char *out, size_t out_len);
	/* Its sort key: what the cell shows, read from the model (sorting
	 * 10,000 nodes must not format and parse back). */
	void (*sort)(const observation *obs, grid_sort_key *key);
	/* The node has a value for it (the grid prefers columns some node has
	 * data for). */
	bool (*has_data)(const observation *obs);
	/* Finding codes about this value (they colour the cell), NULL-ended;
	 * NULL: none. */
	const char *const *finding_codes;
} grid_column;

#endif
