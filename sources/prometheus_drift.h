/* prometheus_drift.h - the frequency's trends (chrony.drift, per hour over
 * the last hour; chrony.drift_daily, per day over the last 7 days) as a
 * Prometheus server computes them from its own samples: the PromQL, and its
 * answer mapped to nodes.  Pure: text out, answers in.
 *
 * One query per window and server set, for the whole fleet, never one per
 * node: PromQL's deriv() is the least-squares slope per second of a gauge
 * over a range (the same fit drift_trend.h and the SSH rule make), so the
 * server sends one number per node.  Each family that says the frequency
 * is asked, tagged with label_replace so the answer says which one each
 * series is, and the most trusted per node kept, as prometheus_map.h does:
 *   chrony    chrony_tracking_frequency_ppms (chrony_exporter
 *             collector/tracking.go: "Rate by which the system's clock would
 *             be wrong if chronyd was not correcting it, in PPMs")
 *   synctop   synctop_chrony_frequency_ratio * 1e6 (synctop's textfile)
 *   timex     node_timex_frequency_adjustment_ratio (node_exporter
 *             collector/timex.go: 1 + timex.freq / (65536 * 1e6), the
 *             kernel's correction); chronyd sets the kernel's frequency to
 *             minus its own (chrony sys_timex.c set_frequency), so the slope
 *             is negated to read as chrony's.  chronyd moves the tick as
 *             well past +-50 ppm (sys_linux.c set_frequency): a window in
 *             which node_timex_tick_seconds changed has a 100 ppm step in
 *             the ratio and judges nothing.
 * A window judges only with enough history, as the SSH rules: at least
 * PROM_DRIFT_MIN_SAMPLES samples in the hour's window and one sample as old
 * as its span needs or older (10 minutes unless a group sets another); a
 * sample a day old or older in the week.
 * What no family answers stays unknown (NAN), never 0. */
#ifndef SYNCTOP_PROMETHEUS_DRIFT_H
#define SYNCTOP_PROMETHEUS_DRIFT_H

#include <stdbool.h>
#include <stddef.h>

#include "node.h"
#include "thresholds.h"
#include "prometheus_query.h"

typedef enum {
	PROM_DRIFT_HOUR = 0, /* ppm per hour over the last hour: chrony.drift */
	PROM_DRIFT_WEEK,     /* ppm per day over the last 7 days: chrony.drift_daily */
	PROM_DRIFT_COUNT,
} prom_drift_window;

#define PROM_DRIFT_WEEK_RANGE_S (7 * 86400.0) /* state_writer.h STATE_WRITER_DRIFT_SINCE_S */
#define PROM_DRIFT_WEEK_MIN_SPAN_S 86400.0    /* drift_trend.h DRIFT_TREND_MIN_SPAN_S */
#define PROM_DRIFT_MIN_SAMPLES 10             /* drift_trend.h DRIFT_TREND_MIN_SAMPLES */
/* The week's query reads every sample of a week of every node: asked every
 * 10 minutes, as the --state-dir writer recomputes its own trend (a trend
 * over days moves little in 10 minutes). */
#define PROM_DRIFT_WEEK_EVERY_S 600.0
/* ...and waited for up to 2 minutes: Prometheus's own default
 * --query.timeout (longer, the server gives up first). */
#define PROM_DRIFT_WEEK_TIMEOUT_S 120.0

/* The range a window's slope is taken over and the span of history it
 * needs before it judges.  The hour's is the node's own, as the SSH rule
 * reads it (chrony_drift_window_s and chrony_drift_min_span_s: a --config
 * group may set them); the week's is fixed, as the --state-dir trend's. */
typedef struct {
	double range_s;
	double min_span_s;
} prom_drift_span;
prom_drift_span prometheus_drift_span(prom_drift_window w, const thresholds *th);

/* Whether a server can answer a span at all: a range longer than the span
 * needed by 1 ms or more, PromQL's finest (the SSH rule never judges a
 * window no longer than its span either). */
bool prometheus_drift_span_askable(prom_drift_span span);

/* The families above, in order of trust. */
#define PROM_DRIFT_FAMILIES 3
#define PROM_DRIFT_ALL_FAMILIES (-1)

/* The PromQL of window w over span for one family (0 .. PROM_DRIFT_FAMILIES
 * - 1) or every one (PROM_DRIFT_ALL_FAMILIES, joined by `or`), restricted
 * by selector ("" or "{matchers}").  A family's query answers the same
 * series as its part of the whole: the answers of the parts, mapped
 * together (prometheus_drift_merge), are the whole's.  The length written,
 * or -1 when it does not fit in len or the span is not askable. */
int prometheus_drift_query(prom_drift_window w, prom_drift_span span, int family, const char *selector, char *buf,
			   size_t len);
/* Room for any of them, every family's included, with a selector of 1,024
 * characters. */
#define PROM_DRIFT_QUERY_MAX 24576

/* Naming by "nodename": node_uname_info's nodename of each instance, from
 * an answer to the query below (node_uname_info's instance and nodename,
 * with the selector, asked first), joined to the trends' series here rather than in PromQL: there
 * the join that keeps an instance without node_uname_info evaluates each
 * family's expression twice, twice a week of samples read. */
typedef struct {
	char *instance;
	char *nodename;
	size_t order;           /* in the answer */
} prom_drift_name;
typedef struct {
	prom_drift_name *names; /* sorted by instance */
	size_t n;
} prom_drift_names;
int prometheus_drift_names_query(const char *selector, char *buf, size_t len);
void prometheus_drift_names_read(const prom_matrix *m, prom_drift_names *out);
void prometheus_drift_names_free(prom_drift_names *names);

/* What one node's trend is asked by: the server set that serves it
 * (prometheus_history_origin) and its window's span. */
typedef struct {
	size_t set;
	prom_drift_span span;
} prom_drift_key;

/* One query per distinct key among the n nodes' (never one per node):
 * query_of[i] is node i's query, numbered in order of first appearance;
 * the number of queries.  *first (freed by the caller) is each query's
 * first node, whose key it asks. */
size_t prometheus_drift_plan(const prom_drift_key *keys, size_t n, size_t *query_of, size_t **first);

typedef struct {
	char name[NODE_NAME_LEN];
	double value;  /* ppm/h (PROM_DRIFT_HOUR) or ppm/day (PROM_DRIFT_WEEK) */
	int family;    /* 0 chrony, 1 synctop, 2 timex: lower is trusted more */
} prom_drift_value;

typedef struct {
	prom_drift_value *values; /* sorted by name, one per node */
	size_t n;
} prom_drift_result;

/* The nodes' trends from an answer to the query above (an instant query's
 * vector, or a range query over one instant: each series' newest point),
 * named by node_label as prometheus_map.h says (NULL: instance without its
 * port; a label: that label; "nodename": its instance's in names, else its
 * instance without the port; synctop's series by `node` always);
 * a series naming no node, not tagged, or not finite says nothing.  names
 * may be NULL.  out is initialised here; free it with prometheus_drift_free. */
void prometheus_drift_map_vector(const prom_vector *v, const char *node_label, const prom_drift_names *names,
				 prom_drift_result *out);
void prometheus_drift_map_matrix(const prom_matrix *m, const char *node_label, const prom_drift_names *names,
				 prom_drift_result *out);

/* part's values added to into's (both from prometheus_drift_map_*), the
 * most trusted family's kept per node, as one answer of both would be. */
void prometheus_drift_merge(prom_drift_result *into, const prom_drift_result *part);

/* The node's trend, or NAN. */
double prometheus_drift_find(const prom_drift_result *r, const char *name);

void prometheus_drift_free(prom_drift_result *r);

#endif
