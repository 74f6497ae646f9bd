/* prometheus_history.c - a node's 24 h from query_range (prometheus_history.h). */
#include <config.h>

#include "prometheus_history.h"

#include "node.h"
#include "node_settings.h"

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
	{"openshift", "linuxptp-daemon"},
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

/* How an exporter's series name the node (prometheus_map.h): the pieces
 * of PromQL every family's selection is built from. */
typedef struct {
	const char *inner;       /* the selector's matchers, without braces */
	int inner_len;
	const char *sep;         /* "," after them, or "" */
	const char *node_label;  /* NULL, a label, or "nodename" */
	const char *re;          /* the name as an RE2 inside a string */
	const char *lit;         /* the name inside a string */
} naming;

/* The series of exporter metric `metric` about the node, as the map names
 * them: by a label; by instance without its port ("host:9100",
 * "[fe80::1]:9100", the name itself); or, for "nodename", those of an
 * instance whose node_uname_info has the name, and those of an instance
 * without node_uname_info whose instance names it (the map's fallback). */
static bool exporter_sel(const naming *n, const char *metric, char *out, size_t len)
{
	char by_instance[4096]; /* the selector, the name's RE twice */
	int w = snprintf(by_instance, sizeof by_instance, "%s{%.*s%sinstance=~\"(%s|\\\\[%s\\\\])(:[0-9]+)?\"}", metric,
			 n->inner_len, n->inner, n->sep, n->re, n->re);
	if (w < 0 || (size_t)w >= sizeof by_instance) {
		return false;
	}
	if (!n->node_label) {
		w = snprintf(out, len, "%s", by_instance);
	} else if (strcmp(n->node_label, "nodename") == 0) {
		w = snprintf(out, len,
			     "(%s{%.*s} * on(instance) group_left() node_uname_info{%.*s%snodename=\"%s\"}"
			     " or %s unless on(instance) node_uname_info{%.*s})",
			     metric, n->inner_len, n->inner, n->inner_len, n->inner, n->sep, n->lit, by_instance,
			     n->inner_len, n->inner);
	} else {
		w = snprintf(out, len, "%s{%.*s%s%s=\"%s\"}", metric, n->inner_len, n->inner, n->sep, n->node_label,
			     n->lit);
	}
	return w >= 0 && (size_t)w < len;
}

int prometheus_history_query(remote_series_id id, const char *name, const char *node_label, const char *selector,
			     char *buf, size_t len)
{
	/* room for the longest selector (1,024) and name (NODE_NAME_LEN), every
	 * character quoted: the test's worst case fits PROM_HISTORY_QUERY_MAX */
	char re[3 * NODE_NAME_LEN], lit[2 * NODE_NAME_LEN], own[2048], a[8192], b[8192];
	size_t n = strlen(selector);
	naming nm = {n >= 2 ? selector + 1 : "", n >= 2 ? (int)(n - 2) : 0, n > 2 ? "," : "", node_label, re, lit};
	if (!*name || !quote(name, true, re, sizeof re) || !quote(name, false, lit, sizeof lit)) {
		return -1;
	}
	/* synctop's own series and linuxptp-daemon's: by their node label */
	int w = snprintf(own, sizeof own, "{%.*s%snode=\"%s\"}", nm.inner_len, nm.inner, nm.sep, lit);
	if (w < 0 || (size_t)w >= sizeof own) {
		return -1;
	}
	if (id == REMOTE_SERIES_OFFSET) {
		if (!exporter_sel(&nm, "chrony_tracking_system_time_seconds", a, sizeof a) ||
		    !exporter_sel(&nm, "node_timex_offset_seconds", b, sizeof b)) {
			return -1;
		}
		w = snprintf(buf, len,
			     "label_replace(-%s, \"synctop_from\", \"chrony\", \"\", \"\")"
			     " or label_replace(synctop_chrony_offset_seconds%s, \"synctop_from\", \"synctop\", \"\", \"\")"
			     " or label_replace(-%s, \"synctop_from\", \"timex\", \"\", \"\")",
			     a, own, b);
	} else if (id == REMOTE_SERIES_FREQUENCY) {
		if (!exporter_sel(&nm, "chrony_tracking_frequency_ppms", a, sizeof a) ||
		    !exporter_sel(&nm, "node_timex_frequency_adjustment_ratio", b, sizeof b)) {
			return -1;
		}
		w = snprintf(buf, len,
			     "label_replace(%s, \"synctop_from\", \"chrony\", \"\", \"\")"
			     " or label_replace(synctop_chrony_frequency_ratio%s * 1e6, \"synctop_from\", \"synctop\", \"\","
			     " \"\")"
			     " or label_replace((1 - %s) * 1e6, \"synctop_from\","
			     " \"timex\", \"\", \"\")",
			     a, own, b);
	} else if (id == REMOTE_SERIES_PTP_OFFSET) {
		/* linuxptp-daemon's 999999 is its faultyOffset marker, not an
		 * offset (prometheus_map.c reads it so too) */
		w = snprintf(buf, len,
			     "label_replace(synctop_ptp_offset_seconds%s * 1e9, \"synctop_from\", \"synctop\", \"\", \"\")"
			     " or label_replace(openshift_ptp_offset_ns{%.*s%sfrom=\"master\",process=\"ptp4l\",node=\"%s\"}"
			     " != 999999, \"synctop_from\", \"openshift\", \"\", \"\")",
			     own, nm.inner_len, nm.inner, nm.sep, lit);
	} else {
		return -1;
	}
	return w < 0 || (size_t)w >= len ? -1 : w;
}

void prometheus_history_origin(const conffile *conf, const char *host, size_t n_cli_urls, const char *cli_selector,
			       const char *cli_node_label, prom_history_origin *out)
{
	node_settings ns;
	int g = conf ? conffile_resolve(conf, host, &ns) : -1;
	const conffile_prometheus *cp = g >= 0 ? conffile_group_prometheus(conf, (size_t)g) : NULL;
	*out = (prom_history_origin){0, cli_selector ? cli_selector : "", cli_node_label};
	if (!cp) {
		return;
	}
	out->set = n_cli_urls ? 1 : 0;
	for (int i = 0; i < g; i++) {
		out->set += conffile_group_prometheus(conf, (size_t)i) != NULL;
	}
	out->selector = cp->selector ? cp->selector : "";
	out->node_label = cp->node_label;
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
