/* drift_trend.c - least-squares frequency trend over days (drift_trend.h). */
#include <config.h>

#include "drift_trend.h"

#include <math.h>

double drift_trend_ppm_per_day(const double *t, const double *ppm, size_t n, double min_span_s)
{
	size_t count = 0;
	double t0 = NAN, lo = INFINITY, hi = -INFINITY;
	double sx = 0, sy = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(t[i]) || !isfinite(ppm[i])) {
			continue;
		}
		if (isnan(t0)) {
			t0 = t[i]; /* times relative to the first: no loss of precision in x*x */
		}
		lo = fmin(lo, t[i]);
		hi = fmax(hi, t[i]);
		sx += t[i] - t0;
		sy += ppm[i];
		count++;
	}
	if (count < DRIFT_TREND_MIN_SAMPLES || hi - lo < min_span_s) {
		return NAN;
	}
	double mx = sx / (double)count, my = sy / (double)count;
	double sxx = 0, sxy = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(t[i]) || !isfinite(ppm[i])) {
			continue;
		}
		double dx = t[i] - t0 - mx;
		sxx += dx * dx;
		sxy += dx * (ppm[i] - my);
	}
	if (sxx <= 0) {
		return NAN;
	}
	return sxy / sxx * 86400.0;
}

void drift_sums_init(drift_sums *s)
{
	*s = (drift_sums){.lo = INFINITY, .hi = -INFINITY};
}

void drift_sums_add(drift_sums *s, double x, double y)
{
	if (!isfinite(x) || !isfinite(y)) {
		return;
	}
	s->n += 1;
	s->sx += x;
	s->sy += y;
	s->sxx += x * x;
	s->sxy += x * y;
	s->lo = fmin(s->lo, x);
	s->hi = fmax(s->hi, x);
}

void drift_sums_merge(drift_sums *into, const drift_sums *from, double offset)
{
	if (from->n == 0) {
		return;
	}
	/* sum (x + c)^2 = sxx + 2 c sx + n c^2, sum (x + c) y = sxy + c sy */
	into->sxx += from->sxx + 2 * offset * from->sx + from->n * offset * offset;
	into->sxy += from->sxy + offset * from->sy;
	into->sx += from->sx + from->n * offset;
	into->sy += from->sy;
	into->n += from->n;
	into->lo = fmin(into->lo, from->lo + offset);
	into->hi = fmax(into->hi, from->hi + offset);
}

double drift_sums_ppm_per_day(const drift_sums *s, double min_span_s)
{
	if (s->n < DRIFT_TREND_MIN_SAMPLES || s->hi - s->lo < min_span_s) {
		return NAN;
	}
	double sxx = s->sxx - s->sx * s->sx / s->n;
	double sxy = s->sxy - s->sx * s->sy / s->n;
	if (!(sxx > 0)) {
		return NAN;
	}
	return sxy / sxx * 86400.0;
}

bool drift_trend_exceeds(double ppm_per_day, double limit_ppm_per_day)
{
	return isfinite(ppm_per_day) && fabs(ppm_per_day) > limit_ppm_per_day;
}
