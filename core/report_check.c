/* report_check.c - problem lines, summary line and exit code for --check. */
#include <config.h>

#include "report_check.h"

#include <stdlib.h>
#include <string.h>

#include "hostlist.h"
#include "sanitize.h"
#include "units.h"
#include "xalloc.h"

/* Room for a sanitised 256-byte model string (each byte can become 3). */
#define LINE_BUF 1024

/* Line order: an unreachable node outranks a warning, as in the exit code. */
enum {
	RANK_WARN = 1,
	RANK_UNKNOWN,
	RANK_CRIT,
};

static void clean(const char *s, size_t max, char *buf, size_t len)
{
	sanitize_text(s, strnlen(s, max), buf, len, SANITIZE_SINGLE_LINE);
}

static int rank_of(severity sev)
{
	switch (sev) {
	case SEVERITY_WARN: return RANK_WARN;
	case SEVERITY_CRIT: return RANK_CRIT;
	case SEVERITY_OK: break;
	}
	return 0;
}

static int finding_count(const node *nd)
{
	if (nd->findings.count < 0) {
		return 0;
	}
	return nd->findings.count < MAX_FINDINGS ? nd->findings.count : MAX_FINDINGS;
}

/* Host order; equal names keep inventory order (the pointers are into one
 * array, so comparing them is comparing indices). */
static int cmp_host(const void *a, const void *b)
{
	const node *x = *(const node *const *)a, *y = *(const node *const *)b;
	int c = strncmp(x->host, y->host, NODE_NAME_LEN);
	if (c != 0) {
		return c;
	}
	return x < y ? -1 : (x > y);
}

static void print_unknown(FILE *f, const node *nd, const char *host)
{
	char why[LINE_BUF];

	clean(nd->error, sizeof nd->error, why, sizeof why);
	if (why[0] == '\0') {
		const char *fallback = "status unknown";
		if (!nd->has_observation) {
			fallback = "no completed poll yet";
		} else if (!nd->reachable) {
			fallback = "unreachable";
		}
		snprintf(why, sizeof why, "%s", fallback);
	}
	fprintf(f, "%s UNKNOWN: %s\n", host, why);
}

/* Every line of one node at one rank, findings in their own order. */
static void print_node_rank(FILE *f, const node *nd, int rank, bool verbose)
{
	char host[LINE_BUF], code[LINE_BUF], msg[LINE_BUF], hint[LINE_BUF];

	clean(nd->host, sizeof nd->host, host, sizeof host);
	if (rank == RANK_UNKNOWN) {
		if (cluster_node_status(nd) == NODE_STATUS_UNKNOWN) {
			print_unknown(f, nd, host);
		}
		return;
	}
	for (int k = 0; k < finding_count(nd); k++) {
		const finding *fd = &nd->findings.items[k];
		if (rank_of(fd->sev) != rank) {
			continue;
		}
		clean(fd->code ? fd->code : "-", FINDING_MESSAGE_LEN, code, sizeof code);
		clean(fd->message, sizeof fd->message, msg, sizeof msg);
		fprintf(f, "%s %s %s: %s\n", host, rank == RANK_CRIT ? "CRIT" : "WARN", code, msg);
		if (verbose && fd->hint[0] != '\0') {
			clean(fd->hint, sizeof fd->hint, hint, sizeof hint);
			fprintf(f, "  fix: %s\n", hint);
		}
	}
}

static void print_summary(FILE *f, const cluster_summary *s)
{
	char a[UNITS_BUF_LEN], b[UNITS_BUF_LEN];

	fprintf(f, "synctop check: %zu node%s: %zu ok, %zu warn, %zu crit, %zu unknown", s->nodes, s->nodes == 1 ? "" : "s", s->ok, s->warn,
		s->crit, s->unknown);
	/* every NTP daemon's offset: chronyd, ntpd, openntpd, systemd-timesyncd */
	fprintf(f, "; max |offset| %s, spread %s",
		units_unsigned(units_format_seconds(s->service_max_abs_offset_s, a, sizeof a)),
		units_unsigned(units_format_seconds(s->service_offset_spread_s, b, sizeof b)));
	if (s->ptp_nodes > 0) {
		/* via seconds: a spread of two extreme int64 values does not fit
		 * back into an int64 */
		fprintf(f, "; ptp max |offset| %s, spread %s",
			units_unsigned(units_format_seconds(s->ptp_max_abs_offset_ns * 1e-9, a, sizeof a)),
			units_unsigned(units_format_seconds(s->ptp_offset_spread_ns * 1e-9, b, sizeof b)));
	}
	size_t total = s->n_gms + s->gms_more;
	if (total > 0) {
		fprintf(f, "; %zu grandmaster%s:", total, total == 1 ? "" : "s");
		for (size_t i = 0; i < s->n_gms && i < CLUSTER_MAX_GMS; i++) {
			char id[LINE_BUF];
			clean(s->gms[i].identity, sizeof s->gms[i].identity, id, sizeof id);
			fprintf(f, "%s %s (%zu node%s)", i > 0 ? "," : "", id, s->gms[i].nodes,
				s->gms[i].nodes == 1 ? "" : "s");
		}
		if (s->gms_more > 0) {
			fprintf(f, " and %zu more", s->gms_more);
		}
	}
	fputc('\n', f);
}

/* The exit code of a summary, as report_check.h states it. */
static int exit_code(const cluster_summary *s, severity fail_on)
{
	if (s->crit > 0) {
		return REPORT_CHECK_CRIT;
	}
	if (s->unknown > 0 || s->nodes == 0) {
		return REPORT_CHECK_UNKNOWN;
	}
	if (s->warn > 0 && fail_on != SEVERITY_CRIT) {
		return REPORT_CHECK_WARN;
	}
	return REPORT_CHECK_OK;
}

/* Whether the node is one the exit code fails on: crit or unknown always,
 * warn unless only crit fails. */
static bool node_fails(const node *nd, severity fail_on)
{
	switch (cluster_node_status(nd)) {
	case NODE_STATUS_OK: return false;
	case NODE_STATUS_WARN: return fail_on != SEVERITY_CRIT;
	case NODE_STATUS_CRIT:
	case NODE_STATUS_UNKNOWN:
	case NODE_STATUS_PENDING: /* cluster_node_status never says it */
		break;
	}
	return true;
}

char *report_check_failing_hostlist(const node *nodes, size_t n, severity fail_on, char *err, size_t err_len)
{
	/* names is an array of pointers: sizeof *names is meant */
	const char **names = xmalloc((n ? n : 1) * sizeof *names); /* NOLINT(bugprone-sizeof-expression) */
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (node_fails(&nodes[i], fail_on)) {
			names[m++] = nodes[i].host;
		}
	}
	char *expr = hostlist_compress(names, m, err, err_len);
	free(names);
	return expr;
}

/* "hosts not ok: EXPR", only when some host fails; a name no host list can
 * hold (which the inventory never makes) is said instead of a broken list. */
static void print_hostlist_line(FILE *f, const node *nodes, size_t n, severity fail_on)
{
	char err[256], shown[LINE_BUF];
	char *expr = report_check_failing_hostlist(nodes, n, fail_on, err, sizeof err);
	if (!expr) {
		clean(err, sizeof err, shown, sizeof shown);
		fprintf(f, "hosts not ok: (no host list: %s)\n", shown);
		return;
	}
	if (expr[0] != '\0') {
		fprintf(f, "hosts not ok: %s\n", expr);
	}
	free(expr);
}

int report_check_write_hostlist(FILE *f, const node *nodes, size_t n, const cluster_summary *s,
				severity fail_on)
{
	cluster_summary own;
	char err[256];
	if (!s) {
		cluster_summarise(nodes, n, &own);
		s = &own;
	}
	char *expr = report_check_failing_hostlist(nodes, n, fail_on, err, sizeof err);
	if (!expr) {
		/* nothing a scontrol line could take: say why, on stderr */
		fprintf(stderr, "synctop: --hostlist-only: %s\n", err);
		return REPORT_CHECK_UNKNOWN;
	}
	if (expr[0] != '\0') {
		fprintf(f, "%s\n", expr);
	}
	free(expr);
	return exit_code(s, fail_on);
}

int report_check_write(FILE *f, const node *nodes, size_t n, const cluster_summary *s, severity fail_on,
		       bool verbose)
{
	cluster_summary own;
	if (!s) {
		cluster_summarise(nodes, n, &own);
		s = &own;
	}

	/* order is an array of pointers: sizeof *order is meant */
	const node **order = xmalloc((n ? n : 1) * sizeof *order); /* NOLINT(bugprone-sizeof-expression) */
	for (size_t i = 0; i < n; i++) {
		order[i] = &nodes[i];
	}
	qsort(order, n, sizeof *order, cmp_host); /* NOLINT(bugprone-sizeof-expression) */

	for (int rank = RANK_CRIT; rank >= RANK_WARN; rank--) {
		for (size_t k = 0; k < n; k++) {
			print_node_rank(f, order[k], rank, verbose);
		}
	}
	free(order);
	print_hostlist_line(f, nodes, n, fail_on);
	print_summary(f, s);
	return exit_code(s, fail_on);
}
