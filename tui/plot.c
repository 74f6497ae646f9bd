/* plot.c - character-cell line chart with labelled axes. */
#include <config.h>

#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textwidth.h"
#include "xalloc.h"

#define LABEL_LEN 40

static plot_cell *at(plot_grid *g, int row, int col)
{
	return &g->cells[(size_t)row * (size_t)g->width + (size_t)col];
}

static void put(plot_grid *g, int row, int col, const char *glyph, plot_kind kind)
{
	if (row < 0 || row >= g->height || col < 0 || col >= g->width) {
		return;
	}
	plot_cell *c = at(g, row, col);
	snprintf(c->glyph, sizeof c->glyph, "%s", glyph);
	c->kind = kind;
}

/* ASCII text (labels are ours, units aside), one cell per character:
 * multi-byte characters are kept whole in one cell. */
static int put_text(plot_grid *g, int row, int col, const char *text, plot_kind kind)
{
	size_t len = strlen(text), i = 0;
	int n = 0;
	while (i < len) {
		uint32_t cp;
		size_t k = tw_decode(text + i, len - i, &cp);
		char glyph[5] = {0};
		memcpy(glyph, text + i, k < 4 ? k : 4);
		put(g, row, col + n, glyph, kind);
		n++;
		i += k;
	}
	return n;
}

void plot_format_ago(double seconds, char *out, size_t len)
{
	if (seconds < 0.5) {
		snprintf(out, len, "now");
	} else if (seconds < 120) {
		snprintf(out, len, "-%.0fs", seconds);
	} else if (seconds < 7200) {
		snprintf(out, len, "-%.0fm", seconds / 60);
	} else if (seconds < 172800) {
		snprintf(out, len, "-%.0fh", seconds / 3600);
	} else {
		snprintf(out, len, "-%.1fd", seconds / 86400); /* the day view's 7 days */
	}
}

void plot_free(plot_grid *g)
{
	free(g->cells);
	g->cells = NULL;
	g->width = g->height = 0;
}

int plot_render(const plot_series *s, int width, int height, bool utf8, plot_grid *out)
{
	const char *dot = utf8 ? "\xe2\x80\xa2" : "*";
	const char *vbar = utf8 ? "\xe2\x94\x82" : "|";
	const char *tick_y = utf8 ? "\xe2\x94\xa4" : "+";
	const char *hbar = utf8 ? "\xe2\x94\x80" : "-";
	const char *tick_x = utf8 ? "\xe2\x94\xac" : "+";
	const char *corner = utf8 ? "\xe2\x94\x94" : "+";
	const char *zero = utf8 ? "\xc2\xb7" : ".";
	double lo = INFINITY, hi = -INFINITY, t0 = NAN;
	char labels[3][LABEL_LEN];
	int label_rows[3], n_labels = 0;

	out->cells = NULL;
	out->width = out->height = 0;
	if (width < 20 || height < 4) {
		return -1;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (isfinite(s->v[i]) && isfinite(s->t[i])) {
			lo = fmin(lo, s->v[i]);
			hi = fmax(hi, s->v[i]);
			if (isnan(t0)) {
				t0 = s->t[i];
			}
		}
	}
	if (!isfinite(lo) || !isfinite(hi)) {
		return -1;
	}
	if (s->since > 0 && s->since < t0) {
		t0 = s->since;
	}
	int rows = height - 2; /* data rows */
	int zero_row = -1;
	if (hi - lo <= fabs(hi) * 1e-9 || !isfinite(hi - lo)) {
		/* A flat series: one label, the line at mid-height (the row
		 * the mapping below gives it). */
		double v = hi;
		label_rows[n_labels] = (int)lround(0.5 * (rows - 1));
		s->format_y(v, labels[n_labels++], LABEL_LEN);
		double pad = fabs(v) > 0 ? fabs(v) : 1;
		lo = v - pad;
		hi = v + pad;
	} else {
		label_rows[n_labels] = 0;
		s->format_y(hi, labels[n_labels++], LABEL_LEN);
		label_rows[n_labels] = rows - 1;
		s->format_y(lo, labels[n_labels++], LABEL_LEN);
	}
	bool flat = n_labels == 1; /* then neither a zero line nor more labels */
	if (!flat && lo < 0 && hi > 0) {
		zero_row = (int)lround(hi / (hi - lo) * (rows - 1));
		if (zero_row > 0 && zero_row < rows - 1) {
			label_rows[n_labels] = zero_row;
			snprintf(labels[n_labels++], LABEL_LEN, "0");
		}
	} else if (!flat && rows >= 5) {
		label_rows[n_labels] = (rows - 1) / 2;
		s->format_y(hi - (hi - lo) * (double)label_rows[n_labels] / (rows - 1), labels[n_labels],
			    LABEL_LEN);
		n_labels++;
	}
	int label_w = 0;
	for (int i = 0; i < n_labels; i++) {
		tw_ascii_micro(labels[i], utf8);
		int w = tw_width(labels[i]);
		label_w = w > label_w ? w : label_w;
	}
	int axis = label_w + 1;
	int cols = width - axis - 1; /* data columns */
	if (cols < 8) {
		return -1;
	}

	out->width = width;
	out->height = height;
	out->cells = xcalloc((size_t)width * (size_t)height, sizeof *out->cells);
	for (int r = 0; r < height; r++) {
		for (int c = 0; c < width; c++) {
			put(out, r, c, " ", PLOT_BLANK);
		}
	}

	/* axes and labels */
	for (int r = 0; r < rows; r++) {
		put(out, r, axis, vbar, PLOT_AXIS);
	}
	for (int i = 0; i < n_labels; i++) {
		int w = tw_width(labels[i]);
		put_text(out, label_rows[i], axis - 1 - w, labels[i], PLOT_AXIS);
		put(out, label_rows[i], axis, tick_y, PLOT_AXIS);
	}
	put(out, rows, axis, corner, PLOT_AXIS);
	for (int c = axis + 1; c < width; c++) {
		put(out, rows, c, hbar, PLOT_AXIS);
	}

	/* data: per column the range of rows hit, joined to the sample before
	 * by a straight line, unless a gap in time (an outage) or an unknown
	 * value lies between them */
	double span = s->now - t0;
	if (!(span > 0)) {
		span = 1;
	}
	double t_last = t0;
	size_t n_known = 0;
	for (size_t k = 0; k < s->n; k++) {
		if (isfinite(s->v[k]) && isfinite(s->t[k])) {
			t_last = s->t[k];
			n_known++;
		}
	}
	double join_dt = n_known > 1 ? 3.0 * (t_last - t0) / (double)(n_known - 1) : 0;
	int prev_last = -1, prev_col = -2;
	double prev_t = NAN;
	size_t i = 0;
	while (i < s->n) {
		if (!isfinite(s->t[i])) {
			i++;
			continue;
		}
		int col = (int)floor((s->t[i] - t0) / span * (cols - 1) + 0.5);
		col = col < 0 ? 0 : col >= cols ? cols - 1 : col;
		int top = rows, bottom = -1, first = -1, last = -1;
		double first_t = NAN, last_t = NAN;
		bool gap = false;
		for (; i < s->n; i++) {
			if (!isfinite(s->t[i])) {
				continue;
			}
			int c = (int)floor((s->t[i] - t0) / span * (cols - 1) + 0.5);
			c = c < 0 ? 0 : c >= cols ? cols - 1 : c;
			if (c != col) {
				break;
			}
			if (!isfinite(s->v[i])) {
				gap = true;
				continue;
			}
			int r = (int)lround((hi - s->v[i]) / (hi - lo) * (rows - 1));
			r = r < 0 ? 0 : r >= rows ? rows - 1 : r;
			top = r < top ? r : top;
			bottom = r > bottom ? r : bottom;
			if (first < 0) {
				first = r;
				first_t = s->t[i];
			}
			last = r;
			last_t = s->t[i];
		}
		if (last < 0) {
			prev_last = -1;
			continue;
		}
		if (prev_last >= 0 && !gap && first_t - prev_t <= join_dt) {
			/* the line from the previous sample, column by column */
			int from = prev_last;
			for (int c = prev_col + 1; c < col; c++) {
				double f = (double)(c - prev_col) / (double)(col - prev_col);
				int r = (int)lround(prev_last + (first - prev_last) * f);
				for (int rr = (r < from ? r : from); rr <= (r > from ? r : from); rr++) {
					put(out, rr, axis + 1 + c, dot, PLOT_LINE);
				}
				from = r;
			}
			top = from < top ? from : top;
			bottom = from > bottom ? from : bottom;
		}
		for (int r = top; r <= bottom; r++) {
			put(out, r, axis + 1 + col, dot, PLOT_LINE);
		}
		prev_last = last;
		prev_t = last_t;
		prev_col = col;
	}
	if (zero_row >= 0 && zero_row < rows) {
		for (int c = axis + 1; c < width; c++) {
			if (at(out, zero_row, c)->kind == PLOT_BLANK) {
				put(out, zero_row, c, zero, PLOT_AXIS);
			}
		}
	}

	/* x labels: oldest, middle, now */
	char left[LABEL_LEN], mid[LABEL_LEN];
	plot_format_ago(span, left, sizeof left);
	plot_format_ago(span / 2, mid, sizeof mid);
	int lw = tw_width(left), mw = tw_width(mid);
	int mid_col = axis + 1 + (cols - 1) / 2;
	put_text(out, rows + 1, axis + 1 - lw / 2 > 0 ? axis + 1 - lw / 2 : 0, left, PLOT_AXIS);
	put(out, rows, width - 1, tick_x, PLOT_AXIS);
	put_text(out, rows + 1, width - 3, "now", PLOT_AXIS);
	if (mid_col - mw / 2 > axis + 1 + lw && mid_col + mw < width - 4) {
		put(out, rows, mid_col, tick_x, PLOT_AXIS);
		put_text(out, rows + 1, mid_col - mw / 2, mid, PLOT_AXIS);
	}
	return 0;
}

void plot_row_text(const plot_grid *g, int row, char *out, size_t out_len)
{
	size_t w = 0;
	if (out_len == 0) {
		return;
	}
	for (int c = 0; row >= 0 && row < g->height && c < g->width; c++) {
		const char *glyph = g->cells[(size_t)row * (size_t)g->width + (size_t)c].glyph;
		size_t len = strlen(glyph);
		if (w + len >= out_len) {
			break;
		}
		memcpy(out + w, glyph, len);
		w += len;
	}
	out[w] = '\0';
}
