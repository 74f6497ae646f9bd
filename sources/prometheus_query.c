/* prometheus_query.c - parse an instant query's answer (prometheus_query.h). */
#include <config.h>

#include "prometheus_query.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sanitize.h"
#include "xalloc.h"

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *err, size_t err_len, const char *fmt, ...)
{
	char raw[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	/* the server's words reach the terminal: one clean line */
	sanitize_text(raw, strlen(raw), err, err_len, SANITIZE_SINGLE_LINE);
	return -1;
}

/* A sample value as Prometheus formats it (strconv.FormatFloat 'f' -1, or
 * NaN/+Inf/-Inf): a whole string strtod reads, nothing else. */
static int parse_value(const char *s, double *out)
{
	char *end = NULL;
	if (!*s || strlen(s) > 64) {
		return -1;
	}
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0') {
		return -1;
	}
	*out = v;
	return 0;
}

static void add_warnings(prom_vector *out, json_t *warnings)
{
	size_t i;
	json_t *w;
	if (!json_is_array(warnings)) {
		return;
	}
	json_array_foreach(warnings, i, w) {
		const char *text = json_is_string(w) ? json_string_value(w) : "(not a string)";
		size_t used = strlen(out->warnings);
		char clean[PROM_WARNINGS_LEN];
		sanitize_text(text, strlen(text), clean, sizeof clean, SANITIZE_SINGLE_LINE);
		snprintf(out->warnings + used, sizeof out->warnings - used, "%s%s", used ? "; " : "", clean);
		out->n_warnings++;
	}
}

static int parse_sample(json_t *item, size_t index, prom_sample *s, char *err, size_t err_len)
{
	json_t *metric = json_object_get(item, "metric");
	json_t *value = json_object_get(item, "value");
	if (!json_is_object(metric)) {
		return fail(err, err_len, "result %zu has no \"metric\" object", index);
	}
	if (!json_is_array(value) || json_array_size(value) != 2 || !json_is_number(json_array_get(value, 0)) ||
	    !json_is_string(json_array_get(value, 1))) {
		return fail(err, err_len, "result %zu: \"value\" is not [time, \"value\"]%s", index,
			    json_object_get(item, "values") ? " (a range vector: not an instant query)" : "");
	}
	s->t = json_number_value(json_array_get(value, 0));
	const char *v = json_string_value(json_array_get(value, 1));
	if (parse_value(v, &s->value) != 0) {
		return fail(err, err_len, "result %zu: value \"%.40s\" is not a number", index, v);
	}
	s->labels = xcalloc(json_object_size(metric) ? json_object_size(metric) : 1, sizeof *s->labels);
	const char *key;
	json_t *lv;
	json_object_foreach(metric, key, lv) {
		if (!json_is_string(lv)) {
			return fail(err, err_len, "result %zu: label %.40s is not a string", index, key);
		}
		s->labels[s->n_labels].name = xstrdup(key);
		s->labels[s->n_labels].value = xstrdup(json_string_value(lv));
		s->n_labels++;
	}
	return 0;
}

int prometheus_query_parse(const char *body, size_t len, prom_vector *out, char *err, size_t err_len)
{
	json_error_t jerr;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (len == 0) {
		return fail(err, err_len, "empty answer");
	}
	/* JSON_REJECT_DUPLICATES: a label twice is not a Prometheus answer */
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		return fail(err, err_len, "not JSON (%s at byte %d)", jerr.text, jerr.position);
	}
	if (!json_is_object(root)) {
		fail(err, err_len, "not a Prometheus API answer (the JSON is not an object)");
		goto out;
	}
	add_warnings(out, json_object_get(root, "warnings"));
	const char *status = json_string_value(json_object_get(root, "status"));
	if (!status) {
		fail(err, err_len, "not a Prometheus API answer (no \"status\")");
		goto out;
	}
	if (strcmp(status, "success") != 0) {
		const char *type = json_string_value(json_object_get(root, "errorType"));
		const char *text = json_string_value(json_object_get(root, "error"));
		fail(err, err_len, "Prometheus says %s: %s", type ? type : status, text ? text : "(no error text)");
		goto out;
	}
	json_t *data = json_object_get(root, "data");
	const char *type = json_string_value(json_object_get(data, "resultType"));
	json_t *result = json_object_get(data, "result");
	if (!json_is_object(data) || !type) {
		fail(err, err_len, "not a Prometheus API answer (no \"data\" with a \"resultType\")");
		goto out;
	}
	if (strcmp(type, "vector") != 0) {
		fail(err, err_len, "expected an instant vector, got a %.20s", type);
		goto out;
	}
	if (!json_is_array(result)) {
		fail(err, err_len, "\"result\" is not an array");
		goto out;
	}
	out->samples = xcalloc(json_array_size(result) ? json_array_size(result) : 1, sizeof *out->samples);
	size_t i;
	json_t *item;
	json_array_foreach(result, i, item) {
		/* counted first: a half-filled sample is freed with the rest */
		out->n_samples++;
		if (!json_is_object(item)) {
			fail(err, err_len, "result %zu is not an object", i);
			goto out;
		}
		if (parse_sample(item, i, &out->samples[i], err, err_len) != 0) {
			goto out;
		}
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}

void prom_vector_free(prom_vector *v)
{
	for (size_t i = 0; i < v->n_samples; i++) {
		for (size_t k = 0; k < v->samples[i].n_labels; k++) {
			free(v->samples[i].labels[k].name);
			free(v->samples[i].labels[k].value);
		}
		free(v->samples[i].labels);
	}
	free(v->samples);
	v->samples = NULL;
	v->n_samples = 0;
}

const char *prom_sample_label(const prom_sample *s, const char *name)
{
	for (size_t i = 0; i < s->n_labels; i++) {
		if (strcmp(s->labels[i].name, name) == 0) {
			return s->labels[i].value;
		}
	}
	return NULL;
}
