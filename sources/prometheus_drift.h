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
 * PROM_DRIFT_MIN_SAMPLES samples in the hour and one sample 10 minutes old
 * or older (its span >= 10 min); a sample a day old or older in the week.
 * What no family answers stays unknown (NAN), never 0. */
#ifndef SYNCTOP_PROMETHEUS_DRIFT_H
#define SYNCTOP_PROMETHEUS_DRIFT_H

#include <stddef.h>

#include "node.h"
#include "prometheus_query.h"

typedef enum {
	PROM_DRIFT_HOUR = 0, /* ppm per hour over the last hour: chrony.drift */
	PROM_DRIFT_WEEK,     /* ppm per day over the last 7 days: chrony.drift_daily */
	PROM_DRIFT_COUNT,
} prom_drift_window;

#define PROM_DRIFT_HOUR_RANGE_S 3600.0    /* thresholds.c chrony_drift_window_s */
#define PROM_DRIFT_HOUR_MIN_SPAN_S 600.0  /* thresholds.c chrony_drift_min_span_s */
#define PROM_DRIFT_WEEK_RANGE_S (7 * 86400.0) /* state_writer.h STATE_WRITER_DRIFT_SINCE_S */
#define PROM_DRIFT_WEEK_MIN_SPAN_S 86400.0    /* drift_trend.h DRIFT_TREND_MIN_SPAN_S */
#define PROM_DRIFT_MIN_SAMPLES 10             /* drift_trend.h DRIFT_TREND_MIN_SAMPLES */
/* The week's query reads every sample of a week of every node: asked every
 * 10 minutes, as the --state-dir writer recomputes its own trend (a trend
 * over days moves little in 10 minutes). */
#define PROM_DRIFT_WEEK_EVERY_S 600.0

/* The PromQL of window w, restricted by selector ("" or "{matchers}"),
 * naming nodes by node_label as prometheus_map.h says (NULL: instance
 * without its port; "nodename": node_uname_info's, joined on instance).
 * The length written, or -1 when it does not fit in len. */
int prometheus_drift_query(prom_drift_window w, const char *selector, const char *node_label, char *buf,
			   size_t len);

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
 * named by node_label; a series naming no node, not tagged, or not finite
 * says nothing.  out is initialised here; free it with prometheus_drift_free. */
void prometheus_drift_map_vector(const prom_vector *v, const char *node_label, prom_drift_result *out);
void prometheus_drift_map_matrix(const prom_matrix *m, const char *node_label, prom_drift_result *out);

/* The node's trend, or NAN. */
double prometheus_drift_find(const prom_drift_result *r, const char *name);

void prometheus_drift_free(prom_drift_result *r);

#endif
