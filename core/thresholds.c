/* thresholds.c - the default health thresholds and where each comes from.
 *
 * Each default carries a one-line source, which the README's threshold table
 * repeats.  "synctop choice" marks a number that no standard or manual fixes. */
#include <config.h>

#include "thresholds.h"

void thresholds_init_defaults(thresholds *th)
{
	th->expect_chrony = EXPECT_AUTO; /* judge by what is seen running */
	th->expect_ptp = EXPECT_AUTO;
	th->gm_traceable = false; /* a free-running grandmaster synced by NTP is common: warn only */
	th->findings_wait = false; /* judge now; the live view turns it on (finding_wait.h) */
	th->n_waits = 0;           /* every code waits its default */

	/* chrony README: LAN accuracy "tens of microseconds", Internet "within a few milliseconds". */
	th->chrony_offset_warn_s = 1e-3;   /* 1 ms: far worse than LAN-grade NTP */
	th->chrony_offset_crit_s = 10e-3;  /* 10 ms: worse than Internet-grade NTP */
	/* Formula from chronyc(1) "tracking"; limits = 5x the offset ones (synctop choice). */
	th->chrony_error_bound_warn_s = 5e-3;
	th->chrony_error_bound_crit_s = 50e-3;
	th->chrony_frequency_warn_ppm = 100.0; /* synctop choice: beyond a healthy quartz's tens of ppm */
	th->chrony_frequency_crit_ppm = 500.0; /* NTP frequency tolerance: RFC 5905 MAXFREQ, Linux linux/timex.h MAXFREQ */
	th->chrony_skew_warn_ppm = 10.0;       /* chrony.conf(5) maxupdateskew: "10 or smaller ... local wired network" */
	th->chrony_drift_warn_ppm_per_hour = 1.0; /* synctop choice: a thermal/power swing, not oscillator ageing */
	th->chrony_drift_window_s = 3600.0;    /* the whole history ring at a 1 s poll (history.h) */
	th->chrony_drift_min_span_s = 600.0;   /* synctop choice: shorter slopes are mostly noise */
	/* Off: a LAN node may rightly follow one server.  RFC 8633 (BCP 223)
	 * 3.2 recommends four for Internet NTP, so one falseticker is outvoted. */
	th->min_sources = 0;

	th->ptp_offset_warn_ns = 1000;   /* 1 µs: ITU-T G.8271 end-to-end time error budget (±1.1 µs) */
	th->ptp_offset_crit_ns = 100000; /* 100 µs: worse than software timestamping (lab veth: -6..-13 µs, lab-notes) */
	th->ptp_path_delay_jump_warn_ratio = 0.5; /* synctop choice: a route/switch change, not jitter */
	th->ptp_path_delay_min_samples = 10;      /* synctop choice: enough for a stable median */
	/* synctop choice (issue #15): two Syncs missed in a row is a loss, not jitter. */
	th->ptp_sync_age_warn_intervals = 3.0;
	/* ptp4l's own limit: announceReceiptTimeout x 2^logAnnounceInterval (IEEE 1588 ANNOUNCE_RECEIPT_TIMEOUT_EXPIRES). */
	th->ptp_sync_age_crit_receipt_timeouts = 1.0;
	/* phc2sys on a hardware PHC holds CLOCK_REALTIME within tens of ns
	 * (its "CLOCK_REALTIME phc offset" log); StarlingX raises its minor
	 * out-of-tolerance alarm at 1000 ns (monitoring, collectd-extensions
	 * ptp.py OOT_MINOR_THRESHOLD) */
	th->phc_sys_offset_warn_ns = 1000;   /* 1 µs: StarlingX minor alarm; ITU-T G.8271 ±1.1 µs budget */
	th->phc_sys_offset_crit_ns = 100000; /* 100 µs: as ptp_offset_crit_ns, worse than software timestamping (StarlingX major: 1 ms) */

	/* The reference is the client's own clock, itself only NTP-grade. */
	th->clock_offset_warn_s = 10e-3;  /* 10 ms: Internet-grade NTP (chrony README), as chrony_offset_crit_s */
	th->clock_offset_crit_s = 100e-3; /* 100 ms: synctop choice, beyond any working NTP */
	th->clock_median_warn_s = 10e-3;  /* 10 ms: synctop choice, as clock_offset_warn_s */

	/* Two nodes each just inside the offset limits are 2x apart. */
	th->cluster_chrony_spread_warn_s = 2e-3;   /* 2 x chrony_offset_warn_s */
	th->cluster_chrony_spread_crit_s = 20e-3;  /* 2 x chrony_offset_crit_s */
	th->cluster_ptp_spread_warn_ns = 2000;     /* 2 x ptp_offset_warn_ns */
	th->cluster_ptp_spread_crit_ns = 200000;   /* 2 x ptp_offset_crit_ns */

	th->daemon_restart_warn_s = 600.0; /* 10 min: issue #15 (synctop choice: a relock and a look) */

	/* issue #19: 100 ms is far beyond any servo's correction between two
	 * polls (chrony slews at most 83 ms/s by default, maxslewrate 83333 ppm),
	 * so it is a step, not a slew (synctop choice) */
	th->event_step_s = 0.1;
	th->event_group_nodes = 5; /* issue #19: more than 5 nodes at once is one event */
	/* issue #19: a week of history, downsampled after an hour, in at most
	 * 1 GiB (1,024 nodes at 1 s measure well under that: bench/state-dir) */
	th->state_retention_days = 7.0;
	th->state_max_mib = 1024;
	/* issue #19 and the clock-sync guide's hardware-ageing signal: a
	 * crystal ages by well under 1 ppm a day once settled (typical XO
	 * ageing is a few ppm a year); a steady 1 ppm/day trend is a
	 * temperature or hardware change worth a look (synctop choice) */
	th->chrony_drift_daily_warn_ppm = 1.0;
}

/* The independent clock check (core) and the cluster-wide rules. */
const threshold_key thresholds_core_keys[] = {
	THRESHOLD_KEY(clock_offset_warn_s, THRESHOLD_DOUBLE, "clock_offset_crit_s"),
	THRESHOLD_KEY(clock_offset_crit_s, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(clock_median_warn_s, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(cluster_chrony_spread_warn_s, THRESHOLD_DOUBLE, "cluster_chrony_spread_crit_s"),
	THRESHOLD_KEY(cluster_chrony_spread_crit_s, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(cluster_ptp_spread_warn_ns, THRESHOLD_INT64, "cluster_ptp_spread_crit_ns"),
	THRESHOLD_KEY(cluster_ptp_spread_crit_ns, THRESHOLD_INT64, NULL),
	THRESHOLD_KEY(event_step_s, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(event_group_nodes, THRESHOLD_INT, NULL),
	THRESHOLD_KEY(state_retention_days, THRESHOLD_DOUBLE, NULL),
	THRESHOLD_KEY(state_max_mib, THRESHOLD_INT, NULL),
	THRESHOLD_KEY(chrony_drift_daily_warn_ppm, THRESHOLD_DOUBLE, NULL),
};
const size_t thresholds_core_key_count = sizeof thresholds_core_keys / sizeof thresholds_core_keys[0];
