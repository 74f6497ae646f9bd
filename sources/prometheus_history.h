/* prometheus_history.h - one node's offset, frequency and PTP offset over
 * the last 24 h from Prometheus (GET /api/v1/query_range), for its drill-down's
 * plots: the PromQL, the step, and which answered series to show.  Pure.
 *
 * One query per quantity, each the `or` of every family that can say it,
 * tagged with label_replace so the answer says which one each series is:
 *   offset     -chrony_tracking_system_time_seconds (chrony_exporter),
 *              synctop_chrony_offset_seconds (synctop's textfile),
 *              -node_timex_offset_seconds (the kernel's, node_exporter)
 *   frequency  chrony_tracking_frequency_ppms, synctop_chrony_frequency_ratio
 *              * 1e6, (1 - node_timex_frequency_adjustment_ratio) * 1e6
 * with the signs prometheus_map.c and the grid give them (node - reference;
 * chrony's frequency, of which the kernel's correction is minus: chrony
 * sys_timex.c set_frequency, kernel_clock.c's time_service).
 * Where several answer, chrony's decide (under chrony the kernel's PLL
 * offset says little), then synctop's, then the kernel's. */
#ifndef SYNCTOP_PROMETHEUS_HISTORY_H
#define SYNCTOP_PROMETHEUS_HISTORY_H

#include <stddef.h>

#include "conffile.h"
#include "prometheus_query.h"
#include "remote_history.h"

#define PROM_HISTORY_RANGE_S 86400.0  /* the last 24 h */
#define PROM_HISTORY_MIN_STEP_S 15.0  /* finer than a scrape interval says nothing more */
#define PROM_HISTORY_MAX_POINTS 2000  /* kept per series, whatever the server sends */

/* The PromQL of series id for the node called name, named as
 * prometheus_map.h says (node_label NULL: `instance` without its port; a
 * label name: that label; "nodename": joined on node_uname_info's nodename
 * by instance, else by instance without its port where an instance has no
 * node_uname_info; synctop's and linuxptp-daemon's series by `node`),
 * restricted by selector ("" or "{matchers}").  The length written; -1 when
 * it does not fit in len or no node is named so.
 *   PTP offset  synctop_ptp_offset_seconds * 1e9, linuxptp-daemon's
 *               openshift_ptp_offset_ns{from="master",process="ptp4l"}
 *               without its 999999 faultyOffset marker (ns) */
int prometheus_history_query(remote_series_id id, const char *name, const char *node_label, const char *selector,
			     char *buf, size_t len);
/* Room for any of them: a selector of 1,024 characters and a name of
 * NODE_NAME_LEN, every character quoted. */
#define PROM_HISTORY_QUERY_MAX 24576

/* Which servers a node's history is asked of, and how they name it: the
 * servers of its --config group's own "prometheus" (the group
 * conffile_resolve gives it, as the refresh's keep does), with that
 * group's selector and node_label; else the command line's.  set indexes
 * the source's sets (prometheus_source_query_range_in): the command line's
 * is 0 when it has URLs, then one per group with "prometheus", in order.
 * The strings are conf's or the command line's. */
typedef struct {
	size_t set;
	const char *selector;   /* "" or "{matchers}" */
	const char *node_label; /* NULL, a label, or "nodename" */
} prom_history_origin;
void prometheus_history_origin(const conffile *conf, const char *host, size_t n_cli_urls, const char *cli_selector,
			       const char *cli_node_label, prom_history_origin *out);

/* The step for about `points` points over range_s: never below
 * PROM_HISTORY_MIN_STEP_S, whole seconds. */
double prometheus_history_step(double range_s, int points);

/* The start of a range of about range_s ending at end whose points fall
 * on end itself (start + k * step == end): a server that has held the node
 * for less than a step still answers its newest point. */
double prometheus_history_start(double end, double range_s, double step);

/* The series to show from an answer to the query above (the most trusted
 * family; among its series the one with most points), or NULL; *what: the
 * family's name for the plot's title. */
const prom_series *prometheus_history_pick(const prom_matrix *m, const char **what);

#endif
