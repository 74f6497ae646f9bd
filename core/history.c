/* history.c - fixed-size ring buffers of per-node samples. */
#include <config.h>

#include "history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void history_init(history *h)
{
	h->head = 0;
	h->count = 0;
	h->drift_daily_ppm = NAN;
	h->remote_drift_hourly_ppm = NAN;
	h->remote_drift_daily_ppm = NAN;
	h->clock_head = 0;
	h->clock_count = 0;
	h->capacity = HISTORY_CAPACITY;
}

double history_drift_daily(const history *h)
{
	return isfinite(h->remote_drift_daily_ppm) ? h->remote_drift_daily_ppm : h->drift_daily_ppm;
}

/* A history zeroed rather than initialised has the full capacity. */
static size_t capacity_of(const history *h)
{
	return h->capacity ? h->capacity : HISTORY_CAPACITY;
}

void history_set_capacity(history *h, size_t cap)
{
	h->head = 0;
	h->count = 0;
	h->capacity = cap < 1 ? 1 : cap > HISTORY_CAPACITY ? HISTORY_CAPACITY : cap;
}

void history_push(history *h, const history_sample *sample)
{
	h->samples[h->head] = *sample;
	size_t cap = capacity_of(h);
	h->head = (h->head + 1) % cap;
	if (h->count < cap) {
		h->count++;
	}
}

size_t history_count(const history *h)
{
	return h->count;
}

const history_sample *history_at(const history *h, size_t i)
{
	if (i >= h->count) {
		return NULL;
	}
	size_t cap = capacity_of(h);
	size_t oldest = (h->head + cap - h->count) % cap;
	return &h->samples[(oldest + i) % cap];
}

const history_sample *history_latest(const history *h)
{
	return h->count ? history_at(h, h->count - 1) : NULL;
}

void history_push_clock(history *h, double t, double offset_s)
{
	if (!isfinite(t) || !isfinite(offset_s)) {
		return;
	}
	h->clock[h->clock_head] = (history_clock_check){.t = t, .offset_s = (float)offset_s};
	h->clock_head = (h->clock_head + 1) % HISTORY_CLOCK_CAPACITY;
	if (h->clock_count < HISTORY_CLOCK_CAPACITY) {
		h->clock_count++;
	}
}

size_t history_clock_count(const history *h)
{
	return h->clock_count;
}

const history_clock_check *history_clock_at(const history *h, size_t i)
{
	if (i >= h->clock_count) {
		return NULL;
	}
	size_t oldest = (h->clock_head + HISTORY_CLOCK_CAPACITY - h->clock_count) % HISTORY_CLOCK_CAPACITY;
	return &h->clock[(oldest + i) % HISTORY_CLOCK_CAPACITY];
}

static int compare_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

double history_median(const history *h, history_series series, size_t last)
{
	static float scratch[HISTORY_CAPACITY]; /* single-threaded; avoids 14 KiB on the stack */
	size_t n = 0;
	size_t first = (last == 0 || last > h->count) ? 0 : h->count - last;

	for (size_t i = first; i < h->count; i++) {
		float v = history_at(h, i)->value[series];
		if (isfinite(v)) {
			scratch[n++] = v;
		}
	}
	if (n == 0) {
		return NAN;
	}
	qsort(scratch, n, sizeof scratch[0], compare_float);
	return n % 2 ? scratch[n / 2] : ((double)scratch[n / 2 - 1] + scratch[n / 2]) / 2.0;
}

double history_slope(const history *h, history_series series, double since)
{
	/* Centre time on the first point so large unix times keep their precision. */
	double t0 = NAN, sum_t = 0, sum_v = 0, sum_tt = 0, sum_tv = 0;
	size_t n = 0;

	for (size_t i = 0; i < h->count; i++) {
		const history_sample *s = history_at(h, i);
		float v = s->value[series];
		if (s->t < since || !isfinite(v)) {
			continue;
		}
		if (isnan(t0)) {
			t0 = s->t;
		}
		double t = s->t - t0;
		sum_t += t;
		sum_v += v;
		sum_tt += t * t;
		sum_tv += t * v;
		n++;
	}
	if (n < 3) {
		return NAN;
	}
	double denom = (double)n * sum_tt - sum_t * sum_t;
	if (denom <= 0) {
		return NAN;
	}
	return ((double)n * sum_tv - sum_t * sum_v) / denom;
}
