/* report_json.h - the `synctop --json` snapshot: every node's evaluated state
 * as one JSON document for scripts.
 *
 * Shape (version 1).  Keys are always present; a value that is not known is
 * null, never 0 or "".  Offsets are node clock minus reference (positive =
 * the node is ahead).  Every string that came from a node is sanitised
 * (sanitize.h): valid UTF-8, no control characters or escape sequences.
 *
 * {
 *   "version": 1,
 *   "generated_at": "2026-01-31T12:34:56.789Z",     UTC, milliseconds
 *   "summary": {
 *     "nodes": 48, "ok": 45, "warn": 2, "crit": 1, "unknown": 0,
 *     "max_abs_offset_s": 0.0012,     chrony system time offset, over nodes
 *     "offset_spread_s": 0.0023,      that answered with chrony OK; null if none
 *     "ptp_max_abs_offset_ns": 85,    PTP offsetFromMaster over answering
 *     "ptp_offset_spread_ns": 120,    SLAVE nodes; null if none
 *     "grandmasters": [ {"identity": "96bec0.fffe.dfca68", "nodes": 47,
 *                        "clock_class": 6} ],
 *                                     most followed first, at most 8;
 *                                     clock_class: cluster.h, null if unknown
 *     "grandmasters_more": 0          distinct identities not listed
 *   },
 *   "nodes": [ {
 *     "host": "node1",
 *     "status": "ok" | "warn" | "crit" | "unknown",
 *     "reachable": true,              the last poll completed
 *     "error": "connection refused" | null,
 *     "observed_at": "2026-...Z" | null,   when the data below was taken
 *     "rtt_s": 0.0021 | null,
 *     "chrony": null                  chronyc not asked for or not installed
 *       | {
 *       "error": null | "506 Cannot talk to daemon",  when it is a string,
 *                                     every other value below is null
 *       "leap_status": "Normal" | "Insert second" | "Delete second"
 *                      | "Not synchronised",   as chronyc prints it
 *       "stratum": 3,
 *       "reference_id": "C0A80101",   8 hex digits, as chronyc prints it
 *       "reference_name": "ntp1.example.org",
 *       "system_time_offset_s", "last_offset_s", "rms_offset_s",
 *       "frequency_ppm", "residual_frequency_ppm", "skew_ppm",
 *       "root_delay_s", "root_dispersion_s", "update_interval_s": numbers,
 *       "sources_total": 4,           sources chronyc listed (the array may
 *                                     hold fewer)
 *       "sources": [ {
 *         "mode": "server" | "peer" | "refclock",
 *         "state": "selected" | "combined" | "not_combined" | "falseticker"
 *                  | "jittery" | "unusable",     chronyc's * + - x ~ ?
 *         "name", "stratum", "poll" (log2 s),
 *         "reach": 255,               the reach register (chronyc's 377)
 *         "last_rx_s" (null: never), "adjusted_offset_s",
 *         "measured_offset_s", "error_s"
 *       } ],
 *       "sourcestats": [ {
 *         "name", "samples", "runs", "span_s", "frequency_ppm", "skew_ppm",
 *         "offset_s", "std_dev_s"
 *       } ]
 *     },
 *     "ptp": null                     pmc not asked for, not installed, or no
 *                                     ptp4l running (per the daemon list)
 *       | {
 *       "error": null | "...",        when a string, the values below are null
 *       "port_state": "SLAVE",        first SLAVE/UNCALIBRATED port, else the
 *                                     first port
 *       "offset_from_master_ns": -6600, "mean_path_delay_ns": 8737,
 *                                     null unless a port is SLAVE or
 *                                     UNCALIBRATED (ptp4l keeps stale ones)
 *       "gm_identity": "96bec0.fffe.dfca68", "gm_present": true,
 *                                     gm_identity: the grandmaster it follows
 *                                     or is; null when no port follows a
 *                                     master nor is one (ptp4l names itself)
 *       "steps_removed": 1, "clock_identity": "1aed80.fffe.1a0b51",
 *       "domain_number": 0, "current_utc_offset": 37,
 *       "ports": [ {
 *         "port_identity": "1aed80.fffe.1a0b51-1", "port_number": 1,
 *         "state": "SLAVE", "peer_mean_path_delay_ns": 0,
 *         "log_sync_interval": 0,
 *         "delay_mechanism": 1,       as pmc prints it: 1 E2E, 2 P2P
 *         "interface": "eth0", "timestamping": "HARDWARE",
 *         "log_announce_interval": 1, "announce_receipt_timeout": 3,
 *         "rx_sync": 98, "rx_follow_up": 98, "rx_delay_resp": 192,
 *         "rx_announce": 99, "tx_sync": 0, "tx_delay_req": 102,
 *         "tx_announce": 0,           PORT_STATS_NP; null if not answered
 *         "announce_timeouts": null, "sync_timeouts": null,
 *                                     PORT_SERVICE_STATS_NP, linuxptp >= 4.0
 *         "rx_sync_unchanged_s": 2.0  how long rx_sync has not moved (from
 *                                     the previous poll); null at the first
 *       } ],
 *       "last_sync_age_s": 0.41,      age of the last Sync (core/ptp_sync.h):
 *                                     null unless a port follows a master
 *                                     with software timestamping, or with
 *                                     no Sync since a step or a GM change
 *       "gm_clock_class": 6, "gm_clock_accuracy": 33,
 *       "gm_offset_scaled_log_variance": 20061,
 *                                     PARENT_DATA_SET; null wherever
 *                                     gm_identity is
 *       "time_source": 32, "ptp_timescale": true, "time_traceable": true,
 *       "frequency_traceable": true   TIME_PROPERTIES_DATA_SET
 *     },
 *     "nic": null                     ethtool not asked for or not installed
 *       | {
 *       "error": null | "...",
 *       "interface": "eth0",
 *       "hw_transmit", "hw_receive", "hw_raw_clock": booleans,
 *       "phc_index": 0                null when there is none
 *     },
 *     "kernel_clock": null            not read (only --from-prometheus reads it,
 *                                     from node_exporter's timex series)
 *       | {
 *       "error": null | "...",
 *       "synchronised": true,         STA_UNSYNC clear and not TIME_ERROR
 *       "offset_s": -0.00025,         node - reference; null unless the
 *                                     kernel PLL (STA_PLL) runs, synchronised
 *       "max_error_s", "est_error_s": null while unsynchronised
 *       "freq_adjust_ppm": 12.3,      the kernel's frequency correction
 *       "status": 8209, "status_flags": ["PLL", "INS", "NANO"],
 *       "leap_status": "Insert second", as chrony's names
 *       "time_constant": 7, "tick_s": 0.01, "tai_offset_s": 37
 *     },
 *     "clock_check": null             not measured (yet, or --clock-check 0)
 *       | {                           the node's clock against this machine's
 *       "error": null | "...",
 *       "offset_s": 2.2,              node - client, best of the exchanges
 *       "uncertainty_s": 0.0004,      half that exchange's round trip
 *       "exchanges": 4,
 *       "measured_at": "2026-12-02T14:00:00.000Z"
 *     },
 *     "findings": [ {
 *       "severity": "ok" | "warn" | "crit", "code": "chrony.offset",
 *       "message": "...", "hint": "..." | null
 *     } ]
 *   } ],
 *   "source": {                       only with --from-prometheus (absent over SSH)
 *     "kind": "prometheus",
 *     "servers": ["https://prom:9090"],
 *     "answered": 1,                  servers that answered every query (the
 *                                     others' nodes are unknown)
 *     "error": null | "..."           what went wrong in the refresh (HTTP
 *                                     errors, status: error, cut or too large
 *                                     answers, warnings): the source's
 *                                     trouble, never a node finding
 *   }
 * }
 */
#ifndef SYNCTOP_REPORT_JSON_H
#define SYNCTOP_REPORT_JSON_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "node.h"

#define REPORT_JSON_VERSION 1

/* Build the document for nodes[0..n) (findings and status already
 * evaluated).  generated_at is unix seconds (null in the output if not
 * finite).  Returns a new reference (json_decref it), NULL if out of memory. */
json_t *report_json_build(const node *nodes, size_t n, double generated_at);

/* Build and print the document, indented, with a final newline.
 * Returns 0, or -1 if it could not be built or written. */
int report_json_write(FILE *f, const node *nodes, size_t n, double generated_at);

/* Where the nodes came from when it was not SSH (--from-prometheus): the
 * document's "source" object. */
typedef struct {
	const char *kind;               /* "prometheus" */
	const char *const *servers;
	size_t n_servers;
	size_t answered;
	const char *error;              /* NULL or "": none */
} report_json_source;

/* report_json_write with the "source" object; src NULL: the same as
 * report_json_write. */
int report_json_write_sourced(FILE *f, const node *nodes, size_t n, double generated_at,
			      const report_json_source *src);

#endif
