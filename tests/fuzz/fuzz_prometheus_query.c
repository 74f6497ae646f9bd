/* fuzz_prometheus_query.c - prometheus_query_parse, then prometheus_map_build,
 * and prometheus_range_parse, on fuzzed Prometheus API answers.
 *
 * Input: the HTTP body as a server sent it.  Beyond not crashing: a failure
 * leaves a one-line message free of control characters and no samples; a
 * success gives samples whose labels are all there, warnings terminated;
 * parsing is deterministic; the answer mapped as every family's builds
 * nodes with names that fit and terminated errors. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "prometheus_history.h"
#include "prometheus_map.h"
#include "prometheus_query.h"

static bool clean_line(const char *s, size_t cap)
{
	if (!fuzz_terminated(s, cap)) {
		return false;
	}
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f) {
			return false;
		}
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	prom_vector a, b;
	char err_a[256], err_b[256];

	memset(err_a, 0, sizeof err_a);
	memset(err_b, 0, sizeof err_b);
	/* the fast path reads only what the general parser reads the same way
	 * (a leading space keeps the general parser off the fast path) */
	if (prometheus_query_parse_fast((const char *)data, size, &a)) {
		char *spaced = malloc(size + 1);
		FUZZ_CHECK(spaced != NULL);
		spaced[0] = ' ';
		memcpy(spaced + 1, data, size);
		FUZZ_CHECK(prometheus_query_parse(spaced, size + 1, &b, err_b, sizeof err_b) == 0);
		FUZZ_CHECK(a.n_samples == b.n_samples);
		for (size_t i = 0; i < a.n_samples; i++) {
			FUZZ_CHECK(a.samples[i].n_labels == b.samples[i].n_labels);
			FUZZ_CHECK(a.samples[i].digest == b.samples[i].digest);
			FUZZ_CHECK(memcmp(&a.samples[i].value, &b.samples[i].value, sizeof(double)) == 0);
			FUZZ_CHECK(memcmp(&a.samples[i].t, &b.samples[i].t, sizeof(double)) == 0);
			for (size_t k = 0; k < a.samples[i].n_labels; k++) {
				FUZZ_CHECK(strcmp(a.samples[i].labels[k].name, b.samples[i].labels[k].name) == 0);
				FUZZ_CHECK(strcmp(a.samples[i].labels[k].value, b.samples[i].labels[k].value) == 0);
			}
		}
		prom_vector_free(&b);
		free(spaced);
	}
	prom_vector_free(&a);
	int rc = prometheus_query_parse((const char *)data, size, &a, err_a, sizeof err_a);
	int rc2 = prometheus_query_parse((const char *)data, size, &b, err_b, sizeof err_b);
	FUZZ_CHECK(rc == 0 || rc == -1);
	FUZZ_CHECK(rc == rc2);
	FUZZ_CHECK(fuzz_terminated(a.warnings, sizeof a.warnings));
	FUZZ_CHECK(clean_line(a.warnings, sizeof a.warnings));
	if (rc != 0) {
		FUZZ_CHECK(err_a[0] != '\0' && clean_line(err_a, sizeof err_a));
		FUZZ_CHECK(strcmp(err_a, err_b) == 0);
	} else {
		FUZZ_CHECK(a.n_samples == b.n_samples);
		for (size_t i = 0; i < a.n_samples; i++) {
			FUZZ_CHECK(a.samples[i].n_labels == b.samples[i].n_labels);
			for (size_t k = 0; k < a.samples[i].n_labels; k++) {
				FUZZ_CHECK(a.samples[i].labels[k].name && a.samples[i].labels[k].value);
			}
		}
		const prom_vector *answers[PROM_Q_COUNT];
		for (int q = 0; q < PROM_Q_COUNT; q++) {
			answers[q] = &a;
		}
		static const char *const labels[] = {NULL, "nodename", "host"};
		for (size_t l = 0; l < sizeof labels / sizeof labels[0]; l++) {
			prom_map m;
			prom_map_options opt = {labels[l], 1.8e9, 120.0};
			prometheus_map_build(answers, &opt, &m);
			for (size_t i = 0; i < m.n_nodes; i++) {
				FUZZ_CHECK(m.nodes[i].name[0] != '\0');
				FUZZ_CHECK(fuzz_terminated(m.nodes[i].name, sizeof m.nodes[i].name));
				FUZZ_CHECK(fuzz_terminated(m.nodes[i].error, sizeof m.nodes[i].error));
				FUZZ_CHECK(prometheus_map_find(&m, m.nodes[i].name) == &m.nodes[i]);
			}
			prometheus_map_free(&m);
		}
	}
	prom_vector_free(&a);
	prom_vector_free(&b);

	/* the same bytes as a range query's answer (the drill-down's history):
	 * a failure holds no series; a success's series hold at most the
	 * points asked for, and the one picked is one of them */
	prom_matrix mx;
	char err_m[256];
	memset(err_m, 0, sizeof err_m);
	rc = prometheus_range_parse((const char *)data, size, 3, &mx, err_m, sizeof err_m);
	FUZZ_CHECK(rc == 0 || rc == -1);
	FUZZ_CHECK(clean_line(mx.warnings, sizeof mx.warnings));
	if (rc != 0) {
		FUZZ_CHECK(err_m[0] != '\0' && clean_line(err_m, sizeof err_m));
		FUZZ_CHECK(mx.n_series == 0);
	} else {
		for (size_t i = 0; i < mx.n_series; i++) {
			FUZZ_CHECK(mx.series[i].n_points <= 3);
		}
		const char *what = NULL;
		const prom_series *s = prometheus_history_pick(&mx, &what);
		FUZZ_CHECK(!s || (s >= mx.series && s < mx.series + mx.n_series && what));
	}
	prom_matrix_free(&mx);
	return 0;
}
