/* drift_trend.h - the frequency's trend over days: the clock-sync guide's
 * hardware-ageing signal (chrony.drift_daily).
 *
 * chronyd's Frequency is how fast the node's oscillator runs against the
 * reference, in ppm.  It follows temperature over hours; a steady change
 * over days is the crystal ageing, or a fan, heat sink or power supply
 * going.  The trend is the least-squares slope of (time, frequency) over
 * the samples given, in ppm per day; it is only known once they span
 * DRIFT_TREND_MIN_SPAN_S (a day: less than that mostly shows the daily
 * temperature cycle).  Pure: no I/O, no globals. */
#ifndef SYNCTOP_DRIFT_TREND_H
#define SYNCTOP_DRIFT_TREND_H

#include <stdbool.h>
#include <stddef.h>

#define DRIFT_TREND_MIN_SPAN_S 86400.0
#define DRIFT_TREND_MIN_SAMPLES 10

/* The slope in ppm/day of ppm[i] against t[i] (unix seconds, any order),
 * NAN values skipped; NAN when fewer than DRIFT_TREND_MIN_SAMPLES finite
 * samples or when they span less than min_span_s. */
double drift_trend_ppm_per_day(const double *t, const double *ppm, size_t n, double min_span_s);

/* The same slope from running sums, so a trend over days can be kept up to
 * date a minute at a time instead of re-reading every sample: x is seconds
 * from the sums' own origin (small, so x*x keeps its precision), lo and hi
 * the extent of x.  Sums of different origins combine with
 * drift_sums_merge. */
typedef struct {
	double n, sx, sy, sxx, sxy, lo, hi;
} drift_sums;

void drift_sums_init(drift_sums *s);
/* One point; a non-finite x or y is skipped. */
void drift_sums_add(drift_sums *s, double x, double y);
/* Adds `from`, whose origin lies `offset` seconds after into's. */
void drift_sums_merge(drift_sums *into, const drift_sums *from, double offset);
/* As drift_trend_ppm_per_day, from the sums. */
double drift_sums_ppm_per_day(const drift_sums *s, double min_span_s);

/* Whether |slope| is over the limit (a finite slope only). */
bool drift_trend_exceeds(double ppm_per_day, double limit_ppm_per_day);

#endif
