/* collector.h - one tool synctop runs on a node, described in one place.
 *
 * A collector is a const descriptor (htop's MeterClass is the model): the
 * probe section it answers, the shell line that produces it, how often it
 * runs, the pure parser that turns its output into its part of the
 * observation, what it carries from the last poll when it did not run, the
 * history series it records, its health rules and the configuration keys of
 * their thresholds, its JSON object, Prometheus families, grid columns and
 * drill-down section.  collector_registry[] lists them all (collectors/registry.c); the
 * probe script, the decoder, node_update, the health rules, the configuration
 * loader, the JSON and Prometheus writers and the drill-down loop over it
 * instead of naming tools (test_probe checks the registry's invariants).
 *
 * Adding a tool: docs/collectors.md. */
#ifndef SYNCTOP_COLLECTOR_H
#define SYNCTOP_COLLECTOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "detail_sink.h"
#include "grid_column.h"
#include "health_rule.h"
#include "history.h"
#include "observation.h"
#include "prometheus_family.h"
#include "text_sink.h"
#include "thresholds.h"
#include "time_service.h"
#include "tool_output.h"

#define COLLECTOR_NAME_MAX 31

typedef enum {
	COLLECT_EVERY_POLL = 0,
	/* At a node's first poll, then every period_s: for facts that seldom
	 * change or cost the node a process.  The request asks for it with
	 * request_flag. */
	COLLECT_PERIODIC,
} collector_cadence;

typedef struct collector {
	/* Probe section name: [a-z_], at most COLLECTOR_NAME_MAX, unique. */
	const char *name;
	/* What it tells, for docs and logs: "chrony tracking, sources, sourcestats". */
	const char *title;
	/* POSIX sh function definitions its command uses (no single quote, as
	 * all of the probe script), or NULL. */
	const char *shell_functions;
	/* The command line, run as `synctop_run NAME COMMAND` with stdin from
	 * /dev/null and its own stderr and exit status: one tool failing never
	 * drops another's section.  It may use $iface (the request's interface
	 * or "-") and $sudo ("sudo -n" when the request asks for it, else
	 * empty: write `$sudo tool`, unquoted).  NULL: nothing runs on the
	 * node and the probe has no section for it; another source fills the
	 * part (kernel_clock: the Prometheus source). */
	const char *command;
	collector_cadence cadence;
	/* COLLECT_PERIODIC: the request letter and the PROBE_FLAG_* bit. */
	char request_flag;
	unsigned request_bit;
	double period_s;
	/* Pure: the section's output into this collector's part of obs (which
	 * is observation_init'ed).  Applies the part's validity rule. */
	void (*decode)(const tool_output *out, observation *obs);
	/* A periodic collector that did not run this poll keeps its last
	 * result: copy it from before into now; any collector may also compare
	 * now with the previous poll here (daemons: restarts).  Called from the
	 * second poll of a node on, after decode.  NULL: nothing to carry. */
	void (*carry)(observation *now, const observation *before);
	/* Values that only a comparison with the node's previous observation
	 * gives (a counter that did not move, how long it stood still): derive
	 * them into now from before, after every carry.  Not called at a
	 * node's first observation.  NULL: nothing to compare. */
	void (*compare)(observation *now, const observation *before);
	/* The history series it owns, from the observation (values that are
	 * not meaningful now stay NAN).  NULL: none. */
	void (*history)(const observation *obs, history_sample *sample);
	/* Its object in each node of the JSON snapshot (report_json.h): the
	 * key, and the writer (unknown values null; failed allocations clear
	 * *ok).  NULL key: the collector has no object of its own.  Two
	 * collectors of one daemon kind may share a key (ntpq and ntpctl:
	 * `ntp`, ntpd or openntpd): the first whose part is not absent
	 * writes it, at the first one's place, and only its part gives
	 * synctop_part_up{part=key}. */
	const char *json_key;
	json_t *(*json)(const observation *obs, bool *ok);
	/* A second object of its own, written right after the first (ethtool:
	 * "nics", every interface checked, beside "nic", the primary one).
	 * NULL key: none. */
	const char *json_list_key;
	json_t *(*json_list)(const observation *obs, bool *ok);
	/* Its part for synctop_part_up{part=json_key}: the part's state, and
	 * whether the part is absent (no series, no drill-down section).  NULL
	 * part_absent: absent when the state says so (obs_state_absent: not
	 * asked, tool not installed).  NULL state: no synctop_part_up series. */
	obs_state (*part_state)(const observation *obs);
	bool (*part_absent)(const observation *obs);
	/* Its Prometheus families (prometheus_family.h). */
	const prom_family *prometheus;
	size_t n_prometheus;
	/* Its health rules (health_rule.h), run when its part answered
	 * (part_state OBS_OK: rules need part_state) and the group's
	 * expectation for it is not "no".  NULL: none; NULL expectation: always
	 * judged. */
	void (*rules)(const health_context *ctx, finding_list *out);
	expectation (*expectation)(const thresholds *th);
	/* Its section of the drill-down: a title and the writer (detail_sink.h).
	 * NULL: the section is written by tui/detail_doc.c itself (chrony,
	 * PTP, NIC have not moved yet). */
	const char *detail_title;
	void (*detail)(const observation *obs, const detail_sink *out);
	/* The DAEMON_* bit (observation.h) of the daemon it reads, or 0: where
	 * its part answered, synctop can inspect that daemon (health.c does
	 * not call it one it "cannot inspect"). */
	unsigned daemon;
	/* A daemon that steers the system clock: its view of it
	 * (time_service.h), for the grid's SOURCE, ST, OFFSET, FREQ, SKEW and
	 * LEAP columns.  False when its part did not answer.  NULL: the tool is
	 * not such a daemon. */
	bool (*time_service)(const observation *obs, time_service_view *out);
	/* The grid columns it offers (grid_column.h), after the grid's own. */
	const grid_column *columns;
	size_t n_columns;
	/* The demo cluster's renderer (demo/): prints into out and err what the
	 * tool prints on a node whose true state is `truth` (the simulator's
	 * observation: this collector reads its own part) and returns the
	 * tool's exit status; iface is the request's ("-" when none).  The
	 * output goes through decode like a real node's, and decoding it must
	 * give the part back (test_demo_cluster renders, decodes and renders
	 * again).  NULL: the demo does not show the tool. */
	int (*demo_render)(const observation *truth, const char *iface, text_sink *out, text_sink *err);
	/* Its threshold keys in the configuration file. */
	const threshold_key *threshold_keys;
	size_t n_threshold_keys;
	/* Rules run whatever part_state says (same expectation gate as
	 * rules): what a part that did not answer still has to say (pmc: a
	 * ptp4l config that cannot be read, a second ptp4l).  NULL: none. */
	void (*rules_any_state)(const health_context *ctx, finding_list *out);
	/* A key at the end of the node's JSON object, after "findings", written
	 * only where the writer returns non-NULL: data most nodes do not have
	 * (pmc: "ptp_instances", several ptp4l).  NULL key: none. */
	const char *json_tail_key;
	json_t *(*json_tail)(const observation *obs, bool *ok);
} collector;

/* Every collector, in the order their sections appear in a response. */
extern const collector *const collector_registry[];
extern const size_t collector_registry_count;

/* The collector's part says nothing this poll (part_absent, or by default
 * obs_state_absent of its state); false without a part_state. */
bool collector_part_absent(const collector *c, const observation *obs);

/* The collector whose section is called name, or NULL. */
const collector *collector_find(const char *name);

#endif
