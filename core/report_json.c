/* report_json.c - build and print the JSON snapshot (shape in report_json.h). */
#include <config.h>

#include "report_json.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "collector.h"
#include "json_value.h"
#include "sanitize.h"
#include "ssh_detail.h"

/* Largest model string is 256 bytes; sanitising can triple it. */
#define TEXT_BUF 1024

/* ---------------------------------------------------- the clock check */

static json_t *clock_json(const clock_check_obs *cc, bool *ok)
{
	if (cc->state == OBS_NOT_COLLECTED) {
		return json_null();
	}
	bool good = cc->state == OBS_OK;
	json_t *o = json_object();
	json_value_put(o, "error", json_value_part_error(cc->state, cc->error, sizeof cc->error), ok);
	json_value_put(o, "offset_s", good ? json_value_number(cc->offset_s) : json_null(), ok);
	json_value_put(o, "uncertainty_s", good ? json_value_number(cc->uncertainty_s) : json_null(), ok);
	json_value_put(o, "exchanges", json_integer(cc->exchanges), ok);
	json_value_put(o, "measured_at", good ? json_value_time(cc->measured_at) : json_null(), ok);
	return o;
}

/* ---------------------------------------------------------------- the rest */

static json_t *findings_json(const finding_list *list, bool *ok)
{
	json_t *arr = json_array();
	for (int i = 0; i < json_value_clamp(list->count, MAX_FINDINGS); i++) {
		const finding *f = &list->items[i];
		json_t *o = json_object();
		json_value_put(o, "severity", json_string(severity_name(f->sev)), ok);
		json_value_put(o, "code", f->code ? json_value_text(f->code, FINDING_MESSAGE_LEN) : json_null(), ok);
		json_value_put(o, "message", json_value_text(f->message, sizeof f->message), ok);
		json_value_put(o, "hint", json_value_text(f->hint, sizeof f->hint), ok);
		/* the live view's `for` (finding_wait.h); --once never waits */
		json_value_put(o, "pending", json_boolean(f->pending), ok);
		json_value_put(o, "since", f->since > 0 ? json_value_time(f->since) : json_null(), ok);
		json_value_append(arr, o, ok);
	}
	return arr;
}

static json_t *node_json(const node *nd, bool *ok)
{
	const observation *obs = &nd->obs;
	/* without a completed poll, obs holds nothing worth printing */
	bool has = nd->has_observation;
	char host[TEXT_BUF];

	sanitize_text(nd->host, strnlen(nd->host, sizeof nd->host), host, sizeof host, SANITIZE_SINGLE_LINE);
	json_t *o = json_object();
	json_value_put(o, "host", json_string(host), ok);
	json_value_put(o, "status", json_string(node_status_name(cluster_node_status(nd))), ok);
	json_value_put(o, "reachable", json_boolean(nd->reachable), ok);
	json_value_put(o, "error", json_value_text(nd->error, sizeof nd->error), ok);
	json_value_put(o, "observed_at", has ? json_value_time(obs->taken_at) : json_null(), ok);
	json_value_put(o, "rtt_s", has ? json_value_number(obs->rtt_s) : json_null(), ok);
	/* each collector's part, in registry order (collector.h) */
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *c = collector_registry[i];
		/* a key shared with an earlier collector (collector.h) is
		 * written by the first whose part says something; jansson
		 * keeps the key where it was first set */
		json_t *earlier = c->json_key ? json_object_get(o, c->json_key) : NULL;
		if (c->json_key && (!earlier || json_is_null(earlier))) {
			json_value_put(o, c->json_key, has ? c->json(obs, ok) : json_null(), ok);
		}
		if (c->json_list_key) {
			json_value_put(o, c->json_list_key, has ? c->json_list(obs, ok) : json_null(), ok);
		}
	}
	json_value_put(o, "clock_check", has ? clock_json(&obs->clock, ok) : json_null(), ok);
	/* chrony.drift_daily's trend: a Prometheus server's, else --state-dir's; null until a day is known */
	json_value_put(o, "frequency_drift_ppm_per_day", json_value_number(history_drift_daily(&nd->history)), ok);
	/* chrony.drift's slope as a Prometheus server computed it; null over SSH
	 * (the rule reads the poll history's ring there) */
	json_value_put(o, "frequency_drift_ppm_per_hour", json_value_number(nd->history.remote_drift_hourly_ppm), ok);
	json_value_put(o, "findings", findings_json(&nd->findings, ok), ok);
	for (size_t i = 0; has && i < collector_registry_count; i++) {
		const collector *c = collector_registry[i];
		json_t *tail = c->json_tail_key ? c->json_tail(obs, ok) : NULL;
		if (tail) {
			json_value_put(o, c->json_tail_key, tail, ok);
		}
	}
	return o;
}

/* A Prometheus node's one SSH poll (ssh_detail.h): the poll's own node
 * object (its host, status, error, parts and findings, as any SSH node's),
 * with when it was asked and whether it finished. */
static json_t *ssh_detail_json(const ssh_detail *sd, bool *ok)
{
	if (!sd) {
		return json_null();
	}
	json_t *o = node_json(&sd->node, ok);
	json_value_put(o, "asked_at", json_value_time(sd->asked_at), ok);
	json_value_put(o, "finished", json_boolean(sd->state == SSH_DETAIL_DONE), ok);
	return o;
}

/* --ssh-detail: once any node was polled over SSH, every node has the key
 * (null: not polled), so a script finds it in the same place on each. */
static bool any_ssh_detail(const node *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (nodes[i].ssh_detail != NULL) {
			return true;
		}
	}
	return false;
}

/* One element of "nodes", for the tree and the streamed document alike. */
static json_t *node_entry_json(const node *nd, bool details, bool *ok)
{
	json_t *o = node_json(nd, ok);
	if (details && o) {
		json_value_put(o, "ssh_detail", ssh_detail_json(nd->ssh_detail, ok), ok);
	}
	return o;
}

static json_t *summary_json(const cluster_summary *s, bool *ok)
{
	json_t *o = json_object();
	json_value_put(o, "nodes", json_value_count(s->nodes), ok);
	json_value_put(o, "ok", json_value_count(s->ok), ok);
	json_value_put(o, "warn", json_value_count(s->warn), ok);
	json_value_put(o, "crit", json_value_count(s->crit), ok);
	json_value_put(o, "unknown", json_value_count(s->unknown), ok);
	json_value_put(o, "max_abs_offset_s", json_value_number(s->max_abs_offset_s), ok);
	json_value_put(o, "offset_spread_s", json_value_number(s->offset_spread_s), ok);
	json_value_put(o, "ptp_max_abs_offset_ns", json_value_whole(s->ptp_max_abs_offset_ns), ok);
	json_value_put(o, "ptp_offset_spread_ns", json_value_whole(s->ptp_offset_spread_ns), ok);

	json_t *gms = json_array();
	for (size_t i = 0; i < s->n_gms && i < CLUSTER_MAX_GMS; i++) {
		json_t *gm = json_object();
		json_value_put(gm, "identity", json_value_text(s->gms[i].identity, sizeof s->gms[i].identity), ok);
		json_value_put(gm, "nodes", json_value_count(s->gms[i].nodes), ok);
		json_value_put(gm, "clock_class", json_value_int(s->gms[i].clock_class), ok);
		json_value_append(gms, gm, ok);
	}
	json_value_put(o, "grandmasters", gms, ok);
	json_value_put(o, "grandmasters_more", json_value_count(s->gms_more), ok);
	return o;
}

json_t *report_json_build(const node *nodes, size_t n, double generated_at)
{
	cluster_summary summary;
	bool ok = true;

	cluster_summarise(nodes, n, &summary);

	json_t *root = json_object();
	json_value_put(root, "version", json_integer(REPORT_JSON_VERSION), &ok);
	json_value_put(root, "generated_at", json_value_time(generated_at), &ok);
	json_value_put(root, "summary", summary_json(&summary, &ok), &ok);
	bool details = any_ssh_detail(nodes, n);
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++) {
		json_value_append(arr, node_entry_json(&nodes[i], details, &ok), &ok);
	}
	json_value_put(root, "nodes", arr, &ok);

	if (!ok) {
		json_decref(root);
		return NULL;
	}
	return root;
}

static json_t *source_json(const report_json_source *src, bool *ok)
{
	json_t *o = json_object();
	json_t *servers = json_array();
	char clean[2048];
	json_value_put(o, "kind", json_string(src->kind), ok);
	for (size_t i = 0; i < src->n_servers; i++) {
		/* typed by the user: still not trusted to be UTF-8 */
		sanitize_text(src->servers[i], strlen(src->servers[i]), clean, sizeof clean, SANITIZE_SINGLE_LINE);
		json_value_append(servers, json_string(clean), ok);
	}
	json_value_put(o, "servers", servers, ok);
	json_value_put(o, "answered", json_integer((json_int_t)src->answered), ok);
	if (src->error && src->error[0]) {
		/* remote text, cut to fit by the source: maybe mid-character */
		sanitize_text(src->error, strlen(src->error), clean, sizeof clean, SANITIZE_SINGLE_LINE);
		json_value_put(o, "error", json_string(clean), ok);
	} else {
		json_value_put(o, "error", json_null(), ok);
	}
	return o;
}

int report_json_write(FILE *f, const node *nodes, size_t n, double generated_at)
{
	return report_json_write_sourced(f, nodes, n, generated_at, NULL);
}

/* v's JSON_INDENT(2) text into out, each line after its first indented by
 * extra more spaces: as it reads nested that deep in the whole document.
 * Newlines inside strings are escaped: every raw one is jansson's layout. */
static int dump_nested(FILE *out, const json_t *v, int extra)
{
	char *text = json_dumps(v, JSON_INDENT(2));
	if (!text) {
		return -1;
	}
	const char *p = text;
	for (const char *nl; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		fwrite(p, 1, (size_t)(nl - p + 1), out);
		fprintf(out, "%*s", extra, "");
	}
	fputs(p, out);
	free(text);
	return 0;
}

/* The document as json_dumpf(report_json_build(...), JSON_INDENT(2)) writes
 * it, byte for byte, but one node's tree at a time: the whole tree of
 * 10,000 nodes took 70 MB and 0.2 s of CPU to build and walk.  The text
 * is put together in memory first, so a failure still writes nothing. */
static int write_streamed(FILE *f, const node *nodes, size_t n, double generated_at, const report_json_source *src)
{
	cluster_summary summary;
	bool ok = true;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		return -1;
	}
	cluster_summarise(nodes, n, &summary);
	json_t *head = json_object();
	json_value_put(head, "version", json_integer(REPORT_JSON_VERSION), &ok);
	json_value_put(head, "generated_at", json_value_time(generated_at), &ok);
	json_value_put(head, "summary", summary_json(&summary, &ok), &ok);
	char *text = ok ? json_dumps(head, JSON_INDENT(2)) : NULL;
	json_decref(head);
	ok = text != NULL && strlen(text) > 2;
	if (ok) {
		fwrite(text, 1, strlen(text) - 2, m); /* without its closing "\n}" */
		fputs(",\n  \"nodes\": [", m);
	}
	free(text);
	bool details = any_ssh_detail(nodes, n);
	for (size_t i = 0; ok && i < n; i++) {
		json_t *o = node_entry_json(&nodes[i], details, &ok);
		fputs(i ? ",\n    " : "\n    ", m);
		ok = ok && o && dump_nested(m, o, 4) == 0;
		json_decref(o);
	}
	if (ok) {
		fputs("\n  ]", m);
	}
	if (ok && src) {
		json_t *o = source_json(src, &ok);
		fputs(",\n  \"source\": ", m);
		ok = ok && o && dump_nested(m, o, 2) == 0;
		json_decref(o);
	}
	if (ok) {
		fputs("\n}\n", m);
	}
	if (fclose(m) != 0 || !ok) {
		free(buf);
		return -1;
	}
	int rc = fwrite(buf, 1, len, f) == len && fflush(f) == 0 ? 0 : -1;
	free(buf);
	return rc;
}

int report_json_write_sourced(FILE *f, const node *nodes, size_t n, double generated_at,
			      const report_json_source *src)
{
	if (n > 0) {
		return write_streamed(f, nodes, n, generated_at, src);
	}
	json_t *root = report_json_build(nodes, n, generated_at); /* "nodes": [] as jansson writes it */
	if (!root) {
		return -1;
	}
	if (src) {
		bool ok = true;
		json_value_put(root, "source", source_json(src, &ok), &ok);
		if (!ok) {
			json_decref(root);
			return -1;
		}
	}
	int rc = json_dumpf(root, f, JSON_INDENT(2));
	json_decref(root);
	if (rc != 0 || fputc('\n', f) == EOF || fflush(f) != 0) {
		return -1;
	}
	return 0;
}
