/* thresholds.h - every number the health rules compare against, and what a
 * node is expected to run.
 *
 * The rules in health.c contain no literal limits: they read this struct, so
 * a group can override any of them from the configuration.  A value must be
 * strictly exceeded to raise a finding ("> 1 ms": exactly 1 ms is fine). */
#ifndef SYNCTOP_THRESHOLDS_H
#define SYNCTOP_THRESHOLDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define THRESHOLDS_MAX_WAITS 64 /* >= the number of finding codes (finding_wait.c) */

/* Whether a node should run a time service.  AUTO judges by what the poll
 * sees running: a service that is absent is then not a fault by itself. */
typedef enum {
	EXPECT_AUTO = 0,
	EXPECT_YES,
	EXPECT_NO,
} expectation;

typedef struct {
	expectation expect_chrony;
	expectation expect_ptp;

	/* chrony tracking: |System time| */
	double chrony_offset_warn_s;
	double chrony_offset_crit_s;
	/* |System time| + Root dispersion + Root delay / 2 */
	double chrony_error_bound_warn_s;
	double chrony_error_bound_crit_s;
	/* |Frequency| */
	double chrony_frequency_warn_ppm;
	double chrony_frequency_crit_ppm;
	/* skew of the selected source's frequency estimate */
	double chrony_skew_warn_ppm;
	/* |slope of Frequency| over the last drift_window_s, judged only once
	 * the history covers at least drift_min_span_s */
	double chrony_drift_warn_ppm_per_hour;
	double chrony_drift_window_s;
	double chrony_drift_min_span_s;
	/* chrony.few_sources: fewer usable sources than this warns (0: off) */
	int min_sources;

	/* |offsetFromMaster| of a SLAVE port */
	int64_t ptp_offset_warn_ns;
	int64_t ptp_offset_crit_ns;
	/* |meanPathDelay - median| / median, against at least min_samples of
	 * history */
	double ptp_path_delay_jump_warn_ratio;
	int ptp_path_delay_min_samples;
	/* ptp.no_sync (collectors/pmc_sync.h): the age of the last Sync, or how
	 * long a following port's rx Sync count stood still, in the port's own
	 * sync intervals (warn) and announce receipt timeouts (crit). */
	double ptp_sync_age_warn_intervals;
	double ptp_sync_age_crit_receipt_timeouts;
	/* |system clock - PHC| where the system clock follows the PHC
	 * (system_clock.h phc_sys_offset_judged) */
	int64_t phc_sys_offset_warn_ns;
	int64_t phc_sys_offset_crit_ns;

	/* Independent clock check (observation.clock): |offset| beyond the
	 * limit by more than its uncertainty. */
	double clock_offset_warn_s;
	double clock_offset_crit_s;
	/* ... and |offset - cluster median| beyond this by more than the
	 * uncertainty. */
	double clock_median_warn_s;

	/* Cluster-wide: max - min of the nodes' own offset claims; a node whose
	 * offset is more than half the warn spread from the median is named. */
	double cluster_chrony_spread_warn_s;
	double cluster_chrony_spread_crit_s;
	int64_t cluster_ptp_spread_warn_ns;
	int64_t cluster_ptp_spread_crit_ns;

	/* ptp4l or phc2sys found restarted (daemons collector): warn for this
	 * long after the poll that found it. */
	double daemon_restart_warn_s;
	/* The grandmaster must be traceable (the configuration's per-group
	 * `gm_traceable`): a free-running, degraded or unknown-quality
	 * clockClass and timeTraceable 0 are then crit, not warn (pmc_rules.c). */
	bool gm_traceable;

	/* Events (event_detect.h): an offset or the clock check moving by more
	 * than this between two polls is a clock step. */
	double event_step_s;
	/* A change seen on more than this many nodes in one refresh is one
	 * grouped event (event_log.h).  The fleet's: read from "defaults". */
	int event_group_nodes;
	/* --state-dir (state_store.h): how long samples and events are kept,
	 * and how large the database may grow.  The fleet's: "defaults". */
	double state_retention_days;
	int state_max_mib;
	/* chrony.drift_daily (drift_trend.h): |frequency change per day|,
	 * least squares over the stored history, once it spans a day. */
	double chrony_drift_daily_warn_ppm;
	/* How long a finding must last before the live view raises the node for
	 * it (finding_wait.h): whether to wait at all (live view only), and the
	 * configuration's `for` per code; other codes wait their default. */
	bool findings_wait;
	int n_waits;
	struct {
		const char *code; /* finding_codes entry */
		double seconds;
	} waits[THRESHOLDS_MAX_WAITS];
} thresholds;

void thresholds_init_defaults(thresholds *th);

/* A threshold the configuration file may set: its key is the field's name.
 * Collectors list their own (collector.h); the clock check's and the
 * cluster rules' are thresholds_core_keys. */
typedef enum {
	THRESHOLD_DOUBLE,
	THRESHOLD_INT64,
	THRESHOLD_INT,
} threshold_kind;

typedef struct {
	const char *name;
	threshold_kind kind;
	size_t offset;    /* in thresholds */
	const char *crit; /* a warn limit: its crit limit's key (warn <= crit); else NULL */
} threshold_key;

#define THRESHOLD_KEY(field, kind, crit_key) {#field, kind, offsetof(thresholds, field), crit_key}

extern const threshold_key thresholds_core_keys[];
extern const size_t thresholds_core_key_count;

#endif
