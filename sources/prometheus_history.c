/* prometheus_history.c - a node's 24 h from query_range (prometheus_history.h). */
#include <config.h>

#include "prometheus_history.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The families, most trusted first: the tag label_replace gives each. */
static const struct {
	const char *tag;
	const char *what;
} families[] = {
	{"chrony", "chrony_exporter"},
	{"synctop", "synctop's textfile"},
	{"timex", "node_exporter timex (kernel PLL)"},
};

/* name inside a PromQL string ("..."), as a regular expression when regex:
 * RE2 metacharacters escaped, then the string's own escapes. */
static bool quote(const char *name, bool regex, char *out, size_t len)
{
	size_t o = 0;
	for (const char *p = name; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		char esc[4] = "";
		if (ch < 0x20 || ch == 0x7f || ch == '\\') {
			return false; /* no node is named so */
		}
		if (regex && strchr(".+*?()|[]{}^$", ch)) {
			snprintf(esc, sizeof esc, "\\\\"); /* a backslash, in the string */
		}
		if (ch == '"') {
			snprintf(esc, sizeof esc, "\\");
		}
		size_t need = strlen(esc) + 1;
		if (o + need >= len) {
			return false;
		}
		memcpy(out + o, esc, strlen(esc));
		o += strlen(esc);
		out[o++] = (char)ch;
	}
	out[o] = '\0';
	return true;
}

int prometheus_history_query(remote_series_id id, const char *name, const char *node_label, const char *selector,
			     char *buf, size_t len)
{
	char re[600], lit[600], exporter[1400], own[1400];
	size_t n = strlen(selector);
	const char *inner = n >= 2 ? selector + 1 : "";
	int inner_len = n >= 2 ? (int)(n - 2) : 0;
	const char *sep = inner_len > 0 ? "," : "";
	if (!*name || !quote(name, true, re, sizeof re) || !quote(name, false, lit, sizeof lit)) {
		return -1;
	}
	if (node_label && strcmp(node_label, "nodename") == 0) {
		return -1;
	}
	int w;
	if (node_label) {
		w = snprintf(exporter, sizeof exporter, "{%.*s%s%s=\"%s\"}", inner_len, inner, sep, node_label, lit);
	} else {
		/* "host:9100", "[fe80::1]:9100", or the name itself */
		w = snprintf(exporter, sizeof exporter, "{%.*s%sinstance=~\"(%s|\\\\[%s\\\\])(:[0-9]+)?\"}", inner_len,
			     inner, sep, re, re);
	}
	if (w < 0 || (size_t)w >= sizeof exporter) {
		return -1;
	}
	w = snprintf(own, sizeof own, "{%.*s%snode=\"%s\"}", inner_len, inner, sep, lit);
	if (w < 0 || (size_t)w >= sizeof own) {
		return -1;
	}
	if (id == REMOTE_SERIES_OFFSET) {
		w = snprintf(buf, len,
			     "label_replace(-chrony_tracking_system_time_seconds%s, \"synctop_from\", \"chrony\", \"\", \"\")"
			     " or label_replace(synctop_chrony_offset_seconds%s, \"synctop_from\", \"synctop\", \"\", \"\")"
			     " or label_replace(-node_timex_offset_seconds%s, \"synctop_from\", \"timex\", \"\", \"\")",
			     exporter, own, exporter);
	} else if (id == REMOTE_SERIES_FREQUENCY) {
		w = snprintf(buf, len,
			     "label_replace(chrony_tracking_frequency_ppms%s, \"synctop_from\", \"chrony\", \"\", \"\")"
			     " or label_replace(synctop_chrony_frequency_ratio%s * 1e6, \"synctop_from\", \"synctop\", \"\","
			     " \"\")"
			     " or label_replace((node_timex_frequency_adjustment_ratio%s - 1) * 1e6, \"synctop_from\","
			     " \"timex\", \"\", \"\")",
			     exporter, own, exporter);
	} else {
		return -1;
	}
	return w < 0 || (size_t)w >= len ? -1 : w;
}

double prometheus_history_step(double range_s, int points)
{
	double step = points > 0 ? ceil(range_s / points) : range_s;
	return step < PROM_HISTORY_MIN_STEP_S ? PROM_HISTORY_MIN_STEP_S : step;
}

double prometheus_history_start(double end, double range_s, double step)
{
	return step > 0 ? end - step * floor(range_s / step) : end - range_s;
}

const prom_series *prometheus_history_pick(const prom_matrix *m, const char **what)
{
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) {
		const prom_series *best = NULL;
		for (size_t i = 0; i < m->n_series; i++) {
			const char *tag = prom_series_label(&m->series[i], "synctop_from");
			if (tag && strcmp(tag, families[f].tag) == 0 && (!best || m->series[i].n_points > best->n_points)) {
				best = &m->series[i];
			}
		}
		if (best) {
			*what = families[f].what;
			return best;
		}
	}
	return NULL;
}
