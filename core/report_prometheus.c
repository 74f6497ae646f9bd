/* report_prometheus.c - the fleet in the Prometheus text exposition format
 * and its atomic write (the metrics are listed in docs/prometheus.md). */
#include <config.h>

#include "report_prometheus.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "cluster.h"
#include "collector.h"
#include "sanitize.h"
#include "xalloc.h"

#define CLEAN_LEN(raw) PROM_CLEAN_LEN(raw)

/* Finding codes are static strings; bounded as the JSON sink bounds them. */
#define CODE_MAX FINDING_MESSAGE_LEN

/* Writes one metric family at a time.  # HELP and # TYPE go out with the
 * first sample, so a family nobody has a value for is left out whole
 * rather than announced empty. */
struct prom_writer {
	FILE *out;
	const char *name;
	const char *type;
	const char *help;
	bool announced;
	const char *node; /* the node being written */
};
typedef struct prom_writer writer;

/* A node as the exposition names it. */
typedef struct {
	const node *nd;
	char *name; /* sanitised host (xmalloc'd) */
	bool skip;  /* a node earlier in the inventory has the same name */
} entry;

static void family(writer *w, const char *name, const char *type, const char *help)
{
	w->name = name;
	w->type = type;
	w->help = help;
	w->announced = false;
}

/* Label values may hold any UTF-8; the format escapes exactly these three. */
static void put_escaped(FILE *f, const char *s)
{
	if (!strpbrk(s, "\\\"\n")) {
		fputs(s, f); /* the usual case, and many times faster */
		return;
	}
	for (; *s; s++) {
		switch (*s) {
		case '\\': fputs("\\\\", f); break;
		case '"': fputs("\\\"", f); break;
		case '\n': fputs("\\n", f); break;
		default: fputc(*s, f); break;
		}
	}
}

/* The shortest text that reads back as the same double ("0.001", not
 * "0.00100000000000000002"); whole numbers without an exponent while they
 * are exact. */
static void put_number(FILE *f, double v)
{
	char buf[40];

	if (v == trunc(v) && fabs(v) < 1e15) {
		snprintf(buf, sizeof buf, "%.0f", v);
	} else {
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof buf, "%.*g", prec, v);
			if (strtod(buf, NULL) == v) {
				break;
			}
		}
	}
	fputs(buf, f);
}

/* One sample of the current family; an unknown (non-finite) value is left
 * out, never written as NaN or 0. */
void prom_sample(prom_writer *w, const prom_label *labels, size_t n_labels, double v)
{
	if (!isfinite(v)) {
		return;
	}
	if (!w->announced) {
		fprintf(w->out, "# HELP %s %s\n# TYPE %s %s\n", w->name, w->help, w->name, w->type);
		w->announced = true;
	}
	fputs(w->name, w->out);
	if (n_labels > 0) {
		fputc('{', w->out);
		for (size_t i = 0; i < n_labels; i++) {
			if (i > 0) {
				fputc(',', w->out);
			}
			fputs(labels[i].key, w->out);
			fputs("=\"", w->out);
			put_escaped(w->out, labels[i].value);
			fputc('"', w->out);
		}
		fputc('}', w->out);
	}
	fputc(' ', w->out);
	put_number(w->out, v);
	fputc('\n', w->out);
}

static void node_sample(writer *w, const entry *e, double v)
{
	prom_label l = {"node", e->name};
	prom_sample(w, &l, 1, v);
}

const char *prom_node(const prom_writer *w)
{
	return w->node;
}

void prom_clean(char *buf, size_t len, const char *s, size_t max)
{
	sanitize_text(s, strnlen(s, max), buf, len, SANITIZE_SINGLE_LINE);
}

static int clamp_count(int n, int max)
{
	if (n < 0) {
		return 0;
	}
	return n < max ? n : max;
}

/* ------------------------------------------------------------ the model */

static const clock_check_obs *clock_check_of(const node *nd)
{
	return node_answered(nd) && nd->obs.clock.state == OBS_OK ? &nd->obs.clock : NULL;
}

double prom_int(int v)
{
	return v == INT_UNKNOWN ? NAN : (double)v;
}

/* Dividing by the exact 1e9 gives the double nearest the true value, so
 * -6600 ns prints as -6.6e-06. */
double prom_ns_seconds(int64_t ns)
{
	return ns == PTP_NS_UNKNOWN ? NAN : (double)ns / 1e9;
}

double prom_ppm_ratio(double ppm)
{
	return ppm / 1e6;
}

/* ------------------------------------------------- one value per node */

static double v_up(const node *nd)
{
	return nd->reachable ? 1 : 0;
}

static double v_status(const node *nd)
{
	switch (cluster_node_status(nd)) {
	case NODE_STATUS_OK: return 0;
	case NODE_STATUS_WARN: return 1;
	case NODE_STATUS_CRIT: return 2;
	case NODE_STATUS_UNKNOWN:
	case NODE_STATUS_PENDING: /* cluster_node_status never says it */
		break;
	}
	return 3;
}

static double v_polls_completed(const node *nd)
{
	return (double)nd->polls_completed;
}

static double v_polls_failed(const node *nd)
{
	return (double)nd->polls_failed;
}

/* Written for a node we lost too: its age is how long it has been gone. */
static double v_observed_at(const node *nd)
{
	return nd->has_observation ? nd->obs.taken_at : NAN;
}

static double v_rtt(const node *nd)
{
	return node_answered(nd) ? nd->obs.rtt_s : NAN;
}

#define CLOCK_CHECK_VALUE(fn, expr) \
	static double fn(const node *nd) \
	{ \
		const clock_check_obs *c = clock_check_of(nd); \
		return c ? (expr) : NAN; \
	}

CLOCK_CHECK_VALUE(v_clock_check_offset, c->offset_s)
CLOCK_CHECK_VALUE(v_clock_check_uncertainty, c->uncertainty_s)
CLOCK_CHECK_VALUE(v_clock_check_at, c->measured_at)

/* ------------------------------------------ several series per node */

static void emit_part_up(writer *w, const entry *e)
{
	const node *nd = e->nd;
	if (!node_answered(nd)) {
		return;
	}
	const observation *o = &nd->obs;
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *c = collector_registry[i];
		if (!c->part_state || collector_part_absent(c, o)) {
			continue; /* not asked for, or the tool is not installed */
		}
		prom_label l[] = {{"node", e->name}, {"part", c->json_key}};
		prom_sample(w, l, 2, c->part_state(o) == OBS_OK ? 1 : 0);
	}
	if (o->clock.state != OBS_NOT_COLLECTED) {
		prom_label l[] = {{"node", e->name}, {"part", "clock_check"}};
		prom_sample(w, l, 2, o->clock.state == OBS_OK ? 1 : 0);
	}
}

/* Counts are written when the health rules judged the node (it answered),
 * or when it carries findings anyway (the cluster-wide ones). */
static void emit_findings(writer *w, const entry *e)
{
	const node *nd = e->nd;
	int count = clamp_count(nd->findings.count, MAX_FINDINGS);
	if (!node_answered(nd) && count == 0) {
		return;
	}
	static const severity sevs[] = {SEVERITY_WARN, SEVERITY_CRIT};
	for (size_t s = 0; s < sizeof sevs / sizeof sevs[0]; s++) {
		int k = 0;
		for (int i = 0; i < count; i++) {
			k += nd->findings.items[i].sev == sevs[s];
		}
		prom_label l[] = {{"node", e->name}, {"severity", severity_name(sevs[s])}};
		prom_sample(w, l, 2, k);
	}
}

static const char *finding_code(const finding *f)
{
	return f->code ? f->code : "";
}

/* One series per (code, severity), valued by how many findings share it:
 * one rule can speak twice (e.g. collector.daemon_unreachable for chronyd
 * and for ptp4l), and a repeated series would invalidate the file. */
static void emit_finding(writer *w, const entry *e)
{
	const finding_list *list = &e->nd->findings;
	int count = clamp_count(list->count, MAX_FINDINGS);
	for (int i = 0; i < count; i++) {
		const finding *f = &list->items[i];
		bool seen = false;
		int k = 0;
		for (int j = 0; j < count; j++) {
			const finding *g = &list->items[j];
			if (g->sev != f->sev || strncmp(finding_code(g), finding_code(f), CODE_MAX) != 0) {
				continue;
			}
			if (j < i) {
				seen = true;
				break;
			}
			k++;
		}
		if (seen) {
			continue;
		}
		char code[CLEAN_LEN(CODE_MAX)];
		prom_clean(code, sizeof code, finding_code(f), CODE_MAX);
		prom_label l[] = {{"node", e->name}, {"code", code}, {"severity", severity_name(f->sev)}};
		prom_sample(w, l, 3, k);
	}
}

/* ------------------------------------------------------ the families */

typedef double (*node_value)(const node *nd);
typedef void (*node_emit)(writer *w, const entry *e);

/* Exactly one of get (one series per node, label node) and emit. */
typedef struct {
	const char *name;
	const char *type;
	const char *help;
	node_value get;
	node_emit emit;
} node_family;

static const node_family node_families[] = {
	{"synctop_node_up", "gauge",
	 "1 if the node's last poll completed, else 0.", v_up, NULL},
	{"synctop_node_status", "gauge",
	 "Node health, the worst finding: 0 ok, 1 warn, 2 crit, 3 unknown (unreachable or not yet polled).",
	 v_status, NULL},
	{"synctop_node_polls_completed_total", "counter",
	 "Polls of the node answered and decoded since synctop started.", v_polls_completed, NULL},
	{"synctop_node_polls_failed_total", "counter",
	 "Polls of the node that failed (deadline, flood, lost connection) since synctop started.",
	 v_polls_failed, NULL},
	{"synctop_node_observation_timestamp_seconds", "gauge",
	 "Unix time (synctop's clock) when the node's latest answer arrived.", v_observed_at, NULL},
	{"synctop_node_poll_rtt_seconds", "gauge",
	 "Round trip of the node's last poll, request sent to answer complete.", v_rtt, NULL},
	{"synctop_part_up", "gauge",
	 "1 if the tool behind this part answered usably in the last poll, else 0; absent when the tool is not installed.",
	 NULL, emit_part_up},

	/* then each collector's families (collector.h), then: */
	{NULL, NULL, NULL, NULL, NULL},

	{"synctop_clock_check_offset_seconds", "gauge",
	 "Independent clock check: node clock minus synctop's clock, over the SSH session.",
	 v_clock_check_offset, NULL},
	{"synctop_clock_check_uncertainty_seconds", "gauge",
	 "Independent clock check: the true offset lies within +- this (half the best round trip).",
	 v_clock_check_uncertainty, NULL},
	{"synctop_clock_check_timestamp_seconds", "gauge",
	 "Unix time (synctop's clock) of the clock check's best exchange.", v_clock_check_at, NULL},

	{"synctop_findings", "gauge",
	 "Findings of the health rules about the node, by severity.", NULL, emit_findings},
	{"synctop_finding", "gauge",
	 "Findings with this code and severity on the node (normally 1); see `synctop --check -v` for the text.",
	 NULL, emit_finding},
};

/* An earlier collector already declares a family of this name. */
static bool family_declared_before(size_t c, const char *name)
{
	for (size_t k = 0; k < c; k++) {
		const collector *col = collector_registry[k];
		for (size_t f = 0; f < col->n_prometheus; f++) {
			if (strcmp(col->prometheus[f].name, name) == 0) {
				return true;
			}
		}
	}
	return false;
}

static void write_family_samples(writer *w, const prom_family *fam, const entry *entries, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const node *nd = entries[i].nd;
		if (entries[i].skip || !node_answered(nd)) {
			continue;
		}
		w->node = entries[i].name;
		if (fam->get) {
			node_sample(w, &entries[i], fam->get(&nd->obs));
		} else {
			fam->emit(w, &nd->obs);
		}
	}
}

/* Each collector's families, for the nodes that answered their last poll.
 * Collectors may share a family name (ntpd's series carry chrony's names
 * with a daemon label): the family is written once, where the first
 * collector declares it, with every collector's samples. */
static void write_collector_families(writer *w, const entry *entries, size_t n)
{
	for (size_t c = 0; c < collector_registry_count; c++) {
		const collector *col = collector_registry[c];
		for (size_t f = 0; f < col->n_prometheus; f++) {
			const prom_family *fam = &col->prometheus[f];
			if (family_declared_before(c, fam->name)) {
				continue;
			}
			family(w, fam->name, fam->type, fam->help);
			for (size_t k = c; k < collector_registry_count; k++) {
				const collector *other = collector_registry[k];
				for (size_t g = 0; g < other->n_prometheus; g++) {
					if (strcmp(other->prometheus[g].name, fam->name) == 0) {
						write_family_samples(w, &other->prometheus[g], entries, n);
					}
				}
			}
		}
	}
}

/* ---------------------------------------------------------- the fleet */

static void emit_cluster(writer *w, const cluster_summary *s, size_t duplicates, double now)
{
	const struct {
		const char *status;
		size_t count;
	} statuses[] = {
		{"ok", s->ok}, {"warn", s->warn}, {"crit", s->crit}, {"unknown", s->unknown},
	};

	family(w, "synctop_cluster_nodes", "gauge", "Nodes in the inventory, by status.");
	for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
		prom_label l = {"status", statuses[i].status};
		prom_sample(w, &l, 1, (double)statuses[i].count);
	}

	family(w, "synctop_cluster_chrony_nodes", "gauge",
	       "Nodes whose chrony offset went into the cluster offset figures (answered, chrony ok).");
	prom_sample(w, NULL, 0, (double)s->chrony_nodes);
	family(w, "synctop_cluster_max_abs_offset_seconds", "gauge",
	       "Largest absolute chrony offset over those nodes.");
	prom_sample(w, NULL, 0, s->max_abs_offset_s);
	family(w, "synctop_cluster_offset_spread_seconds", "gauge",
	       "Largest minus smallest chrony offset over those nodes: how far apart the fleet is.");
	prom_sample(w, NULL, 0, s->offset_spread_s);

	family(w, "synctop_cluster_ptp_nodes", "gauge",
	       "Nodes whose PTP offset went into the cluster PTP figures (answered, a SLAVE port).");
	prom_sample(w, NULL, 0, (double)s->ptp_nodes);
	family(w, "synctop_cluster_ptp_max_abs_offset_seconds", "gauge",
	       "Largest absolute PTP offsetFromMaster over those nodes.");
	prom_sample(w, NULL, 0, s->ptp_max_abs_offset_ns / 1e9);
	family(w, "synctop_cluster_ptp_offset_spread_seconds", "gauge",
	       "Largest minus smallest PTP offsetFromMaster over those nodes.");
	prom_sample(w, NULL, 0, s->ptp_offset_spread_ns / 1e9);

	family(w, "synctop_cluster_grandmasters", "gauge",
	       "Distinct grandmaster identities the nodes follow; more than 1 usually means a split domain.");
	prom_sample(w, NULL, 0, (double)(s->n_gms + s->gms_more));
	family(w, "synctop_cluster_grandmaster_nodes", "gauge",
	       "Nodes following this grandmaster (the 8 most followed).");
	for (size_t i = 0; i < s->n_gms && i < CLUSTER_MAX_GMS; i++) {
		char gm[CLEAN_LEN(PTP_ID_LEN)];
		prom_clean(gm, sizeof gm, s->gms[i].identity, sizeof s->gms[i].identity);
		prom_label l = {"grandmaster", gm};
		prom_sample(w, &l, 1, (double)s->gms[i].nodes);
	}

	family(w, "synctop_export_duplicate_nodes", "gauge",
	       "Nodes left out of this file because an earlier node has the same name.");
	prom_sample(w, NULL, 0, (double)duplicates);
	family(w, "synctop_last_sweep_timestamp_seconds", "gauge",
	       "Unix time when synctop wrote this file, at the end of a sweep.");
	prom_sample(w, NULL, 0, now);
}

/* Host order, then inventory order (the pointers are into one array). */
static int cmp_entry(const void *a, const void *b)
{
	const entry *x = *(const entry *const *)a, *y = *(const entry *const *)b;
	int c = strcmp(x->name, y->name);
	if (c != 0) {
		return c;
	}
	return x < y ? -1 : (x > y);
}

/* Name every node and mark the later ones of each name; returns how many. */
static size_t name_entries(const node *nodes, size_t n, entry *entries)
{
	char buf[CLEAN_LEN(NODE_NAME_LEN)];

	for (size_t i = 0; i < n; i++) {
		prom_clean(buf, sizeof buf, nodes[i].host, sizeof nodes[i].host);
		entries[i].nd = &nodes[i];
		entries[i].name = xstrdup(buf);
		entries[i].skip = false;
	}
	if (n < 2) {
		return 0;
	}
	/* sorted is an array of pointers: sizeof *sorted is meant */
	entry **sorted = xmalloc(n * sizeof *sorted); /* NOLINT(bugprone-sizeof-expression) */
	for (size_t i = 0; i < n; i++) {
		sorted[i] = &entries[i];
	}
	qsort(sorted, n, sizeof *sorted, cmp_entry); /* NOLINT(bugprone-sizeof-expression) */
	size_t duplicates = 0;
	for (size_t i = 1; i < n; i++) {
		if (strcmp(sorted[i]->name, sorted[i - 1]->name) == 0) {
			sorted[i]->skip = true;
			duplicates++;
		}
	}
	free(sorted);
	return duplicates;
}

int report_prometheus_format(FILE *out, const node *nodes, size_t n, const cluster_summary *summary,
			     double now)
{
	cluster_summary own;
	if (!summary) {
		cluster_summarise(nodes, n, &own);
		summary = &own;
	}
	/* The format wants "0.5" whatever LC_NUMERIC the program runs under. */
	locale_t c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c_locale == (locale_t)0) {
		return -1;
	}
	locale_t old_locale = uselocale(c_locale);

	entry *entries = xmalloc((n ? n : 1) * sizeof *entries);
	size_t duplicates = name_entries(nodes, n, entries);
	writer w = {.out = out};

	for (size_t f = 0; f < sizeof node_families / sizeof node_families[0]; f++) {
		const node_family *fam = &node_families[f];
		if (fam->name == NULL) {
			write_collector_families(&w, entries, n);
			continue;
		}
		family(&w, fam->name, fam->type, fam->help);
		for (size_t i = 0; i < n; i++) {
			if (entries[i].skip) {
				continue;
			}
			w.node = entries[i].name;
			if (fam->get) {
				node_sample(&w, &entries[i], fam->get(entries[i].nd));
			} else {
				fam->emit(&w, &entries[i]);
			}
		}
	}
	emit_cluster(&w, summary, duplicates, now);

	int rc = fflush(out) != 0 || ferror(out) ? -1 : 0;
	int saved = errno;
	for (size_t i = 0; i < n; i++) {
		free(entries[i].name);
	}
	free(entries);
	uselocale(old_locale);
	freelocale(c_locale);
	errno = saved;
	return rc;
}

/* ------------------------------------------------------------ the file */

int report_prometheus_write(const char *path, const node *nodes, size_t n, const cluster_summary *summary,
			    double now, char *err, size_t err_len)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		snprintf(err, err_len, "%s: cannot format the metrics: %s", path, strerror(errno));
		return -1;
	}
	int rc = report_prometheus_format(f, nodes, n, summary, now);
	int e = errno;
	if (fclose(f) != 0 || rc != 0) {
		snprintf(err, err_len, "%s: cannot format the metrics: %s", path, strerror(rc ? e : errno));
		free(text);
		return -1;
	}
	rc = atomic_file_replace(path, text, len, err, err_len);
	free(text);
	return rc;
}
