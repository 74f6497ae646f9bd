/* dayview.h - the drill-down's day view (`d`): one node's offset and
 * frequency over the last hour, day or week, read from the --state-dir
 * database (state_store.h) rather than the hour-long rings.
 *
 * The query runs on the loop through a read-only connection of its own
 * (WAL: it never waits for the writer thread), averaged in SQL into one
 * value per plot column, so a week of one node is a single indexed range
 * scan (bench: bench/results/state.md gives its time).  It is re-read when
 * the node, the range or the width changes, and otherwise at most every
 * DAYVIEW_REFRESH_S, not at every frame. */
#ifndef SYNCTOP_DAYVIEW_H
#define SYNCTOP_DAYVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "doc.h"
#include "node.h"
#include "state_store.h"

#define DAYVIEW_REFRESH_S 5.0

typedef enum {
	DAYVIEW_OFF = 0,
	DAYVIEW_1H,
	DAYVIEW_24H,
	DAYVIEW_7D,
	DAYVIEW_RANGES
} dayview_range;

typedef struct {
	state_store *reader;   /* opened at first use, on `dir` */
	char dir[STATE_ERROR_LEN];
	/* what the arrays hold */
	dayview_range range;
	char host[NODE_NAME_LEN];
	int buckets;
	double fetched_at;     /* wall clock of the query, 0 = never */
	double *t, *offset_s, *frequency_ppm; /* buckets each */
	int found;             /* buckets with a value; -1: the query failed (err) */
	char err[STATE_ERROR_LEN];
	double query_s;        /* how long the last query took */
} dayview;

void dayview_init(dayview *dv);
void dayview_free(dayview *dv);

/* off -> 1 h -> 24 h -> 7 d -> off */
dayview_range dayview_next(dayview_range r);
double dayview_span_s(dayview_range r);
const char *dayview_name(dayview_range r);

/* Brings the series up to date for (range, host, buckets) at now from the
 * database in dir (NULL: no --state-dir; nothing is read). */
void dayview_refresh(dayview *dv, const char *dir, dayview_range range, const char *host, int buckets, double now);

/* Appends the day view's section to d (nothing when range is off): the
 * two plots, or one line saying why there is nothing to plot. */
void dayview_doc(doc *d, const dayview *dv, const char *dir, dayview_range range, double now, int width,
		 bool utf8);

#endif
