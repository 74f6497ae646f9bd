/* dayview.c - the drill-down's day view (dayview.h). */
#include <config.h>

#include "dayview.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plot.h"
#include "units.h"
#include "xalloc.h"

#define DAYVIEW_HEIGHT 8

static const char *const names[DAYVIEW_RANGES] = {"off", "1 h", "24 h", "7 d"};
static const double spans[DAYVIEW_RANGES] = {0, 3600.0, 86400.0, 7 * 86400.0};

void dayview_init(dayview *dv)
{
	memset(dv, 0, sizeof *dv);
}

void dayview_free(dayview *dv)
{
	state_store_close(dv->reader);
	free(dv->t);
	free(dv->offset_s);
	free(dv->frequency_ppm);
	dayview_init(dv);
}

dayview_range dayview_next(dayview_range r)
{
	return (dayview_range)((r + 1) % DAYVIEW_RANGES);
}

double dayview_span_s(dayview_range r)
{
	return r < DAYVIEW_RANGES ? spans[r] : 0;
}

const char *dayview_name(dayview_range r)
{
	return r < DAYVIEW_RANGES ? names[r] : "?";
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void dayview_refresh(dayview *dv, const char *dir, dayview_range range, const char *host, int buckets, double now)
{
	if (!dir || range == DAYVIEW_OFF || buckets < 1) {
		return;
	}
	bool same = dv->range == range && dv->buckets == buckets && strcmp(dv->host, host) == 0;
	if (same && dv->fetched_at > 0 && now - dv->fetched_at < DAYVIEW_REFRESH_S) {
		return;
	}
	if (!dv->reader || strcmp(dv->dir, dir) != 0) {
		state_store_close(dv->reader);
		snprintf(dv->dir, sizeof dv->dir, "%s", dir);
		dv->reader = state_store_open_reader(dir, dv->err, sizeof dv->err);
	}
	if (dv->buckets != buckets) {
		dv->t = xrealloc(dv->t, (size_t)buckets * sizeof *dv->t);
		dv->offset_s = xrealloc(dv->offset_s, (size_t)buckets * sizeof *dv->offset_s);
		dv->frequency_ppm = xrealloc(dv->frequency_ppm, (size_t)buckets * sizeof *dv->frequency_ppm);
	}
	dv->range = range;
	dv->buckets = buckets;
	snprintf(dv->host, sizeof dv->host, "%s", host);
	dv->fetched_at = now;
	if (!dv->reader) {
		dv->found = -1; /* err says why; tried again at the next refresh */
		return;
	}
	double span = spans[range], since = now - span, width = span / buckets;
	for (int i = 0; i < buckets; i++) {
		dv->t[i] = since + (i + 0.5) * width;
	}
	double started = mono_now();
	dv->found = state_store_series(dv->reader, host, since, now, (size_t)buckets, dv->offset_s, dv->frequency_ppm);
	dv->query_s = mono_now() - started;
	if (dv->found < 0) {
		snprintf(dv->err, sizeof dv->err, "%s", state_store_error(dv->reader));
		/* a reader that failed is opened afresh next time */
		state_store_close(dv->reader);
		dv->reader = NULL;
	}
}

static void format_offset(double v, char *buf, size_t len)
{
	units_format_seconds(v, buf, len);
}

static void format_ppm(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%+.3f ppm", v);
}

static void line(doc *d, theme_role role, const char *text)
{
	doc_newline(d);
	doc_pad(d, ROLE_DEFAULT, 2);
	doc_add(d, role, text);
}

static void plot(doc *d, const dayview *dv, const char *title, const double *v, double now, int width, bool utf8,
		 void (*format_y)(double, char *, size_t))
{
	plot_series ps = {dv->t, v, (size_t)dv->buckets, now, format_y, now - spans[dv->range]};
	plot_grid g;
	if (plot_render(&ps, width, DAYVIEW_HEIGHT, utf8, &g) != 0) {
		return; /* no value in the range: the caller said so */
	}
	doc_newline(d);
	line(d, ROLE_DEFAULT, title);
	for (int r = 0; r < g.height; r++) {
		doc_newline(d);
		doc_pad(d, ROLE_DEFAULT, 2);
		for (int col = 0; col < g.width; col++) {
			const plot_cell *cell = &g.cells[(size_t)r * (size_t)g.width + (size_t)col];
			doc_add(d, cell->kind == PLOT_LINE ? ROLE_PLOT_LINE : cell->kind == PLOT_AXIS ? ROLE_PLOT_AXIS
												  : ROLE_DEFAULT,
				cell->glyph);
		}
	}
	plot_free(&g);
}

void dayview_doc(doc *d, const dayview *dv, const char *dir, dayview_range range, double now, int width,
		 bool utf8)
{
	char text[STATE_ERROR_LEN + 128];
	if (range == DAYVIEW_OFF) {
		return;
	}
	doc_newline(d);
	doc_addf(d, ROLE_TITLE, "Day view: the last %s from the state database (d: next range)", names[range]);
	if (!dir) {
		line(d, ROLE_DIM, "no history is kept: start synctop with --state-dir DIR (or --state)");
		doc_newline(d);
		return;
	}
	if (dv->found < 0) {
		snprintf(text, sizeof text, "cannot read it: %s", dv->err);
		doc_newline(d);
		doc_pad(d, ROLE_DEFAULT, 2);
		doc_wrapped(d, ROLE_STATUS_WARN, 2, text, width);
		doc_newline(d);
		return;
	}
	if (dv->found == 0) {
		line(d, ROLE_DIM, "nothing stored for this node in that range yet");
		doc_newline(d);
		return;
	}
	int w = width - 2 < 200 ? width - 2 : 200;
	snprintf(text, sizeof text, "(%d of %d columns with samples; read in %.1f ms)", dv->found, dv->buckets,
		 dv->query_s * 1e3);
	line(d, ROLE_DIM, text);
	plot(d, dv, "Offset, chrony System time (node - reference), mean per column", dv->offset_s, now, w, utf8,
	     format_offset);
	plot(d, dv, "Frequency, chrony, mean per column", dv->frequency_ppm, now, w, utf8, format_ppm);
	doc_newline(d);
}
