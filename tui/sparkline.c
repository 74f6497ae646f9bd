/* sparkline.c - eight-level bar rows from a series. */
#include <config.h>

#include "sparkline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static const char *const utf8_bars[8] = {
	"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
	"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",
};
static const char ascii_bars[] = " .:-=+*#";

size_t sparkline_render(const double *values, size_t n, size_t width, bool utf8, char *out,
			size_t out_len)
{
	size_t first = n > width ? n - width : 0, pad = n < width ? width - n : 0, w = 0;
	double lo = INFINITY, hi = -INFINITY;

	if (out_len == 0) {
		return 0;
	}
	for (size_t i = first; i < n; i++) {
		if (isfinite(values[i])) {
			lo = fmin(lo, values[i]);
			hi = fmax(hi, values[i]);
		}
	}
	for (size_t i = 0; i < pad + (n - first); i++) {
		const char *bar = " ";
		char ascii[2] = {0, 0};
		if (i >= pad) {
			double v = values[first + i - pad];
			if (isfinite(v)) {
				/* A flat line (hi == lo, or a span too small to divide)
				 * sits mid-height: it is neither high nor low. */
				int level = 3;
				if (hi > lo && isfinite(hi - lo)) {
					level = (int)floor((v - lo) / (hi - lo) * 8.0);
					level = level < 0 ? 0 : level > 7 ? 7 : level;
				}
				if (utf8) {
					bar = utf8_bars[level];
				} else {
					ascii[0] = ascii_bars[level];
					bar = ascii;
				}
			}
		}
		size_t len = strlen(bar);
		if (w + len >= out_len) {
			break;
		}
		memcpy(out + w, bar, len);
		w += len;
	}
	out[w] = '\0';
	return w;
}

static size_t collect(const history *h, history_series series, size_t width, double *vals,
		      bool *any_finite)
{
	size_t count = history_count(h), take = count < width ? count : width;
	*any_finite = false;
	for (size_t i = 0; i < take; i++) {
		const history_sample *s = history_at(h, count - take + i);
		vals[i] = s ? s->value[series] : NAN;
		if (isfinite(vals[i])) {
			*any_finite = true;
		}
	}
	return take;
}

size_t sparkline_history(const history *h, history_series series, history_series fallback,
			 size_t width, bool utf8, char *out, size_t out_len)
{
	double stack[256];
	double *vals = width <= 256 ? stack : xmalloc(width * sizeof *vals);
	bool any;
	size_t n, w;

	n = collect(h, series, width, vals, &any);
	if (!any && fallback != series) {
		n = collect(h, fallback, width, vals, &any);
	}
	w = sparkline_render(vals, n, width, utf8, out, out_len);
	if (vals != stack) {
		free(vals);
	}
	return w;
}
