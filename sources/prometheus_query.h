/* prometheus_query.h - the Prometheus HTTP API's answer to an instant query
 * (GET /api/v1/query), parsed: pure, bytes in, samples out.
 *
 * The envelope (prometheus.io/docs/prometheus/latest/querying/api/):
 *     {"status": "success" | "error", "data": {"resultType": "vector",
 *      "result": [{"metric": {LABEL: VALUE, ...}, "value": [T, "V"]}, ...]},
 *      "errorType": "...", "error": "...", "warnings": ["...", ...]}
 * T is a unix time in seconds (a JSON number), V a string because it may be
 * "NaN", "+Inf" or "-Inf".  Only vectors are accepted: synctop asks for
 * nothing else.  The answer comes from a server we do not control: any
 * shape other than the above is an error with a message, never a crash. */
#ifndef SYNCTOP_PROMETHEUS_QUERY_H
#define SYNCTOP_PROMETHEUS_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROM_WARNINGS_LEN 400

typedef struct {
	char *name;
	char *value;
} prom_label;

typedef struct {
	prom_label *labels;  /* as the server sent them, __name__ included */
	size_t n_labels;
	double t;            /* the sample's time: the evaluation time for a plain selector */
	double value;        /* NAN for "NaN", +-INFINITY for "+Inf"/"-Inf" */
	uint64_t digest;     /* of its labels and value, not t: equal for the same series and value */
} prom_sample;

typedef struct {
	prom_sample *samples;
	size_t n_samples;
	void *blocks;                   /* the samples' labels and their strings, a few large blocks */
	size_t n_warnings;              /* "warnings" the server attached */
	char warnings[PROM_WARNINGS_LEN]; /* them, joined by "; ", cleaned, cut to fit; "" if none */
} prom_vector;

/* One series of a range query (GET /api/v1/query_range): "values":
 * [[T, "V"], ...], oldest first. */
typedef struct {
	prom_label *labels;  /* one block with their strings, as prom_sample's */
	size_t n_labels;
	double *t;           /* n_points times, then n_points values: one block */
	double *v;
	size_t n_points;
} prom_series;

typedef struct {
	prom_series *series;
	size_t n_series;
	size_t n_warnings;
	char warnings[PROM_WARNINGS_LEN];
} prom_matrix;

/* Parses an answer of len bytes into out (which it initialises; free it
 * with prom_vector_free whatever this returns).  0 on "status": "success"
 * with a vector; -1 otherwise, with a printable one-line reason in err:
 * the server's errorType and error for "status": "error", else what is
 * wrong with the text. */
int prometheus_query_parse(const char *body, size_t len, prom_vector *out, char *err, size_t err_len);

/* The fast path prometheus_query_parse takes first: an answer exactly in
 * the layout Prometheus writes (no space, its key order, labels of printable
 * ASCII without escapes) is read into out (initialised here), true; false
 * for anything else, out empty: prometheus_query_parse then reads it with
 * the general parser, to the same samples or its error. */
bool prometheus_query_parse_fast(const char *body, size_t len, prom_vector *out);

void prom_vector_free(prom_vector *v);

/* Moves from's samples (and the memory of their labels) to the end of
 * into's; from is left empty, its warnings untouched. */
void prom_vector_take(prom_vector *into, prom_vector *from);

/* The same for a range query's answer: a "matrix", whose points are
 * [time, "value"] pairs; at most max_points per series are kept (the
 * newest; a series longer than asked for is the server's, not ours). */
int prometheus_range_parse(const char *body, size_t len, size_t max_points, prom_matrix *out, char *err,
			   size_t err_len);

void prom_matrix_free(prom_matrix *m);

/* The value of label name on the series, or NULL. */
const char *prom_series_label(const prom_series *s, const char *name);

/* The value of label name on the sample, or NULL. */
const char *prom_sample_label(const prom_sample *s, const char *name);

#endif
