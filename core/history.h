/* history.h - per-node ring buffers of the numbers we plot and trend.
 *
 * Fixed capacity (HISTORY_CAPACITY samples, one hour at a 1 s poll), so a
 * node's memory is constant.  Missing values are stored as NAN. */
#ifndef SYNCTOP_HISTORY_H
#define SYNCTOP_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#define HISTORY_CAPACITY 3600
/* independent clock checks: every 30 s by default, so an hour of them */
#define HISTORY_CLOCK_CAPACITY 128

typedef enum {
	HISTORY_OFFSET_S = 0,   /* chrony system time offset, node - reference */
	HISTORY_FREQUENCY_PPM,
	HISTORY_SKEW_PPM,
	HISTORY_PTP_OFFSET_NS,
	HISTORY_PATH_DELAY_NS,
	HISTORY_PHC_SYS_OFFSET_NS, /* system clock - PHC (system_clock.h), ns */
	HISTORY_SERIES_COUNT
} history_series;

typedef struct {
	double t;                            /* client unix time of the sample */
	float value[HISTORY_SERIES_COUNT];   /* NAN when unknown */
} history_sample;

/* One independent clock check (observation.h's clock_check_obs): node -
 * client at the client's unix time t. */
typedef struct {
	double t;
	float offset_s;
} history_clock_check;

typedef struct {
	/* The frequency's trend over days in ppm/day (drift_trend.h), from
	 * the --state-dir database: NAN until a day of it is stored. */
	double drift_daily_ppm;
	/* The same trends as a Prometheus server computes them from its own
	 * samples (prometheus_drift.h): ppm per hour over its last hour, ppm
	 * per day over its last 7 days; NAN until it answers one with enough
	 * history.  Where known they are what the drift rules judge. */
	double remote_drift_hourly_ppm;
	double remote_drift_daily_ppm;
	size_t head;   /* next slot to write */
	size_t count;  /* valid samples, <= capacity */
	size_t capacity; /* slots of samples in use: HISTORY_CAPACITY unless set smaller */
	/* the counters first: a node that never fills the rings (a Prometheus
	 * node keeps 128 samples and no clock checks) never touches their
	 * pages, and they cost it no memory */
	size_t clock_head, clock_count;
	history_sample samples[HISTORY_CAPACITY];
	history_clock_check clock[HISTORY_CLOCK_CAPACITY];
} history;

/* The frequency's trend over days the drift rule judges: the Prometheus
 * server's where known, else the --state-dir database's (NAN: neither). */
double history_drift_daily(const history *h);

/* Empty, with the full capacity. */
void history_init(history *h);

/* Empties h and keeps at most cap (1..HISTORY_CAPACITY) samples: a node
 * whose history is fetched elsewhere (a Prometheus node's, from
 * query_range) keeps the grid's sparkline, and the memory of the slots
 * beyond cap is never touched. */
void history_set_capacity(history *h, size_t cap);
void history_push(history *h, const history_sample *sample);
size_t history_count(const history *h);
/* i = 0 is the oldest sample kept, count-1 the newest. */
const history_sample *history_at(const history *h, size_t i);
const history_sample *history_latest(const history *h);

/* The clock checks' ring: a non-finite t or offset is not kept. */
void history_push_clock(history *h, double t, double offset_s);
size_t history_clock_count(const history *h);
/* i = 0 is the oldest kept; NULL past the count. */
const history_clock_check *history_clock_at(const history *h, size_t i);

/* Median of the finite values of one series among the newest `last` samples
 * (all if last == 0).  NAN when there are none. */
double history_median(const history *h, history_series series, size_t last);

/* Least-squares slope of one series against time, in units per second, over
 * the samples whose time is >= since.  NAN with fewer than 3 finite points. */
double history_slope(const history *h, history_series series, double since);

#endif
