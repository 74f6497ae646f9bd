/* report_prometheus.h - `--prometheus FILE`: the evaluated fleet as a
 * node_exporter textfile-collector file (Prometheus text exposition format
 * 0.0.4), rewritten atomically after every sweep.
 *
 * Every metric, its unit and labels are listed in docs/prometheus.md.  In
 * short: one series per node labelled node="HOST", values in base units
 * (seconds, ratios), counters end in _total, and a value synctop does not
 * know is left out, never written as 0 or NaN.  Per-node measurements are
 * only written for nodes that answered their last poll: a stale offset from
 * a node we lost says nothing about now (synctop_node_up says it is gone).
 * Samples carry no timestamps (the textfile collector rejects them). */
#ifndef SYNCTOP_REPORT_PROMETHEUS_H
#define SYNCTOP_REPORT_PROMETHEUS_H

#include <stddef.h>
#include <stdio.h>

#include "cluster.h"
#include "node.h"

/* Print the exposition of nodes[0..n) (findings and status already
 * evaluated) to out.  summary is the cluster summary the other sinks show;
 * NULL computes it here.  now is the sweep's unix time (left out if not
 * finite).  Host names are sanitised (sanitize.h, one line) and escaped;
 * when two nodes end up with the same name only the first is written (two
 * identical series would make the whole file invalid) and
 * synctop_export_duplicate_nodes counts the others.
 * Returns 0, or -1 if writing to out failed (errno says why). */
int report_prometheus_format(FILE *out, const node *nodes, size_t n, const cluster_summary *summary,
			     double now);

/* Replace the file at path with the exposition: written to a temporary file
 * next to it (path + ".XXXXXX", which the textfile collector ignores, as it
 * reads *.prom only), mode 0644 so node_exporter can read it whatever the
 * umask, flushed and fsync'd, then renamed over path.  Readers see the old
 * file or the new one, never a partial one.  Returns 0, or -1 with err
 * holding "PATH: what failed: why"; on failure the temporary file is
 * removed and path is left as it was. */
int report_prometheus_write(const char *path, const node *nodes, size_t n, const cluster_summary *summary,
			    double now, char *err, size_t err_len);

#endif
