/* prometheus_drift.c - the frequency's trends from Prometheus (prometheus_drift.h). */
#include <config.h>

#include "prometheus_drift.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prometheus_map.h"
#include "xalloc.h"

/* The families, most trusted first (prometheus_history.c's order). */
static const struct {
	const char *tag;
	const char *metric;
	double ppm_per_unit; /* the gauge's unit in ppm of chrony's sign */
	bool exporter;       /* named by instance / node_label, not `node` */
	bool tick;           /* timex: a tick change is a step, not a trend */
} families[] = {
	{"chrony", "chrony_tracking_frequency_ppms", 1.0, true, false},
	{"synctop", "synctop_chrony_frequency_ratio", 1e6, false, false},
	{"timex", "node_timex_frequency_adjustment_ratio", -1e6, true, true},
};
#define N_FAMILIES (sizeof families / sizeof families[0])
_Static_assert(N_FAMILIES == PROM_DRIFT_FAMILIES, "prometheus_drift.h counts them");

/* deriv's seconds in the unit judged, and the samples the window needs */
static const struct {
	double per;
	int min_samples;
} windows[PROM_DRIFT_COUNT] = {
	[PROM_DRIFT_HOUR] = {3600.0, PROM_DRIFT_MIN_SAMPLES},
	/* the week's count is implied by a sample a day old and a fresh one;
	 * a second scan of a week of samples is not asked for it */
	[PROM_DRIFT_WEEK] = {86400.0, 0},
};

prom_drift_span prometheus_drift_span(prom_drift_window w, const thresholds *th)
{
	if (w == PROM_DRIFT_HOUR) {
		return (prom_drift_span){th->chrony_drift_window_s, th->chrony_drift_min_span_s};
	}
	return (prom_drift_span){PROM_DRIFT_WEEK_RANGE_S, PROM_DRIFT_WEEK_MIN_SPAN_S};
}

bool prometheus_drift_span_askable(prom_drift_span span)
{
	/* PromQL's ranges are whole milliseconds, and not empty */
	return isfinite(span.range_s) && isfinite(span.min_span_s) && span.range_s >= 0.001 &&
	       span.range_s - (span.min_span_s > 0 ? span.min_span_s : 0) >= 0.001;
}

/* A PromQL duration: whole seconds as "3600s" (what the docs show), else
 * whole milliseconds (PromQL's finest unit). */
static void duration(double s, char *out, size_t len)
{
	if (s == floor(s)) {
		snprintf(out, len, "%.0fs", s);
	} else {
		snprintf(out, len, "%.0fms", round(s * 1000.0));
	}
}

/* One family's part of the query, appended at buf + *used. */
static bool family_part(size_t f, prom_drift_window w, prom_drift_span span, const char *sel, char *buf, size_t len,
			size_t *used)
{
	/* the selector (up to 1,024 characters) stands in each, twice in expr */
	char expr[6144], cond[1536] = "", tick[1536] = "";
	const char *m = families[f].metric;
	/* at least a sample as old as the span needs: one in the range up to
	 * min_span ago (a span of 0: the whole range) */
	double min_span = span.min_span_s > 0 ? span.min_span_s : 0;
	char range[32], older[32], offset[32];
	duration(span.range_s, range, sizeof range);
	duration(span.range_s - min_span, older, sizeof older);
	duration(min_span, offset, sizeof offset);
	int n;
	if (windows[w].min_samples > 0) {
		n = snprintf(cond, sizeof cond, " and count_over_time(%s%s[%s]) >= %d", m, sel, range,
			     windows[w].min_samples);
		if (n < 0 || (size_t)n >= sizeof cond) {
			return false;
		}
	}
	if (families[f].tick) {
		n = snprintf(tick, sizeof tick, " unless changes(node_timex_tick_seconds%s[%s]) > 0", sel, range);
		if (n < 0 || (size_t)n >= sizeof tick) {
			return false;
		}
	}
	/* deriv: least squares per second; times per and the unit's ppm */
	n = snprintf(expr, sizeof expr,
		     "(deriv(%s%s[%s]) * %.17g%s and count_over_time(%s%s[%s] offset %s) > 0%s)", m, sel, range,
		     windows[w].per * families[f].ppm_per_unit, cond, m, sel, older, offset, tick);
	if (n < 0 || (size_t)n >= sizeof expr) {
		return false;
	}
	const char *sep = *used ? " or " : "";
	/* naming by nodename: joined here on the answer of
	 * prometheus_drift_names_query, not in PromQL, whose outer join (the
	 * expression joined, or the expression unless joined) evaluates the
	 * expression twice: twice the server's time */
	n = snprintf(buf + *used, len - *used, "%slabel_replace(%s, \"synctop_from\", \"%s\", \"\", \"\")", sep, expr,
		     families[f].tag);
	if (n < 0 || (size_t)n >= len - *used) {
		return false;
	}
	*used += (size_t)n;
	return true;
}

int prometheus_drift_query(prom_drift_window w, prom_drift_span span, int family, const char *selector, char *buf,
			   size_t len)
{
	size_t used = 0;
	if (w >= PROM_DRIFT_COUNT || len == 0 || !prometheus_drift_span_askable(span) ||
	    (family != PROM_DRIFT_ALL_FAMILIES && (family < 0 || family >= PROM_DRIFT_FAMILIES))) {
		return -1;
	}
	buf[0] = '\0';
	for (size_t f = 0; f < N_FAMILIES; f++) {
		if (family != PROM_DRIFT_ALL_FAMILIES && (size_t)family != f) {
			continue;
		}
		if (!family_part(f, w, span, selector ? selector : "", buf, len, &used)) {
			return -1;
		}
	}
	return (int)used;
}

size_t prometheus_drift_plan(const prom_drift_key *keys, size_t n, size_t *query_of, size_t **first)
{
	/* few distinct keys (a server set and window per --config group at
	 * most): a linear search per node */
	size_t n_queries = 0, cap = 0;
	*first = NULL;
	for (size_t i = 0; i < n; i++) {
		size_t q = 0;
		while (q < n_queries && !(keys[(*first)[q]].set == keys[i].set &&
					  keys[(*first)[q]].span.range_s == keys[i].span.range_s &&
					  keys[(*first)[q]].span.min_span_s == keys[i].span.min_span_s)) {
			q++;
		}
		if (q == n_queries) {
			if (n_queries == cap) {
				cap = cap ? cap * 2 : 4;
				*first = xrealloc(*first, cap * sizeof **first);
			}
			(*first)[n_queries++] = i;
		}
		query_of[i] = q;
	}
	return n_queries;
}

int prometheus_drift_names_query(const char *selector, char *buf, size_t len)
{
	/* only the two labels used: node_uname_info's others (release,
	 * version, ...) would be most of the answer */
	int n = snprintf(buf, len, "group by (instance, nodename) (node_uname_info%s)", selector ? selector : "");
	return n < 0 || (size_t)n >= len ? -1 : n;
}

static int compare_names(const void *x, const void *y)
{
	const prom_drift_name *a = x, *b = y;
	int c = strcmp(a->instance, b->instance);
	return c ? c : (a->order > b->order) - (a->order < b->order);
}

void prometheus_drift_names_read(const prom_matrix *m, prom_drift_names *out)
{
	memset(out, 0, sizeof *out);
	out->names = xcalloc(m && m->n_series ? m->n_series : 1, sizeof *out->names);
	for (size_t i = 0; m && i < m->n_series; i++) {
		const char *instance = prom_series_label(&m->series[i], "instance");
		const char *nodename = prom_series_label(&m->series[i], "nodename");
		if (instance && *instance && nodename && *nodename) {
			out->names[out->n].instance = xstrdup(instance);
			out->names[out->n].nodename = xstrdup(nodename);
			out->names[out->n].order = out->n;
			out->n++;
		}
	}
	/* an instance with several: the answer's first, as prometheus_map.c's
	 * (PromQL's join refused the whole query) */
	qsort(out->names, out->n, sizeof *out->names, compare_names);
}

/* The nodename of an instance, or NULL. */
static const char *names_find(const prom_drift_names *names, const char *instance)
{
	size_t lo = 0, hi = names ? names->n : 0;
	while (instance && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(names->names[mid].instance, instance);
		if (c < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return instance && names && lo < names->n && strcmp(names->names[lo].instance, instance) == 0
		       ? names->names[lo].nodename
		       : NULL;
}

void prometheus_drift_names_free(prom_drift_names *names)
{
	for (size_t i = 0; i < names->n; i++) {
		free(names->names[i].instance);
		free(names->names[i].nodename);
	}
	free(names->names);
	memset(names, 0, sizeof *names);
}

typedef const char *(*label_fn)(const void *series, const char *name);

static const char *sample_label(const void *s, const char *name)
{
	return prom_sample_label(s, name);
}

static const char *series_label(const void *s, const char *name)
{
	return prom_series_label(s, name);
}

/* The node a series is about, as prometheus_map.c names it. */
static bool node_name(const void *s, label_fn label, size_t f, const char *node_label, const prom_drift_names *names,
		      char *out, size_t len)
{
	const char *v = NULL;
	if (!families[f].exporter) {
		v = label(s, "node");
	} else if (node_label && strcmp(node_label, "nodename") == 0) {
		v = names_find(names, label(s, "instance")); /* node_uname_info's, as prometheus_map.c */
	} else if (node_label && *node_label) {
		v = label(s, node_label);
	}
	if (v && *v) {
		snprintf(out, len, "%s", v);
		return true;
	}
	const char *instance = families[f].exporter ? label(s, "instance") : NULL;
	if (!instance || !*instance) {
		return false;
	}
	prometheus_map_strip_port(instance, out, len);
	return out[0] != '\0';
}

static int compare_values(const void *x, const void *y)
{
	const prom_drift_value *a = x, *b = y;
	int c = strcmp(a->name, b->name);
	return c ? c : a->family - b->family; /* the most trusted first */
}

/* One value per name: the most trusted family's (the first of equals). */
static void settle(prom_drift_result *out)
{
	size_t kept = 0;
	if (out->n == 0) {
		return;
	}
	qsort(out->values, out->n, sizeof *out->values, compare_values);
	for (size_t i = 0; i < out->n; i++) {
		if (kept == 0 || strcmp(out->values[kept - 1].name, out->values[i].name) != 0) {
			out->values[kept++] = out->values[i];
		}
	}
	out->n = kept;
}

static void add(prom_drift_result *out, size_t *cap, const void *s, label_fn label, double value,
		const char *node_label, const prom_drift_names *names)
{
	const char *tag = label(s, "synctop_from");
	size_t f = 0;
	while (tag && f < N_FAMILIES && strcmp(families[f].tag, tag) != 0) {
		f++;
	}
	if (!tag || f == N_FAMILIES || !isfinite(value)) {
		return;
	}
	char name[NODE_NAME_LEN + 1];
	if (!node_name(s, label, f, node_label, names, name, sizeof name) || strlen(name) >= NODE_NAME_LEN) {
		return;
	}
	if (out->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		out->values = xrealloc(out->values, *cap * sizeof *out->values);
	}
	prom_drift_value *d = &out->values[out->n++];
	snprintf(d->name, sizeof d->name, "%s", name);
	d->value = value;
	d->family = (int)f;
}

void prometheus_drift_map_vector(const prom_vector *v, const char *node_label, const prom_drift_names *names,
				 prom_drift_result *out)
{
	size_t cap = 0;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; v && i < v->n_samples; i++) {
		add(out, &cap, &v->samples[i], sample_label, v->samples[i].value, node_label, names);
	}
	settle(out);
}

void prometheus_drift_map_matrix(const prom_matrix *m, const char *node_label, const prom_drift_names *names,
				 prom_drift_result *out)
{
	size_t cap = 0;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; m && i < m->n_series; i++) {
		const prom_series *s = &m->series[i];
		if (s->n_points) {
			add(out, &cap, s, series_label, s->v[s->n_points - 1], node_label, names);
		}
	}
	settle(out);
}

void prometheus_drift_merge(prom_drift_result *into, const prom_drift_result *part)
{
	if (part->n == 0) {
		return;
	}
	into->values = xrealloc(into->values, (into->n + part->n) * sizeof *into->values);
	memcpy(into->values + into->n, part->values, part->n * sizeof *part->values);
	into->n += part->n;
	settle(into);
}

double prometheus_drift_find(const prom_drift_result *r, const char *name)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(r->values[mid].name, name);
		if (c == 0) {
			return r->values[mid].value;
		}
		if (c < 0) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return NAN;
}

void prometheus_drift_free(prom_drift_result *r)
{
	free(r->values);
	memset(r, 0, sizeof *r);
}
