/* remote_history.h - a node's history as a remote store holds it (the last
 * 24 h of its offset, frequency and PTP offset from Prometheus's
 * query_range), fetched
 * when its drill-down opens.  Part of the model: the source writes it, the
 * drill-down only reads it.  A node read over SSH has none (node.remote is
 * NULL) and plots its own ring (history.h). */
#ifndef SYNCTOP_REMOTE_HISTORY_H
#define SYNCTOP_REMOTE_HISTORY_H

#include <stddef.h>

typedef enum {
	REMOTE_HISTORY_LOADING = 0, /* asked, no answer yet */
	REMOTE_HISTORY_READY,       /* answered (a series may still be empty) */
	REMOTE_HISTORY_FAILED,      /* error says why */
} remote_history_state;

typedef enum {
	REMOTE_SERIES_OFFSET = 0, /* node - reference, s */
	REMOTE_SERIES_FREQUENCY,  /* ppm */
	REMOTE_SERIES_PTP_OFFSET, /* offsetFromMaster, node - master, ns */
	REMOTE_SERIES_COUNT
} remote_series_id;

typedef struct {
	double *t;           /* n times, ascending, then n values: one block */
	double *v;
	size_t n;
	char what[64];       /* where it came from: "chrony_exporter", ... */
} remote_series;

typedef struct remote_history {
	remote_history_state state;
	char error[300];
	double asked_at;     /* client unix time of the request */
	double start, end;   /* the range asked for */
	double step;         /* s between points */
	unsigned pending;    /* queries not answered yet */
	remote_series series[REMOTE_SERIES_COUNT];
} remote_history;

/* A new, empty history in state LOADING for [start, end] every step s. */
remote_history *remote_history_new(double asked_at, double start, double end, double step);

/* Takes a copy of n points into series id (replacing what it held). */
void remote_history_set(remote_history *h, remote_series_id id, const double *t, const double *v, size_t n,
			const char *what);

void remote_history_free(remote_history *h);

#endif
