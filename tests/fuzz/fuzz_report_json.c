/* fuzz_report_json.c - the whole untrusted path into `synctop --json`:
 * fuzzed probe responses -> probe_decode -> history -> health_apply ->
 * report_json_build / report_json_write.
 *
 * Input: byte 0 = c (bit 0: two nodes; bit 1: node 0 ends unreachable;
 * bit 2: node 0 keeps an error text; bit 3: generated_at NAN; bits 4-5:
 * seconds between polls; bits 6-7: history samples per poll), byte 1 =
 * expectations (chrony = b % 3, PTP = b / 3 % 3), then host of node 0
 * FUZZ_SEP error text FUZZ_SEP response FUZZ_SEP response ...  Response j
 * is poll j of node j % nodes (nonce N), handled as the scheduler does.
 *
 * Beyond not crashing:
 *   - health: at most MAX_FINDINGS findings, most severe first, each with a
 *     code and a safe message; status is the worst severity, or unknown
 *     with no findings for a node without a completed poll;
 *   - JSON: the build succeeds, dumps to valid UTF-8 that jansson parses
 *     back to an equal document (report_json_write's output too), every
 *     string in it is safe text (sanitize.h), node hosts are one line;
 *   - shape (report_json.h): version 1, summary counts add up to the nodes,
 *     statuses as the model says, a chrony or ptp part whose "error" is a
 *     string has every other value null. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_obs.h"
#include "health.h"
#include "probe_decode.h"
#include "report_json.h"

#define N "0123456789abcdef"
#define EPOCH 1796208285.0
#define MAX_NODES 2

static const double spacing[4] = {1, 10, 60, 300};

static void poll_node(node *n, const fuzz_part *resp, double at, int reps, double step,
		      const thresholds *th)
{
	observation *obs = malloc(sizeof *obs);
	char err[256] = "";
	FUZZ_CHECK(obs != NULL);
	observation_init(obs);
	if (probe_decode(resp->p, resp->len, N, obs, err, sizeof err) != 0) {
		/* scheduler.c set_node_error: the node is unreachable, the old
		 * observation stays */
		n->reachable = false;
		snprintf(n->error, sizeof n->error, "%s", err);
		free(obs);
		health_apply(n, th);
		return;
	}
	fuzz_check_observation(obs);
	obs->taken_at = at;
	obs->rtt_s = 0.002;
	if (obs->nic.state == OBS_NOT_COLLECTED && n->has_observation) {
		obs->nic = n->obs.nic; /* ethtool runs every few minutes */
		obs->n_nics = n->obs.n_nics;
		memcpy(obs->nics, n->obs.nics, sizeof obs->nics);
		observation_settle_nic(obs);
	}
	n->obs = *obs;
	free(obs);
	n->has_observation = true;
	n->reachable = true;
	n->error[0] = '\0';

	/* scheduler.c complete_poll's sample, repeated to fill the history */
	const observation *o = &n->obs;
	history_sample s = {.t = at};
	bool chrony_ok = o->chrony.state == OBS_OK;
	s.value[HISTORY_OFFSET_S] = chrony_ok ? (float)o->chrony.tracking.system_time_offset_s : NAN;
	s.value[HISTORY_FREQUENCY_PPM] = chrony_ok ? (float)o->chrony.tracking.frequency_ppm : NAN;
	s.value[HISTORY_SKEW_PPM] = chrony_ok ? (float)o->chrony.tracking.skew_ppm : NAN;
	s.value[HISTORY_PTP_OFFSET_NS] = o->ptp.offset_from_master_ns == PTP_NS_UNKNOWN
						 ? NAN : (float)o->ptp.offset_from_master_ns;
	s.value[HISTORY_PATH_DELAY_NS] = o->ptp.mean_path_delay_ns == PTP_NS_UNKNOWN
						 ? NAN : (float)o->ptp.mean_path_delay_ns;
	for (int r = 0; r < reps; r++) {
		s.t = at - (reps - 1 - r) * step / reps;
		history_push(&n->history, &s);
	}
	health_apply(n, th);
}

static void check_health(const node *n)
{
	const finding_list *f = &n->findings;
	FUZZ_CHECK(f->count >= 0 && f->count <= MAX_FINDINGS);
	severity worst = SEVERITY_OK;
	for (int i = 0; i < f->count; i++) {
		const finding *x = &f->items[i];
		FUZZ_CHECK(x->sev >= SEVERITY_OK && x->sev <= SEVERITY_CRIT);
		FUZZ_CHECK(i == 0 || x->sev <= f->items[i - 1].sev);
		FUZZ_CHECK(x->code != NULL && x->code[0] != '\0');
		FUZZ_CHECK(fuzz_terminated(x->message, sizeof x->message) && x->message[0] != '\0');
		FUZZ_CHECK(fuzz_text_safe(x->message, strlen(x->message)));
		FUZZ_CHECK(fuzz_terminated(x->hint, sizeof x->hint));
		FUZZ_CHECK(fuzz_text_safe(x->hint, strlen(x->hint)));
		if (x->sev > worst) {
			worst = x->sev;
		}
	}
	if (!n->has_observation || !n->reachable) {
		FUZZ_CHECK(f->count == 0 && n->status == NODE_STATUS_UNKNOWN);
	} else {
		FUZZ_CHECK(n->status == (worst == SEVERITY_CRIT ? NODE_STATUS_CRIT
					 : worst == SEVERITY_WARN ? NODE_STATUS_WARN : NODE_STATUS_OK));
	}
}

/* Every string anywhere in v is safe text. */
static void check_strings(const json_t *v)
{
	if (json_is_string(v)) {
		FUZZ_CHECK(fuzz_text_safe(json_string_value(v), json_string_length(v)));
		FUZZ_CHECK(strlen(json_string_value(v)) == json_string_length(v));
	} else if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			check_strings(json_array_get(v, i));
		}
	} else if (json_is_object(v)) {
		const char *key;
		json_t *val;
		json_object_foreach((json_t *)v, key, val) {
			check_strings(val);
		}
	}
}

/* A part that failed shows its error and nothing else. */
static void check_part(const json_t *part, bool all_null_on_error)
{
	if (json_is_null(part)) {
		return;
	}
	FUZZ_CHECK(json_is_object(part));
	json_t *error = json_object_get(part, "error");
	FUZZ_CHECK(error != NULL && (json_is_null(error) || json_is_string(error)));
	if (!json_is_string(error) || !all_null_on_error) {
		return;
	}
	FUZZ_CHECK(json_string_length(error) > 0);
	const char *key;
	json_t *val;
	json_object_foreach((json_t *)part, key, val) {
		FUZZ_CHECK(strcmp(key, "error") == 0 || json_is_null(val));
	}
}

static json_int_t int_at(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	FUZZ_CHECK(json_is_integer(v));
	return json_integer_value(v);
}

static void check_document(const json_t *root, const node *nodes, size_t n)
{
	FUZZ_CHECK(json_is_object(root));
	FUZZ_CHECK(int_at(root, "version") == REPORT_JSON_VERSION);
	json_t *summary = json_object_get(root, "summary");
	FUZZ_CHECK(json_is_object(summary));
	FUZZ_CHECK(int_at(summary, "nodes") == (json_int_t)n);
	FUZZ_CHECK(int_at(summary, "ok") + int_at(summary, "warn") + int_at(summary, "crit") +
			   int_at(summary, "unknown") == (json_int_t)n);
	json_t *gms = json_object_get(summary, "grandmasters");
	FUZZ_CHECK(json_is_array(gms) && json_array_size(gms) <= 8);
	json_t *arr = json_object_get(root, "nodes");
	FUZZ_CHECK(json_is_array(arr) && json_array_size(arr) == n);
	for (size_t i = 0; i < n; i++) {
		json_t *nd = json_array_get(arr, i);
		FUZZ_CHECK(json_is_object(nd));
		json_t *host = json_object_get(nd, "host");
		FUZZ_CHECK(json_is_string(host));
		FUZZ_CHECK(strpbrk(json_string_value(host), "\n\t") == NULL);
		json_t *status = json_object_get(nd, "status");
		FUZZ_CHECK(json_is_string(status) &&
			   strcmp(json_string_value(status), node_status_name(nodes[i].status)) == 0);
		FUZZ_CHECK(json_is_boolean(json_object_get(nd, "reachable")));
		check_part(json_object_get(nd, "chrony"), true);
		check_part(json_object_get(nd, "ptp"), true);
		check_part(json_object_get(nd, "nic"), false);
		json_t *findings = json_object_get(nd, "findings");
		FUZZ_CHECK(json_is_array(findings) &&
			   json_array_size(findings) == (size_t)nodes[i].findings.count);
		for (size_t k = 0; k < json_array_size(findings); k++) {
			json_t *sev = json_object_get(json_array_get(findings, k), "severity");
			FUZZ_CHECK(json_is_string(sev));
			const char *s = json_string_value(sev);
			FUZZ_CHECK(!strcmp(s, "ok") || !strcmp(s, "warn") || !strcmp(s, "crit"));
		}
	}
	check_strings(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2) {
		return 0;
	}
	uint8_t c = data[0];
	thresholds th;
	thresholds_init_defaults(&th);
	th.expect_chrony = (expectation)(data[1] % 3);
	th.expect_ptp = (expectation)(data[1] / 3 % 3);
	fuzz_parts parts;
	fuzz_split(data + 2, size - 2, FUZZ_MAX_PARTS, &parts);

	size_t n = (c & 1) ? 2 : 1;
	node *nodes = malloc(MAX_NODES * sizeof *nodes);
	FUZZ_CHECK(nodes != NULL);
	const fuzz_part *hp = fuzz_part_at(&parts, 0);
	char *host = fuzz_strndup(hp->p, hp->len);
	node_init(&nodes[0], host);
	node_init(&nodes[1], "node-1");
	free(host);

	double step = spacing[(c >> 4) & 3];
	int reps = 1 + 4 * (c >> 6);
	double at = EPOCH;
	for (int j = 2; j < parts.n; j++) {
		at += step;
		poll_node(&nodes[(size_t)(j - 2) % n], &parts.part[j], at, reps, step, &th);
	}
	if (c & 6) {
		/* raw remote text in the node's error, as a transport might put it */
		const fuzz_part *ep = fuzz_part_at(&parts, 1);
		size_t len = ep->len < NODE_ERROR_LEN - 1 ? ep->len : NODE_ERROR_LEN - 1;
		memcpy(nodes[0].error, ep->p, len);
		nodes[0].error[len] = '\0';
		if (c & 2) {
			nodes[0].reachable = false;
		}
	}
	for (size_t i = 0; i < n; i++) {
		health_apply(&nodes[i], &th);
		check_health(&nodes[i]);
	}

	double generated_at = (c & 8) ? NAN : at + 1;
	json_t *root = report_json_build(nodes, n, generated_at);
	FUZZ_CHECK(root != NULL);
	check_document(root, nodes, n);

	char *text = json_dumps(root, JSON_COMPACT);
	FUZZ_CHECK(text != NULL && fuzz_utf8_valid(text, strlen(text)));
	json_error_t jerr;
	json_t *back = json_loads(text, 0, &jerr);
	FUZZ_CHECK(back != NULL && json_equal(back, root));
	json_decref(back);
	free(text);

	char *written = NULL;
	size_t written_len = 0;
	FILE *f = open_memstream(&written, &written_len);
	FUZZ_CHECK(f != NULL);
	FUZZ_CHECK(report_json_write(f, nodes, n, generated_at) == 0);
	FUZZ_CHECK(fclose(f) == 0);
	FUZZ_CHECK(written_len > 0 && written[written_len - 1] == '\n');
	FUZZ_CHECK(fuzz_utf8_valid(written, written_len));
	back = json_loadb(written, written_len, 0, &jerr);
	FUZZ_CHECK(back != NULL && json_equal(back, root));
	json_decref(back);
	free(written);

	json_decref(root);
	free(nodes);
	fuzz_parts_free(&parts);
	return 0;
}
