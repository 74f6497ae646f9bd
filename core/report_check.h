/* report_check.h - `synctop --check`: the problems, one line each, a summary
 * line, and a Nagios-style exit code, for cron jobs and monitoring systems.
 *
 * Output, worst first (crit, then unknown, then warn), then by host name:
 *     node7 CRIT chrony.offset: System time +1.234 ms from reference
 *       fix: <hint>                                  (only with verbose)
 *     node9 UNKNOWN: connection refused
 *     hosts not ok: node[7,9]                        (only when some fail)
 *     synctop check: 48 nodes: 45 ok, 2 warn, 1 crit, 0 unknown; max |offset| 1.200 ms, spread 2.300 ms
 * The summary line adds "; ptp max |offset| ..., spread ..." when PTP slaves
 * answered, and the grandmasters they follow.  Remote text is sanitised to
 * one printable line.  "hosts not ok" names the nodes the exit code fails
 * on (crit and unknown; warn too unless fail_on is SEVERITY_CRIT) as one
 * Slurm host list expression (hostlist_compress), for `scontrol update
 * nodename=... state=drain`. */
#ifndef SYNCTOP_REPORT_CHECK_H
#define SYNCTOP_REPORT_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cluster.h"
#include "finding.h"
#include "node.h"

/* Exit codes (the Nagios plugin convention). */
enum {
	REPORT_CHECK_OK = 0,
	REPORT_CHECK_WARN = 1,
	REPORT_CHECK_CRIT = 2,
	REPORT_CHECK_UNKNOWN = 3,
};

/* Print the report for nodes[0..n) (findings and status already evaluated)
 * and return the exit code:
 *   2 if any node is crit; else 3 if any node is unknown (or there are no
 *   nodes: nothing was checked); else 1 if any node is warn and fail_on is
 *   SEVERITY_WARN; else 0.
 * fail_on = SEVERITY_CRIT lets warnings alone exit 0 (they are still
 * printed); any other value behaves as SEVERITY_WARN.  s is the summary of
 * the same nodes (cluster_summarise); NULL computes it here. */
int report_check_write(FILE *f, const node *nodes, size_t n, const cluster_summary *s, severity fail_on,
		       bool verbose);

/* --hostlist-only: just the expression of the failing nodes and a newline,
 * nothing when none fails; the same exit code as report_check_write().  A
 * node name no host list can hold is reported on stderr and exits 3. */
int report_check_write_hostlist(FILE *f, const node *nodes, size_t n, const cluster_summary *s,
				severity fail_on);

/* The failing nodes' names as one compressed host list (malloc'd, "" when
 * none fails; caller frees), or NULL with err as hostlist_compress says. */
char *report_check_failing_hostlist(const node *nodes, size_t n, severity fail_on, char *err, size_t err_len);

#endif
