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

bool drift_trend_exceeds(double ppm_per_day, double limit_ppm_per_day)
{
	return isfinite(ppm_per_day) && fabs(ppm_per_day) > limit_ppm_per_day;
}
