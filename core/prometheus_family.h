/* prometheus_family.h - how a collector describes its Prometheus series.
 *
 * report_prometheus.c owns the exposition (HELP/TYPE once per family,
 * escaping, numbers, one node at a time); a collector lists its families
 * (collector.h) with either a value function (one series per node, label
 * node) or an emitter for several series per node.  Families are written
 * only for nodes that answered their last poll; an unknown value (NAN) is
 * left out, never written as 0.  The families are listed in
 * docs/prometheus.md. */
#ifndef SYNCTOP_PROMETHEUS_FAMILY_H
#define SYNCTOP_PROMETHEUS_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "observation.h"

/* Sanitising can turn each byte into 3 (sanitize.h). */
#define PROM_CLEAN_LEN(raw) (3 * (raw) + 1)

typedef struct prom_writer prom_writer;

typedef struct {
	const char *key;
	const char *value; /* sanitised (prom_clean), escaped on output */
} prom_label;

/* One sample of the current family for the current node: labels[0] should
 * be {"node", prom_node(w)}. */
void prom_sample(prom_writer *w, const prom_label *labels, size_t n_labels, double v);
/* The current node's name as the exposition writes it. */
const char *prom_node(const prom_writer *w);
/* A fixed-size model string made one printable line, for a label value. */
void prom_clean(char *buf, size_t len, const char *s, size_t max);

/* Model values as sample values: unknown is NAN (left out). */
double prom_int(int v);              /* INT_UNKNOWN: NAN */
double prom_ns_seconds(int64_t ns);  /* PTP_NS_UNKNOWN: NAN */
double prom_ppm_ratio(double ppm);   /* ppm / 1e6 */

typedef struct {
	const char *name;
	const char *type; /* "gauge", "counter" */
	const char *help;
	/* Exactly one of: */
	double (*get)(const observation *obs);
	void (*emit)(prom_writer *w, const observation *obs);
} prom_family;

#endif
