/* chrony_rules.c - the health rules for chrony's part of an observation:
 * leap status, offset, error bound, the selected source, reach, frequency,
 * skew, drift and the number of usable sources.  Limits from thresholds.h
 * (docs/checks.md lists each code with its numbers and where they come
 * from). */
#include <config.h>

#include "chrony_rules.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "drift_trend.h"
#include "units.h"

/* Protocol constants, not thresholds. */
#define STRATUM_UNSYNC 16     /* RFC 5905: stratum 16 = unsynchronised */
#define SECONDS_PER_HOUR 3600.0
/* Least-squares slopes come from float samples (history.h): compare them at
 * a resolution the data can carry, so a value at the limit is not pushed over
 * it by rounding noise. */
#define DRIFT_RESOLUTION_PPM_PER_HOUR 1e-6
#define NAME_LEN HEALTH_NAME_LEN

static void rule_chrony_leap(const chrony_obs *c, finding_list *out)
{
	finding f;
	switch (c->tracking.leap) {
	case CHRONY_LEAP_INSERT:
	case CHRONY_LEAP_DELETE:
		finding_start(&f, SEVERITY_WARN, "chrony.leap");
		finding_message(&f, "Leap status \"%s\": a leap second is announced",
				chrony_leap_name(c->tracking.leap));
		finding_hint(&f, "Nothing to fix if expected; `chronyc tracking` after midnight UTC. "
			     "Set `leapsecmode slew` in chrony.conf if applications cannot take a step.");
		break;
	case CHRONY_LEAP_UNSYNC:
		finding_start(&f, SEVERITY_CRIT, "chrony.leap");
		finding_message(&f, "Leap status \"%s\": chronyd is not synchronised",
				chrony_leap_name(c->tracking.leap));
		finding_hint(&f, "`chronyc sources -v`: check that the servers in chrony.conf are "
			     "reachable (UDP 123) and marked '*' or '+'.");
		break;
	default:
		return;
	}
	health_add_finding(out, &f);
}

static void rule_chrony_offset(const chrony_obs *c, const thresholds *th, finding_list *out)
{
	double off = c->tracking.system_time_offset_s;
	severity sev = health_grade(fabs(off), th->chrony_offset_warn_s, th->chrony_offset_crit_s);
	if (sev == SEVERITY_OK) {
		return;
	}
	finding f;
	char value[UNITS_BUF_LEN], limit[UNITS_BUF_LEN];
	finding_start(&f, sev, "chrony.offset");
	finding_message(&f, "System time offset %s (%s above %s)",
			units_format_seconds(off, value, sizeof value), severity_name(sev),
			units_magnitude_seconds(sev == SEVERITY_CRIT ? th->chrony_offset_crit_s :
				    th->chrony_offset_warn_s, limit, sizeof limit));
	finding_hint(&f, "Check `chronyc tracking` and `chronyc sources -v`; step once with "
		     "`chronyc makestep`, and add `makestep 1 3` to chrony.conf so large offsets "
		     "are stepped at start.");
	health_add_finding(out, &f);
}

static void rule_chrony_error_bound(const chrony_obs *c, const thresholds *th, finding_list *out)
{
	const chrony_tracking *t = &c->tracking;
	/* chronyc(1): clock_error <= |system_time_offset| + root_dispersion + root_delay / 2 */
	double bound = fabs(t->system_time_offset_s) + t->root_dispersion_s + t->root_delay_s / 2.0;
	severity sev = health_grade(bound, th->chrony_error_bound_warn_s, th->chrony_error_bound_crit_s);
	if (sev == SEVERITY_OK) {
		return;
	}
	finding f;
	char b[UNITS_BUF_LEN], off[UNITS_BUF_LEN], disp[UNITS_BUF_LEN], del[UNITS_BUF_LEN];
	char limit[UNITS_BUF_LEN];
	finding_start(&f, sev, "chrony.error_bound");
	finding_message(&f, "Clock error bound %s = |offset| %s + root dispersion %s + "
			"root delay/2 %s (%s above %s)",
			units_magnitude_seconds(bound, b, sizeof b),
			units_magnitude_seconds(fabs(t->system_time_offset_s), off, sizeof off),
			units_magnitude_seconds(t->root_dispersion_s, disp, sizeof disp),
			units_magnitude_seconds(t->root_delay_s / 2.0, del, sizeof del), severity_name(sev),
			units_magnitude_seconds(sev == SEVERITY_CRIT ? th->chrony_error_bound_crit_s :
				    th->chrony_error_bound_warn_s, limit, sizeof limit));
	finding_hint(&f, "The bound carries the whole upstream chain: see Root delay/dispersion "
		     "in `chronyc tracking` and `chronyc sources -v`; prefer a closer or "
		     "lower-stratum server.");
	health_add_finding(out, &f);
}

static void rule_chrony_selected_source(const chrony_obs *c, finding_list *out)
{
	const chrony_tracking *t = &c->tracking;
	const chrony_source *sel = chrony_selected_source(c);
	finding f;

	if (sel == NULL) {
		if (c->n_sources_total > c->n_sources) {
			return; /* the selected source may be one we did not keep */
		}
		if (chrony_tracking_is_local(t) &&
		    t->leap == CHRONY_LEAP_NORMAL) {
			/* A reference server on purpose, or one that lost its upstream and
			 * fell back to `local`: worth a look, not an outage. */
			finding_start(&f, SEVERITY_WARN, "chrony.local_reference");
			if (t->stratum != INT_UNKNOWN) {
				finding_message(&f, "Serving its own clock (chrony `local`, stratum %d): "
						"no external source selected", t->stratum);
			} else {
				finding_message(&f, "Serving its own clock (chrony `local`): "
						"no external source selected");
			}
			finding_hint(&f, "Intended only on an isolated reference server; otherwise add "
				     "`server`/`pool` lines to chrony.conf and check `chronyc sources -v`.");
		} else if (c->n_sources == 0) {
			finding_start(&f, SEVERITY_CRIT, "chrony.no_selected_source");
			finding_message(&f, "chronyd has no sources");
			finding_hint(&f, "Add `server NAME iburst` or `pool NAME iburst` lines to "
				     "chrony.conf and restart chronyd; `chronyc sources -v` lists them.");
		} else {
			finding_start(&f, SEVERITY_CRIT, "chrony.no_selected_source");
			finding_message(&f, "No source selected ('*') among %d source%s",
					c->n_sources, c->n_sources == 1 ? "" : "s");
			finding_hint(&f, "`chronyc sources -v`: '?' = unreachable, 'x' = falseticker, "
				     "'~' = too variable; `chronyc ntpdata` shows what each server sends.");
		}
		health_add_finding(out, &f);
		return;
	}

	int stratum = sel->stratum >= STRATUM_UNSYNC ? sel->stratum : t->stratum;
	if (stratum < STRATUM_UNSYNC) {
		return;
	}
	char name[NAME_LEN];
	HEALTH_CLEAN(name, sel->name);
	finding_start(&f, SEVERITY_CRIT, "chrony.no_selected_source");
	finding_message(&f, "Stratum %d via selected source %s (%d = unsynchronised)", stratum,
			name, STRATUM_UNSYNC);
	finding_hint(&f, "The upstream server is itself unsynchronised: `chronyc ntpdata %s`; "
		     "fix that server or add other `server` lines to chrony.conf.", name);
	health_add_finding(out, &f);
}

static void rule_chrony_reach(const chrony_obs *c, finding_list *out)
{
	int n = c->n_sources < CHRONY_MAX_SOURCES ? c->n_sources : CHRONY_MAX_SOURCES;
	if (n <= 0) {
		return;
	}
	finding f;
	bool complete = c->n_sources_total <= n;
	bool all_silent = complete;
	const chrony_source *first = NULL;
	int partial = 0;
	for (int i = 0; i < n; i++) {
		const chrony_source *s = &c->sources[i];
		unsigned reach = s->reach & HEALTH_REACH_ALL_EIGHT;
		if (reach != 0) {
			all_silent = false;
		}
		bool used = s->state == CHRONY_STATE_SELECTED || s->state == CHRONY_STATE_COMBINED;
		if (used && reach != HEALTH_REACH_ALL_EIGHT) {
			if (!first) {
				first = s;
			}
			partial++;
		}
	}

	if (all_silent) {
		finding_start(&f, SEVERITY_CRIT, "chrony.reach");
		finding_message(&f, "No source answered in the last 8 polls (%d source%s, reach 000)",
				n, n == 1 ? "" : "s");
		finding_hint(&f, "Check UDP 123 to the servers (firewall, routing) and the server lines "
			     "in chrony.conf; `chronyc sources -v` and `chronyc ntpdata` show who answers.");
		health_add_finding(out, &f);
		return;
	}
	if (!first) {
		return;
	}
	char name[NAME_LEN];
	HEALTH_CLEAN(name, first->name);
	int missed = health_missed_polls(first->reach);
	finding_start(&f, SEVERITY_WARN, "chrony.reach");
	if (partial > 1) {
		finding_message(&f, "Source %s reach %03o: missed %d of the last 8 polls "
				"(and %d more used source%s)", name, first->reach & HEALTH_REACH_ALL_EIGHT,
				missed, partial - 1, partial - 1 == 1 ? "" : "s");
	} else {
		finding_message(&f, "Source %s reach %03o: missed %d of the last 8 polls", name,
				first->reach & HEALTH_REACH_ALL_EIGHT, missed);
	}
	finding_hint(&f, "Packets to or from the source are lost: `chronyc ntpdata %s`, "
		     "`chronyc sources -v`; check the network path (`mtr %s`).", name, name);
	health_add_finding(out, &f);
}

/* A source counts as usable when chronyd's last selection accepted it
 * (`sources` state '*', '+' or '-': it passed the intersection, '-' being
 * only left out of the combined average) and it answered at least once in
 * the last 8 polls.  `sources` is read every poll without chronyd's
 * authorisation, which selectdata needs; 'x', '~' and '?' are not usable. */
static bool chrony_source_usable(const chrony_source *s)
{
	bool accepted = s->state == CHRONY_STATE_SELECTED || s->state == CHRONY_STATE_COMBINED ||
			s->state == CHRONY_STATE_NOT_COMBINED;
	return accepted && (s->reach & HEALTH_REACH_ALL_EIGHT) != 0;
}

static void rule_chrony_few_sources(const chrony_obs *c, const thresholds *th, finding_list *out)
{
	if (th->min_sources <= 0) {
		return; /* off by default */
	}
	int n = c->n_sources < CHRONY_MAX_SOURCES ? c->n_sources : CHRONY_MAX_SOURCES;
	int usable = 0;
	for (int i = 0; i < n; i++) {
		usable += chrony_source_usable(&c->sources[i]);
	}
	if (usable >= th->min_sources || c->n_sources_total > n) {
		return; /* enough, or some sources were not kept and may be usable */
	}
	finding f;
	finding_start(&f, SEVERITY_WARN, "chrony.few_sources");
	finding_message(&f, "%d usable source%s of %d (the group wants at least %d)", usable,
			usable == 1 ? "" : "s", n, th->min_sources);
	finding_hint(&f, "Usable: '*', '+' or '-' in `chronyc sources` with a nonzero reach. Add "
		     "`server`/`pool` lines to chrony.conf (RFC 8633: at least four sources, so one "
		     "falseticker is outvoted), or lower `min_sources` for this group.");
	health_add_finding(out, &f);
}

static void rule_chrony_frequency(const chrony_obs *c, const thresholds *th, finding_list *out)
{
	double freq = c->tracking.frequency_ppm;
	severity sev = health_grade(fabs(freq), th->chrony_frequency_warn_ppm, th->chrony_frequency_crit_ppm);
	if (sev == SEVERITY_OK) {
		return;
	}
	finding f;
	finding_start(&f, sev, "chrony.frequency");
	finding_message(&f, "Frequency %+.3f ppm (%s above %g ppm)", freq, severity_name(sev),
			sev == SEVERITY_CRIT ? th->chrony_frequency_crit_ppm :
			th->chrony_frequency_warn_ppm);
	finding_hint(&f, "The oscillator runs far from nominal: `chronyc tracking`; check "
		     "/sys/devices/system/clocksource/clocksource0/current_clocksource and, on a VM, "
		     "the hypervisor's clock settings.");
	health_add_finding(out, &f);
}

static void rule_chrony_skew(const chrony_obs *c, const thresholds *th, finding_list *out)
{
	const chrony_source *sel = chrony_selected_source(c);
	const chrony_sourcestat *stat = NULL;
	if (sel) {
		int n = c->n_sourcestats < CHRONY_MAX_SOURCES ? c->n_sourcestats : CHRONY_MAX_SOURCES;
		for (int i = 0; i < n; i++) {
			if (strncmp(c->sourcestats[i].name, sel->name, sizeof sel->name) == 0 &&
			    isfinite(c->sourcestats[i].skew_ppm)) {
				stat = &c->sourcestats[i];
				break;
			}
		}
	}
	double skew = stat ? stat->skew_ppm : c->tracking.skew_ppm;
	if (!(skew > th->chrony_skew_warn_ppm)) {
		return;
	}
	finding f;
	finding_start(&f, SEVERITY_WARN, "chrony.skew");
	if (stat) {
		char name[NAME_LEN];
		HEALTH_CLEAN(name, stat->name);
		finding_message(&f, "Skew of source %s %.3f ppm (warn above %g ppm)", name, skew,
				th->chrony_skew_warn_ppm);
	} else {
		finding_message(&f, "Tracking skew %.3f ppm (warn above %g ppm)", skew,
				th->chrony_skew_warn_ppm);
	}
	finding_hint(&f, "The source's measurements are noisy (network jitter, busy VM host): "
		     "`chronyc sourcestats -v`; use a closer source, or limit with `maxupdateskew` "
		     "in chrony.conf.");
	health_add_finding(out, &f);
}

/* Judged once the slope is known: from the history ring, or from a
 * Prometheus server's deriv over the node's window (span NAN: at least the
 * rule's minimum). */
static double drift_rounded(double slope)
{
	return round(slope / DRIFT_RESOLUTION_PPM_PER_HOUR) * DRIFT_RESOLUTION_PPM_PER_HOUR;
}

bool chrony_drift_hourly_exceeds(double slope_ppm_per_hour, const thresholds *th)
{
	return isfinite(slope_ppm_per_hour) && fabs(drift_rounded(slope_ppm_per_hour)) > th->chrony_drift_warn_ppm_per_hour;
}

static void drift_finding(double slope, double span, const thresholds *th, finding_list *out)
{
	if (!chrony_drift_hourly_exceeds(slope, th)) {
		return;
	}
	slope = drift_rounded(slope);
	finding f;
	finding_start(&f, SEVERITY_WARN, "chrony.drift");
	if (isfinite(span)) {
		finding_message(&f, "Frequency drifting %+.3f ppm/h over the last %.0f min "
				"(warn above %g ppm/h)", slope, span / 60.0,
				th->chrony_drift_warn_ppm_per_hour);
	} else {
		/* the server's window is the node's (prometheus_drift_span) */
		char window[32];
		if (th->chrony_drift_window_s == SECONDS_PER_HOUR) {
			snprintf(window, sizeof window, "hour");
		} else if (fmod(th->chrony_drift_window_s, 60.0) == 0) {
			snprintf(window, sizeof window, "%.0f min", th->chrony_drift_window_s / 60.0);
		} else {
			snprintf(window, sizeof window, "%g s", th->chrony_drift_window_s);
		}
		finding_message(&f, "Frequency drifting %+.3f ppm/h over Prometheus's last %s "
				"(warn above %g ppm/h)", slope, window, th->chrony_drift_warn_ppm_per_hour);
	}
	finding_hint(&f, "The oscillator's frequency is changing, usually with temperature or "
		     "CPU power states: watch Frequency in `chronyc tracking`; check cooling and "
		     "BIOS C-state/turbo settings.");
	health_add_finding(out, &f);
}

static void rule_chrony_drift(const history *h, const thresholds *th, finding_list *out)
{
	const history_sample *latest = history_latest(h);
	if (isfinite(h->remote_drift_hourly_ppm)) {
		/* the server's slope over more samples than the ring holds */
		drift_finding(h->remote_drift_hourly_ppm, NAN, th, out);
		return;
	}
	if (!latest) {
		return;
	}
	double since = latest->t - th->chrony_drift_window_s;
	double first_t = NAN, last_t = NAN;
	for (size_t i = 0; i < history_count(h); i++) {
		const history_sample *s = history_at(h, i);
		if (s->t < since || !isfinite(s->value[HISTORY_FREQUENCY_PPM])) {
			continue;
		}
		if (isnan(first_t)) {
			first_t = s->t;
		}
		last_t = s->t;
	}
	double span = last_t - first_t;
	if (!(span >= th->chrony_drift_min_span_s)) {
		return; /* too little history (or none finite) to call it a trend */
	}
	drift_finding(history_slope(h, HISTORY_FREQUENCY_PPM, since) * SECONDS_PER_HOUR, span, th, out);
}

/* The guide's hardware-ageing signal: the frequency's trend over days
 * (drift_trend.h), computed from the --state-dir database once it holds a
 * day; NAN (no database, or less than a day) judges nothing. */
static void rule_chrony_drift_daily(const history *h, const thresholds *th, finding_list *out)
{
	double trend = history_drift_daily(h);
	if (!drift_trend_exceeds(trend, th->chrony_drift_daily_warn_ppm)) {
		return;
	}
	finding f;
	finding_start(&f, SEVERITY_WARN, "chrony.drift_daily");
	finding_message(&f, "Frequency changing %+.2f ppm/day over %s (warn above %g ppm/day)", trend,
			isfinite(h->remote_drift_daily_ppm) ? "Prometheus's last 7 days" : "the stored history",
			th->chrony_drift_daily_warn_ppm);
	finding_hint(&f, "A steady change over days is the oscillator ageing or its surroundings changing "
		     "(cooling, a fan, the power supply): compare with the node's neighbours in the day view "
		     "(d in the drill-down) and plan a hardware check if it keeps going.");
	health_add_finding(out, &f);
}

void chrony_rules(const health_context *ctx, finding_list *out)
{
	const chrony_obs *c = &ctx->obs->chrony;
	const history *h = ctx->history;
	const thresholds *th = ctx->th;
	/* Unsynchronised chronyd reports placeholders (0 offset, 1 s root delay
	 * and dispersion: fixtures chronyc-c-tracking-unsync.txt); judging them
	 * would only repeat the leap finding with invented numbers. */
	bool numbers = c->tracking.leap != CHRONY_LEAP_UNSYNC;

	rule_chrony_leap(c, out);
	if (numbers) {
		rule_chrony_offset(c, th, out);
		rule_chrony_error_bound(c, th, out);
	}
	rule_chrony_selected_source(c, out);
	rule_chrony_reach(c, out);
	rule_chrony_few_sources(c, th, out);
	if (numbers) {
		rule_chrony_frequency(c, th, out);
		rule_chrony_skew(c, th, out);
		chrony_drift_rules(h, th, out);
	}
}

void chrony_drift_rules(const history *h, const thresholds *th, finding_list *out)
{
	rule_chrony_drift(h, th, out);
	rule_chrony_drift_daily(h, th, out);
}
