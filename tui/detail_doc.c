/* detail_doc.c - the drill-down report for one node. */
#include <config.h>

#include "detail_doc.h"
#include "events.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster.h"
#include "health.h"
#include "collector.h"
#include "columns.h"
#include "plot.h"
#include "ptp_sync.h"
#include "remote_history.h"
#include "ssh_detail.h"
#include "system_clock.h"
#include "table.h"
#include "textwidth.h"
#include "units.h"
#include "xalloc.h"

#define KEY_WIDTH 22
#define PLOT_HEIGHT 10

typedef struct {
	doc *d;
	const node *nd;
	double now;
	int width;
	bool utf8;
	theme_role value; /* ROLE_DIM when the data is stale */
	table *sink_table; /* a collector's table being filled (detail_sink) */
	const char *tag;   /* after every section title: " (over SSH)", or NULL */
} ctx;

/* --------------------------------------------------------------- values */

static void fmt_seconds(double s, char *buf, size_t len, bool utf8)
{
	units_format_seconds(s, buf, len);
	tw_ascii_micro(buf, utf8);
}

/* A magnitude (delay, dispersion, RMS, interval): no sign. */
static void fmt_seconds_unsigned(double s, char *buf, size_t len, bool utf8)
{
	fmt_seconds(s, buf, len, utf8);
	memmove(buf, units_unsigned(buf), strlen(units_unsigned(buf)) + 1);
}

static void fmt_ns(int64_t ns, char *buf, size_t len, bool utf8)
{
	units_format_ns(ns, buf, len);
	tw_ascii_micro(buf, utf8);
}

static void fmt_int(int v, char *buf, size_t len)
{
	if (v == INT_UNKNOWN) {
		snprintf(buf, len, "unknown");
	} else {
		snprintf(buf, len, "%d", v);
	}
}

static void fmt_bool(int v, char *buf, size_t len)
{
	snprintf(buf, len, "%s", v == INT_UNKNOWN ? "unknown" : v ? "yes" : "no");
}

/* A duration in the unit a person reads best: "42 s", "17 min", "3.5 h". */
static void fmt_span(double seconds, char *buf, size_t len)
{
	if (seconds < 120) {
		snprintf(buf, len, "%.0f s", seconds);
	} else if (seconds < 7200) {
		snprintf(buf, len, "%.0f min", seconds / 60);
	} else if (seconds < 2 * 86400) {
		snprintf(buf, len, "%.1f h", seconds / 3600);
	} else {
		snprintf(buf, len, "%.1f days", seconds / 86400);
	}
}

static void fmt_ago(double seconds, char *buf, size_t len)
{
	char span[48];
	if (!isfinite(seconds)) {
		snprintf(buf, len, "unknown");
	} else if (seconds < 0) {
		snprintf(buf, len, "just now");
	} else {
		fmt_span(seconds, span, sizeof span);
		snprintf(buf, len, "%s ago", span);
	}
}

static theme_role tone_role(cell_tone tone, theme_role plain)
{
	switch (tone) {
	case TONE_CRIT: return ROLE_STATUS_CRIT;
	case TONE_WARN: return ROLE_STATUS_WARN;
	default: return plain;
	}
}

/* --------------------------------------------------------------- layout */

static void blank(ctx *c)
{
	doc_newline(c->d);
}

static void section(ctx *c, const char *title)
{
	blank(c);
	doc_newline(c->d);
	doc_add(c->d, ROLE_TITLE, title);
	if (c->tag) {
		doc_add(c->d, ROLE_DIM, c->tag);
	}
}

/* "  Key ....... : value" with the value in role. */
static void kv_role(ctx *c, const char *key, theme_role role, const char *value)
{
	doc_newline(c->d);
	doc_pad(c->d, ROLE_DEFAULT, 2);
	doc_add(c->d, ROLE_DEFAULT, key);
	doc_pad(c->d, ROLE_DEFAULT, KEY_WIDTH - tw_width(key));
	doc_add(c->d, ROLE_DEFAULT, ": ");
	doc_wrapped(c->d, role, KEY_WIDTH + 4, value, c->width);
}

static void kv(ctx *c, const char *key, const char *value)
{
	kv_role(c, key, c->value, value);
}

/* Remote text as a value. */
static void kv_remote(ctx *c, const char *key, const char *field, size_t cap)
{
	char clean[512];
	tw_clean(field, cap, c->utf8, clean, sizeof clean);
	kv(c, key, clean[0] ? clean : "unknown");
}

/* A part that did not answer: its state and why. */
static void part_state(ctx *c, obs_state state, const char *error, size_t cap)
{
	char clean[OBS_ERROR_LEN * 3 + 1];
	tw_clean(error, cap, c->utf8, clean, sizeof clean);
	doc_newline(c->d);
	doc_pad(c->d, ROLE_DEFAULT, 2);
	doc_add(c->d, state == OBS_NOT_COLLECTED ? ROLE_DIM : ROLE_STATUS_WARN, obs_state_name(state));
	if (clean[0]) {
		doc_add(c->d, ROLE_DEFAULT, ": ");
		doc_wrapped(c->d, c->value, 4, clean, c->width);
	}
}

/* ------------------------------------------------------------- sections */

static void title_line(ctx *c)
{
	const node *nd = c->nd;
	char host[NODE_NAME_LEN * 3 + 1], buf[64];
	static const theme_role badge[] = {
		[NODE_STATUS_OK] = ROLE_BADGE_OK, [NODE_STATUS_WARN] = ROLE_BADGE_WARN,
		[NODE_STATUS_CRIT] = ROLE_BADGE_CRIT, [NODE_STATUS_UNKNOWN] = ROLE_BADGE_UNKNOWN,
		[NODE_STATUS_PENDING] = ROLE_BADGE_PENDING,
	};
	node_status st = health_live_status(nd);

	tw_clean(nd->host, sizeof nd->host, c->utf8, host, sizeof host);
	doc_newline(c->d);
	doc_add(c->d, ROLE_TITLE, host);
	doc_add(c->d, ROLE_DEFAULT, "  ");
	doc_addf(c->d, badge[st], " %s ", node_status_name(st));
	if (!nd->has_observation) {
		doc_add(c->d, ROLE_DIM, "  no completed poll yet");
		return;
	}
	fmt_ago(c->now - nd->obs.taken_at, buf, sizeof buf);
	doc_addf(c->d, ROLE_DEFAULT, "  polled %s", buf);
	if (isfinite(nd->obs.rtt_s)) {
		doc_addf(c->d, ROLE_DEFAULT, ", round trip %.1f ms", nd->obs.rtt_s * 1e3);
	}
	if (!nd->reachable) {
		doc_newline(c->d);
		doc_add(c->d, ROLE_STATUS_CRIT, "UNREACHABLE");
		doc_add(c->d, ROLE_DIM, ": the values below are from the last completed poll, not current");
	}
}

static void diagnosis(ctx *c)
{
	const node *nd = c->nd;
	int count = nd->findings.count < 0 ? 0
		    : nd->findings.count > MAX_FINDINGS ? MAX_FINDINGS : nd->findings.count;
	char clean[FINDING_HINT_LEN * 3 + 1];

	section(c, "Diagnosis");
	if (count == 0) {
		doc_newline(c->d);
		doc_pad(c->d, ROLE_DEFAULT, 2);
		if (cluster_node_status(nd) == NODE_STATUS_OK) {
			doc_add(c->d, ROLE_STATUS_OK, "No problems found.");
		} else {
			doc_add(c->d, ROLE_STATUS_UNKNOWN, nd->has_observation
							   ? "No verdict: the node stopped answering"
							   : "No verdict: the node has not answered a poll");
			doc_add(c->d, ROLE_DEFAULT, nd->error[0] ? " (see Error below)." : ".");
		}
		return;
	}
	for (int i = 0; i < count; i++) {
		const finding *f = &nd->findings.items[i];
		theme_role badge = f->pending		   ? ROLE_BADGE_PENDING
				   : f->sev == SEVERITY_CRIT ? ROLE_BADGE_CRIT
				   : f->sev == SEVERITY_WARN ? ROLE_BADGE_WARN : ROLE_BADGE_OK;
		doc_newline(c->d);
		doc_pad(c->d, ROLE_DEFAULT, 2);
		doc_addf(c->d, badge, " %-4s ", severity_name(f->sev));
		doc_add(c->d, ROLE_DEFAULT, " ");
		if (f->pending) {
			/* not yet lasted its `for`: the node is not raised for it */
			char age[48];
			fmt_span(c->now - f->since > 0 ? c->now - f->since : 0, age, sizeof age);
			doc_addf(c->d, ROLE_DIM, "(pending, seen for %s) ", age);
		}
		tw_clean(f->message, sizeof f->message, c->utf8, clean, sizeof clean);
		tw_ascii_micro(clean, c->utf8);
		doc_wrapped(c->d, ROLE_DEFAULT, 9, clean, c->width);
		if (f->code) {
			/* the code wraps like a word of the message */
			char code[80];
			snprintf(code, sizeof code, " [%.60s]", f->code);
			if (doc_line_width(c->d) + tw_width(code) > c->width) {
				doc_newline(c->d);
				doc_pad(c->d, ROLE_DEFAULT, 8);
			}
			doc_add(c->d, ROLE_DIM, code);
		}
		tw_clean(f->hint, sizeof f->hint, c->utf8, clean, sizeof clean);
		if (clean[0]) {
			doc_newline(c->d);
			doc_pad(c->d, ROLE_DEFAULT, 9);
			doc_add(c->d, ROLE_TITLE, "fix: ");
			doc_wrapped(c->d, ROLE_DEFAULT, 14, clean, c->width);
		}
	}
}

static void error_section(ctx *c)
{
	char clean[NODE_ERROR_LEN * 3 + 1];
	if (!c->nd->error[0]) {
		return;
	}
	section(c, "Error");
	tw_clean(c->nd->error, sizeof c->nd->error, c->utf8, clean, sizeof clean);
	doc_newline(c->d);
	doc_pad(c->d, ROLE_DEFAULT, 2);
	doc_wrapped(c->d, ROLE_STATUS_CRIT, 2, clean, c->width);
}

/* The node's clock measured against ours, beside what its daemon claims. */
static void clock_check_section(ctx *c)
{
	const observation *o = &c->nd->obs;
	const clock_check_obs *cc = &o->clock;
	char off[UNITS_BUF_LEN], unc[UNITS_BUF_LEN], ago[64], buf[256];

	if (cc->state == OBS_NOT_COLLECTED) {
		return; /* not measured yet, or --clock-check 0 */
	}
	section(c, "Clock check (this machine's clock is the reference)");
	if (cc->state != OBS_OK) {
		part_state(c, cc->state, cc->error, sizeof cc->error);
		return;
	}
	fmt_seconds(cc->offset_s, off, sizeof off, c->utf8);
	fmt_seconds_unsigned(cc->uncertainty_s, unc, sizeof unc, c->utf8);
	snprintf(buf, sizeof buf, "%s %s %s", off, c->utf8 ? "\u00b1" : "+-", unc);
	kv_role(c, "Node - this machine", tone_role(columns_finding_tone(c->nd, COL_CLOCK), c->value), buf);
	fmt_ago(c->now - cc->measured_at, ago, sizeof ago);
	snprintf(buf, sizeof buf, "best round trip of %d exchange%s, %s", cc->exchanges, cc->exchanges == 1 ? "" : "s",
		 ago);
	kv(c, "Measured", buf);
	if (o->chrony.state == OBS_OK && isfinite(o->chrony.tracking.system_time_offset_s)) {
		fmt_seconds(o->chrony.tracking.system_time_offset_s, off, sizeof off, c->utf8);
		snprintf(buf, sizeof buf, "chrony System time %s", off);
		kv(c, "Daemon claims", buf);
	} else if (ptp_following_port(&o->ptp) && o->ptp.offset_from_master_ns != PTP_NS_UNKNOWN) {
		fmt_ns(o->ptp.offset_from_master_ns, off, sizeof off, c->utf8);
		snprintf(buf, sizeof buf, "PTP offset from master %s", off);
		kv(c, "Daemon claims", buf);
	}
}

/* A value some finding judges: in that finding's colour while the node has it. */
/* The worst severity among the node's findings whose code is one of codes
 * (NULL-ended). */
static severity worst_of(const node *nd, const char *const *codes)
{
	severity worst = SEVERITY_OK;
	int count = nd->findings.count < 0 ? 0
		    : nd->findings.count > MAX_FINDINGS ? MAX_FINDINGS : nd->findings.count;
	for (int i = 0; i < count; i++) {
		const finding *f = &nd->findings.items[i];
		for (size_t k = 0; f->code && codes[k]; k++) {
			if (strcmp(codes[k], f->code) == 0 && f->sev > worst) {
				worst = f->sev;
			}
		}
	}
	return worst;
}

/* A value some finding judges: in that finding's colour while the node has
 * it (dim when the node's data is stale). */
static theme_role finding_role(const ctx *c, const char *code)
{
	const char *const codes[] = {code, NULL};
	severity worst = worst_of(c->nd, codes);
	if (c->value == ROLE_DIM || worst == SEVERITY_OK) {
		return c->value;
	}
	return worst == SEVERITY_CRIT ? ROLE_STATUS_CRIT : ROLE_STATUS_WARN;
}

static void fmt_count(int64_t v, char *buf, size_t len)
{
	if (v == PTP_COUNT_UNKNOWN) {
		snprintf(buf, len, "unknown");
	} else {
		snprintf(buf, len, "%lld", (long long)v);
	}
}

/* ptp.no_sync's evidence (core/ptp_sync.h), for the port following a master. */
static void ptp_sync_lines(ctx *c, const ptp_obs *p)
{
	const ptp_port *port = ptp_following_port(p);
	if (!port) {
		return;
	}
	char buf[160], a[48], b[48];
	theme_role role = finding_role(c, "ptp.no_sync");
	double age = ptp_sync_last_age_s(&c->nd->obs);
	bool software = strncmp(port->timestamping, "SOFTWARE", sizeof port->timestamping) == 0;
	if (isfinite(age)) {
		fmt_seconds_unsigned(age, a, sizeof a, c->utf8);
		snprintf(buf, sizeof buf, "%s ago (TIME_STATUS_NP ingress_time against the node's %s)", a,
			 software ? "CLOCK_REALTIME" : "PHC, through phc_ctl");
	} else if (p->ingress_time_ns == 0) {
		snprintf(buf, sizeof buf, "none since ptp4l started, stepped the clock or changed grandmaster");
	} else if (!software && port->timestamping[0]) {
		tw_clean(port->timestamping, sizeof port->timestamping, c->utf8, a, sizeof a);
		snprintf(buf, sizeof buf, "unknown (%s timestamping: the age needs phc_ctl on this port's interface)", a);
	} else {
		snprintf(buf, sizeof buf, "unknown");
	}
	kv_role(c, "Last Sync", role, buf);

	const ptp_port_sync *s = &port->sync;
	if (s->rx_sync != PTP_COUNT_UNKNOWN) {
		double still = ptp_sync_still_s(port, c->nd->obs.taken_at);
		fmt_count(s->rx_sync, a, sizeof a);
		if (isfinite(still) && still > 0) {
			fmt_seconds_unsigned(still, b, sizeof b, c->utf8);
			snprintf(buf, sizeof buf, "%s (unchanged for %s)", a, b);
		} else {
			snprintf(buf, sizeof buf, "%s", a);
		}
		kv_role(c, "Syncs received", role, buf);
	}
	if (s->announce_timeouts != PTP_COUNT_UNKNOWN || s->sync_timeouts != PTP_COUNT_UNKNOWN) {
		fmt_count(s->announce_timeouts, a, sizeof a);
		fmt_count(s->sync_timeouts, b, sizeof b);
		snprintf(buf, sizeof buf, "announce %s, sync %s (PORT_SERVICE_STATS_NP)", a, b);
		kv(c, "Receipt timeouts", buf);
	}
}

/* Who steers the system clock and how far it is from the PHC
 * (system_clock.h): shown everywhere, judged only where it follows the PHC. */
static void system_clock_lines(ctx *c)
{
	const observation *o = &c->nd->obs;
	const phc_obs *phc = &o->phc;
	sysclk_steerer s = sysclk_steering(o);
	char buf[OBS_ERROR_LEN * 3 + 64], v[40];

	if (s != SYSCLK_UNKNOWN) {
		snprintf(buf, sizeof buf, "%s", sysclk_steerer_name(s));
		if (s == SYSCLK_PHC2SYS && o->daemons.n_phc2sys > 0) {
			char args[sizeof o->daemons.phc2sys_cmdline[0] * 3 + 1];
			tw_clean(o->daemons.phc2sys_cmdline[0], sizeof o->daemons.phc2sys_cmdline[0], c->utf8, args,
				 sizeof args);
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf), " (%s)", args);
		}
		kv_role(c, "System clock by", finding_role(c, "ptp.system_clock_unsteered"), buf);
	}
	if (phc->state == OBS_OK) {
		int64_t off = phc_sys_offset_ns(o);
		if (off == PTP_NS_UNKNOWN) {
			snprintf(buf, sizeof buf, "unknown (ptp4l's UTC offset and timescale not read)");
		} else {
			fmt_ns(off, v, sizeof v, c->utf8);
			snprintf(buf, sizeof buf, "%s%s%s", v, phc->approximate ? " (approximate)" : "",
				 phc_sys_offset_judged(o) ? "" : "  (shown, not judged: the system clock does not follow this PHC)");
		}
		kv_role(c, "System - PHC", finding_role(c, "ptp.phc_sys_offset"), buf);
	} else if (!obs_state_absent(phc->state) || phc->error[0]) {
		char clean[OBS_ERROR_LEN * 3 + 1];
		tw_clean(phc->error, sizeof phc->error, c->utf8, clean, sizeof clean);
		snprintf(buf, sizeof buf, "%s%s%s", obs_state_name(phc->state), clean[0] ? ": " : "", clean);
		kv_role(c, "System - PHC", phc->state == OBS_NOT_COLLECTED || phc->state == OBS_NOT_SUPPORTED
					       ? ROLE_DIM : finding_role(c, "collector.tool_failed"), buf);
	}
}

/* The grandmaster's clockQuality (PARENT_DATA_SET) in words.  Without a
 * grandmaster (no port follows a master or is one) ptp4l reports its own
 * defaults there: shown as such, not as anyone's quality. */
static void gm_quality(ctx *c, const ptp_obs *p, bool has_gm)
{
	char buf[200];
	if (!has_gm) {
		kv(c, "GM clock class", "- (no port follows a master or is one)");
		return;
	}
	if (p->gm_clock_class == INT_UNKNOWN) {
		snprintf(buf, sizeof buf, "unknown");
	} else {
		snprintf(buf, sizeof buf, "%d: %s", p->gm_clock_class, ptp_clock_class_meaning(p->gm_clock_class));
	}
	kv_role(c, "GM clock class", finding_role(c, "ptp.gm_clock_class"), buf);
	if (p->gm_clock_accuracy == INT_UNKNOWN) {
		snprintf(buf, sizeof buf, "unknown");
	} else {
		const char *name = ptp_clock_accuracy_name(p->gm_clock_accuracy);
		snprintf(buf, sizeof buf, "0x%02X (%s)", (unsigned)p->gm_clock_accuracy & 0xffu,
			 name ? name : "not an IEEE 1588 value");
	}
	kv(c, "GM clock accuracy", buf);
	if (p->gm_offset_scaled_log_variance == INT_UNKNOWN) {
		snprintf(buf, sizeof buf, "unknown");
	} else {
		snprintf(buf, sizeof buf, "0x%04X%s", (unsigned)p->gm_offset_scaled_log_variance & 0xffffu,
			 p->gm_offset_scaled_log_variance == 0xffff ? " (not computed)" : "");
	}
	kv(c, "GM log variance", buf);
}

/* Every ptp4l found on the node (observation.ptp_instances): its socket and
 * config, and how it is doing; the rest of the section is the primary's. */
static void ptp_instance_lines(ctx *c)
{
	const observation *o = &c->nd->obs;
	char raw[PTP_PATH_LEN * 2 + OBS_ERROR_LEN + 128], clean[sizeof raw * 3 + 1], key[32];
	for (int i = 0; i < o->n_ptp_instances && i < PTP_MAX_INSTANCES; i++) {
		const ptp_instance *inst = &o->ptp_instances[i];
		const ptp_obs *p = &inst->ptp;
		int n = snprintf(raw, sizeof raw, "%s%s%s%s", inst->socket[0] ? "socket " : "pmc's default socket",
				 inst->socket, inst->config[0] ? ", config " : "", inst->config);
		size_t at = n < 0 ? 0 : (size_t)n < sizeof raw ? (size_t)n : sizeof raw - 1;
		const ptp_port *port = ptp_primary_port(p);
		if (inst->config_error[0]) {
			snprintf(raw + at, sizeof raw - at, ": config cannot be read (%s), not asked", inst->config_error);
		} else if (p->state != OBS_OK) {
			snprintf(raw + at, sizeof raw - at, ": %s%s%s", obs_state_name(p->state), p->error[0] ? ", " : "",
				 p->error);
		} else if (port) {
			snprintf(raw + at, sizeof raw - at, ": %s on %s", ptp_port_state_name(port->state),
				 port->interface[0] ? port->interface : "?");
		}
		tw_clean(raw, sizeof raw, c->utf8, clean, sizeof clean);
		snprintf(key, sizeof key, "ptp4l %d%s", i + 1, i == o->ptp_primary ? " (below)" : "");
		kv_role(c, key, inst->config_error[0] || p->state != OBS_OK ? ROLE_STATUS_WARN : c->value, clean);
	}
}

static void ptp_section(ctx *c)
{
	const ptp_obs *p = &c->nd->obs.ptp;
	char buf[160], a[40], b[40];
	int n_ports = p->n_ports < 0 ? 0 : p->n_ports > PTP_MAX_PORTS ? PTP_MAX_PORTS : p->n_ports;

	section(c, "PTP (ptp4l via pmc)");
	ptp_instance_lines(c);
	if (p->state != OBS_OK) {
		part_state(c, p->state, p->error, sizeof p->error);
		return;
	}
	kv_remote(c, "Clock identity", p->clock_identity, sizeof p->clock_identity);
	fmt_int(p->domain_number, buf, sizeof buf);
	kv(c, "Domain", buf);
	fmt_bool(p->slave_only, buf, sizeof buf);
	kv(c, "Slave only", buf);
	fmt_int(p->priority1, a, sizeof a);
	fmt_int(p->priority2, b, sizeof b);
	snprintf(buf, sizeof buf, "%s / %s", a, b);
	kv(c, "Priority 1 / 2", buf);
	fmt_int(p->clock_class, buf, sizeof buf);
	kv(c, "Clock class", buf);

	fmt_bool(p->gm_present, buf, sizeof buf);
	kv_role(c, "GM present", tone_role(columns_finding_tone(c->nd, COL_SOURCE), c->value), buf);
	const char *gm = cluster_node_grandmaster(p);
	if (gm) {
		kv_remote(c, "Grandmaster", gm, PTP_ID_LEN);
	} else {
		kv(c, "Grandmaster", "- (no port follows a master or is one)");
	}
	fmt_int(p->gm_priority1, a, sizeof a);
	fmt_int(p->gm_priority2, b, sizeof b);
	snprintf(buf, sizeof buf, "%s / %s", a, b);
	kv(c, "GM priority 1 / 2", buf);
	gm_quality(c, p, gm != NULL);
	kv_remote(c, "Parent port", p->parent_port_identity, sizeof p->parent_port_identity);
	fmt_int(p->steps_removed, buf, sizeof buf);
	kv(c, "Steps removed", buf);
	if (ptp_following_port(p)) {
		fmt_ns(p->offset_from_master_ns, buf, sizeof buf, c->utf8);
		kv_role(c, "Offset from master",
			tone_role(columns_finding_tone(c->nd, columns_find("ptp-offset")), c->value), buf);
		fmt_ns(p->master_offset_ns, buf, sizeof buf, c->utf8);
		kv(c, "Master offset", buf);
		fmt_ns(p->mean_path_delay_ns, buf, sizeof buf, c->utf8);
		kv_role(c, "Mean path delay", tone_role(columns_finding_tone(c->nd, columns_find("path-delay")), c->value),
			units_unsigned(buf));
	} else {
		/* ptp4l keeps these from when it last followed a master */
		if (p->offset_from_master_ns != PTP_NS_UNKNOWN) {
			fmt_ns(p->offset_from_master_ns, a, sizeof a, c->utf8);
			snprintf(buf, sizeof buf, "- (no port follows a master; ptp4l's last value %s is stale)",
				 a);
		} else {
			snprintf(buf, sizeof buf, "- (no port follows a master)");
		}
		kv(c, "Offset from master", buf);
	}
	ptp_sync_lines(c, p);
	system_clock_lines(c);

	fmt_int(p->current_utc_offset, a, sizeof a);
	fmt_bool(p->current_utc_offset_valid, b, sizeof b);
	snprintf(buf, sizeof buf, "%s%s (valid: %s)", a, p->current_utc_offset == INT_UNKNOWN ? "" : " s", b);
	kv(c, "UTC offset", buf);
	fmt_bool(p->leap61, a, sizeof a);
	fmt_bool(p->leap59, b, sizeof b);
	snprintf(buf, sizeof buf, "leap61 %s, leap59 %s", a, b);
	kv(c, "Leap", buf);
	fmt_bool(p->ptp_timescale, buf, sizeof buf);
	kv(c, "PTP timescale", buf);
	fmt_bool(p->time_traceable, a, sizeof a);
	fmt_bool(p->frequency_traceable, b, sizeof b);
	snprintf(buf, sizeof buf, "time %s, frequency %s", a, b);
	kv_role(c, "Traceable", finding_role(c, "ptp.gm_not_traceable"), buf);
	if (p->time_source == INT_UNKNOWN) {
		kv(c, "Time source", "unknown");
	} else {
		const char *name = ptp_time_source_name(p->time_source);
		snprintf(buf, sizeof buf, "0x%02X%s%s%s", (unsigned)p->time_source & 0xffu, name ? " (" : "",
			 name ? name : "", name ? ")" : "");
		kv(c, "Time source", buf);
	}
	if (p->foreign_responses > 0) {
		snprintf(buf, sizeof buf, "%d (from other clocks on the path; ignored)", p->foreign_responses);
		kv(c, "Foreign answers", buf);
	}

	if (n_ports == 0) {
		return;
	}
	static const table_column cols[] = {
		{"Port", true}, {"Identity", false}, {"State", false}, {"Peer delay", true},
		{"Sync int", true}, {"Delay mech", false}, {"Interface", false}, {"Timestamping", false},
	};
	table t;
	table_init(&t, (int)(sizeof cols / sizeof cols[0]), cols);
	for (int i = 0; i < n_ports; i++) {
		const ptp_port *port = &p->ports[i];
		char clean[PTP_ID_LEN * 3 + 1];
		theme_role state_role = c->value;
		if (c->value != ROLE_DIM) {
			if (port->state == PTP_PORT_FAULTY) {
				state_role = ROLE_STATUS_CRIT;
			} else if (port->state == PTP_PORT_SLAVE || port->state == PTP_PORT_MASTER ||
				   port->state == PTP_PORT_GRAND_MASTER) {
				state_role = ROLE_STATUS_OK;
			} else {
				state_role = ROLE_STATUS_WARN;
			}
		}
		table_row(&t);
		fmt_int(port->port_number, buf, sizeof buf);
		table_cell(&t, c->value, buf);
		tw_clean(port->port_identity, sizeof port->port_identity, c->utf8, clean, sizeof clean);
		table_cell(&t, c->value, clean);
		table_cell(&t, state_role, ptp_port_state_name(port->state));
		fmt_ns(port->peer_mean_path_delay_ns, buf, sizeof buf, c->utf8);
		table_cell(&t, c->value, units_unsigned(buf));
		if (port->log_sync_interval == INT_UNKNOWN) {
			table_cell(&t, c->value, "unknown");
		} else {
			table_cellf(&t, c->value, "2^%d s", port->log_sync_interval);
		}
		table_cell(&t, c->value, port->delay_mechanism == 1 ? "E2E"
					 : port->delay_mechanism == 2 ? "P2P" : "unknown");
		tw_clean(port->interface, sizeof port->interface, c->utf8, clean, sizeof clean);
		table_cell(&t, c->value, clean[0] ? clean : "unknown");
		tw_clean(port->timestamping, sizeof port->timestamping, c->utf8, clean, sizeof clean);
		table_cell(&t, c->value, clean[0] ? clean : "unknown");
	}
	blank(c);
	table_emit(&t, c->d, 2, c->width, c->utf8);
	table_free(&t);
}

/* One interface ethtool checked; toned: the grid's timestamping column
 * speaks for it (the primary PTP interface's). */
static void nic_entry(ctx *c, const nic_obs *nic, bool toned)
{
	static const struct {
		unsigned bit;
		const char *name;
	} caps[] = {
		{NIC_CAP_HW_TX, "hardware-transmit"}, {NIC_CAP_HW_RX, "hardware-receive"},
		{NIC_CAP_HW_RAW_CLOCK, "hardware-raw-clock"}, {NIC_CAP_SW_TX, "software-transmit"},
		{NIC_CAP_SW_RX, "software-receive"}, {NIC_CAP_SW_SYSTEM_CLOCK, "software-system-clock"},
	};
	char buf[256];

	if (nic->state != OBS_OK) {
		part_state(c, nic->state, nic->error, sizeof nic->error);
		return;
	}
	kv_remote(c, "Interface", nic->interface, sizeof nic->interface);
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
		if (nic->caps & caps[i].bit) {
			if (buf[0]) {
				strncat(buf, ", ", sizeof buf - strlen(buf) - 1);
			}
			strncat(buf, caps[i].name, sizeof buf - strlen(buf) - 1);
		}
	}
	bool hw = (nic->caps & NIC_CAP_HW_TX) && (nic->caps & NIC_CAP_HW_RX);
	theme_role role = toned ? tone_role(columns_finding_tone(c->nd, COL_HWTS), c->value) :
			  hw ? c->value : ROLE_STATUS_WARN;
	kv_role(c, "Capabilities", role, buf[0] ? buf : "none");
	if (nic->phc_index >= 0) {
		snprintf(buf, sizeof buf, "/dev/ptp%d", nic->phc_index);
	} else {
		snprintf(buf, sizeof buf, "%s", nic->phc_index == NIC_PHC_NONE ? "none" : "unknown");
	}
	kv(c, "PTP hardware clock", buf);
	kv_remote(c, "Transmit modes", nic->tx_modes, sizeof nic->tx_modes);
	kv_remote(c, "Receive filters", nic->rx_filters, sizeof nic->rx_filters);
}

/* Every interface checked (a boundary clock's ports each), the primary
 * PTP interface's first. */
static void nic_section(ctx *c)
{
	const observation *o = &c->nd->obs;
	section(c, "NIC timestamping (ethtool -T)");
	int count = observation_nic_count(o);
	if (count <= 1) {
		nic_entry(c, &o->nic, true);
		return;
	}
	nic_entry(c, &o->nic, true);
	for (int i = 0; i < count; i++) {
		const nic_obs *nic = observation_nic_at(o, i);
		if (strncmp(nic->interface, o->nic.interface, sizeof nic->interface) == 0) {
			continue;
		}
		blank(c);
		if (nic->state != OBS_OK) {
			kv_remote(c, "Interface", nic->interface, sizeof nic->interface);
		}
		nic_entry(c, nic, false);
	}
}

static void daemons_section(ctx *c)
{
	const daemons_obs *dm = &c->nd->obs.daemons;
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{DAEMON_CHRONYD, "chronyd"}, {DAEMON_NTPD, "ntpd"}, {DAEMON_TIMESYNCD, "systemd-timesyncd"},
		{DAEMON_PTP4L, "ptp4l"}, {DAEMON_PHC2SYS, "phc2sys"},
	};
	char buf[160] = "";

	if (dm->state == OBS_NOT_COLLECTED) {
		return;
	}
	section(c, "Time daemons running");
	if (dm->state != OBS_OK) {
		part_state(c, dm->state, dm->error, sizeof dm->error);
		return;
	}
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (dm->running & names[i].bit) {
			if (buf[0]) {
				strncat(buf, ", ", sizeof buf - strlen(buf) - 1);
			}
			strncat(buf, names[i].name, sizeof buf - strlen(buf) - 1);
		}
	}
	doc_newline(c->d);
	doc_pad(c->d, ROLE_DEFAULT, 2);
	doc_add(c->d, c->value, buf[0] ? buf : "none of chronyd, ntpd, systemd-timesyncd, ptp4l, phc2sys");
	/* each one's youngest process, and a restart found by its age */
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const daemon_proc *p = &dm->procs[daemon_index(names[i].bit)];
		if (!(dm->running & names[i].bit) || p->pid <= 0) {
			continue;
		}
		char line[160];
		int n = snprintf(line, sizeof line, "PID %d", p->pid);
		if (p->age_s >= 0 && n > 0 && (size_t)n < sizeof line) {
			n += snprintf(line + n, sizeof line - (size_t)n, ", running %lld s",
				      (long long)p->age_s);
		}
		if (p->count > 1 && n > 0 && (size_t)n < sizeof line) {
			n += snprintf(line + n, sizeof line - (size_t)n, " (the youngest of %d)", p->count);
		}
		double ago = c->now - p->restarted_at;
		bool recent = isfinite(ago) && ago < 3600;
		if (recent && n > 0 && (size_t)n < sizeof line) {
			snprintf(line + n, sizeof line - (size_t)n, "; restart found %.0f s ago", ago > 0 ? ago : 0);
		}
		kv_role(c, names[i].name, recent ? ROLE_STATUS_WARN : c->value, line);
	}
}

/* What the connection went through: the newest events last, like a log. */
static void connection_section(ctx *c)
{
	const node *nd = c->nd;
	char buf[160], clean[NODE_EVENT_LEN * 3 + 1];

	section(c, "Connection");
	snprintf(buf, sizeof buf, "%lu completed, %lu failed", nd->polls_completed, nd->polls_failed);
	kv_role(c, "Polls", nd->polls_failed > 0 ? ROLE_STATUS_WARN : ROLE_DEFAULT, buf);
	for (unsigned i = 0; i < nd->events.count && i < NODE_EVENTS; i++) {
		const node_event *e = node_event_at(nd, i);
		if (!e) {
			break;
		}
		char when[32] = "?";
		time_t tt = (time_t)e->t;
		struct tm tm;
		if (isfinite(e->t) && localtime_r(&tt, &tm)) {
			strftime(when, sizeof when, "%H:%M:%S", &tm);
		}
		tw_clean(e->text, sizeof e->text, c->utf8, clean, sizeof clean);
		doc_newline(c->d);
		doc_pad(c->d, ROLE_DEFAULT, 2);
		doc_add(c->d, ROLE_DIM, when);
		doc_add(c->d, ROLE_DEFAULT, "  ");
		doc_wrapped(c->d, ROLE_DEFAULT, 12, clean, c->width);
	}
}

/* The last answer as the node printed it, one sanitised line at a time:
 * what an operator compares with running the tools by hand. */
static void raw_section(ctx *c)
{
	const node *nd = c->nd;
	char clean[1024];
	size_t start = 0;

	if (nd->last_raw_len == 0) {
		return;
	}
	section(c, "Raw output of the last poll");
	while (start < nd->last_raw_len) {
		const char *line = nd->last_raw + start;
		const char *nl = memchr(line, '\n', nd->last_raw_len - start);
		size_t len = nl ? (size_t)(nl - line) : nd->last_raw_len - start;
		tw_clean(line, len, c->utf8, clean, sizeof clean);
		doc_newline(c->d);
		doc_pad(c->d, ROLE_DEFAULT, 2);
		doc_add(c->d, ROLE_DIM, clean);
		start += len + 1;
	}
	if (nd->last_raw_truncated) {
		doc_newline(c->d);
		doc_pad(c->d, ROLE_DEFAULT, 2);
		doc_addf(c->d, ROLE_DIM, "(first %d KiB shown)", NODE_RAW_LEN / 1024);
	}
}

/* ---------------------------------------------------------------- plots */

static void format_offset(double v, char *buf, size_t len)
{
	units_format_seconds(v, buf, len);
}

static void format_ppm_label(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%+.3f ppm", v);
}

static void format_ns_label(double v, char *buf, size_t len)
{
	units_format_ns((int64_t)llround(v), buf, len);
}

/* a delay: no sign */
static void format_delay_label(double v, char *buf, size_t len)
{
	units_magnitude_ns((int64_t)llround(v), buf, len);
}

/* A titled plot of n points (t ascending), nothing when none is finite. */
static void plot_points(ctx *c, const char *title, const double *t, const double *v, size_t n,
			void (*format_y)(double, char *, size_t))
{
	size_t finite = 0;
	plot_grid g;
	for (size_t i = 0; i < n; i++) {
		finite += isfinite(v[i]) ? 1 : 0;
	}
	plot_series ps = {t, v, n, c->now, format_y, 0};
	int width = c->width - 2 < 200 ? c->width - 2 : 200;
	if (finite > 0 && plot_render(&ps, width, PLOT_HEIGHT, c->utf8, &g) == 0) {
		blank(c);
		doc_newline(c->d);
		doc_pad(c->d, ROLE_DEFAULT, 2);
		doc_add(c->d, ROLE_DEFAULT, title);
		doc_addf(c->d, ROLE_DIM, "  (%zu samples)", finite);
		for (int r = 0; r < g.height; r++) {
			doc_newline(c->d);
			doc_pad(c->d, ROLE_DEFAULT, 2);
			for (int col = 0; col < g.width; col++) {
				const plot_cell *cell = &g.cells[(size_t)r * (size_t)g.width + (size_t)col];
				theme_role role = cell->kind == PLOT_LINE ? ROLE_PLOT_LINE
						  : cell->kind == PLOT_AXIS ? ROLE_PLOT_AXIS : ROLE_DEFAULT;
				doc_add(c->d, c->value == ROLE_DIM ? ROLE_DIM : role, cell->glyph);
			}
		}
		plot_free(&g);
	}
}

static void plot_one(ctx *c, const char *title, history_series series,
		     void (*format_y)(double, char *, size_t))
{
	const history *h = &c->nd->history;
	size_t n = history_count(h);
	if (n == 0) {
		return;
	}
	double *t = xmalloc(n * sizeof *t);
	double *v = xmalloc(n * sizeof *v);
	for (size_t i = 0; i < n; i++) {
		const history_sample *s = history_at(h, i);
		t[i] = s->t;
		v[i] = s->value[series];
	}
	plot_points(c, title, t, v, n, format_y);
	free(t);
	free(v);
}

/* A Prometheus node's last 24 h (remote_history.h): what came, what is
 * still coming, or why nothing came. */
static void remote_history_section(ctx *c)
{
	const remote_history *h = c->nd->remote;
	char title[160];
	if (!h) {
		return;
	}
	section(c, "History from Prometheus (last 24 h)");
	if (h->state == REMOTE_HISTORY_LOADING) {
		doc_newline(c->d);
		doc_pad(c->d, ROLE_DEFAULT, 2);
		doc_addf(c->d, ROLE_DIM, "asking Prometheus (query_range, a point every %.0f s)...", h->step);
		return;
	}
	if (h->error[0]) {
		char clean[400];
		tw_clean(h->error, strlen(h->error), c->utf8, clean, sizeof clean);
		doc_newline(c->d);
		doc_pad(c->d, ROLE_DEFAULT, 2);
		doc_addf(c->d, ROLE_STATUS_WARN, "Prometheus history: %s", clean);
	}
	const remote_series *off = &h->series[REMOTE_SERIES_OFFSET];
	const remote_series *freq = &h->series[REMOTE_SERIES_FREQUENCY];
	const remote_series *ptp = &h->series[REMOTE_SERIES_PTP_OFFSET];
	if (h->state == REMOTE_HISTORY_READY && !off->n && !freq->n && !ptp->n) {
		doc_newline(c->d);
		doc_pad(c->d, ROLE_DEFAULT, 2);
		doc_add(c->d, ROLE_DIM, "no offset, frequency or PTP offset series for this node in the last 24 h");
	}
	snprintf(title, sizeof title, "Offset (node - reference), %s, every %.0f s", off->what, h->step);
	plot_points(c, title, off->t, off->v, off->n, format_offset);
	snprintf(title, sizeof title, "Frequency, %s, every %.0f s", freq->what, h->step);
	plot_points(c, title, freq->t, freq->v, freq->n, format_ppm_label);
	snprintf(title, sizeof title, "PTP offset from master (node - master), %s, every %.0f s", ptp->what, h->step);
	plot_points(c, title, ptp->t, ptp->v, ptp->n, format_ns_label);
}

/* The frequency's trends the drift rules judge where they come from
 * elsewhere than the ring: a Prometheus server's deriv over its last hour
 * and 7 days, the --state-dir database's over days.  Nothing known: no
 * section. */
static void drift_section(ctx *c)
{
	const history *h = &c->nd->history;
	double day = history_drift_daily(h);
	char buf[96];
	if (!isfinite(h->remote_drift_hourly_ppm) && !isfinite(day)) {
		return;
	}
	section(c, "Frequency drift (the drift rules' input)");
	if (isfinite(h->remote_drift_hourly_ppm)) {
		snprintf(buf, sizeof buf, "%+.3f ppm/h (Prometheus's deriv)", h->remote_drift_hourly_ppm);
		kv_role(c, "Last hour", tone_role(columns_finding_tone(c->nd, COL_FREQ), c->value), buf);
	}
	if (isfinite(day)) {
		snprintf(buf, sizeof buf, "%+.2f ppm/day (%s)", day,
			 isfinite(h->remote_drift_daily_ppm) ? "Prometheus's deriv, last 7 days"
							     : "--state-dir, up to 7 days");
		kv(c, "Over days", buf);
	}
}

static bool has_finite(const history *h, history_series series)
{
	for (size_t i = 0; i < history_count(h); i++) {
		if (isfinite(history_at(h, i)->value[series])) {
			return true;
		}
	}
	return false;
}

/* Least-squares trends over the whole history, per hour: an offset that
 * keeps walking, or a frequency that keeps moving (an ageing oscillator, a
 * rack heating up), shows here before it crosses a threshold. */
static void trends(ctx *c)
{
	const history *h = &c->nd->history;
	const history_sample *first = history_count(h) ? history_at(h, 0) : NULL;
	const history_sample *last = history_latest(h);
	char buf[160];
	if (!first || !last || last->t - first->t < 60) {
		return; /* a minute of samples says nothing about an hour */
	}
	double off = history_slope(h, HISTORY_OFFSET_S, first->t);
	double freq = history_slope(h, HISTORY_FREQUENCY_PPM, first->t);
	double ptp = history_slope(h, HISTORY_PTP_OFFSET_NS, first->t);
	char span[48];
	fmt_span(last->t - first->t, span, sizeof span);
	if (isfinite(off)) {
		snprintf(buf, sizeof buf, "%+.3f %s/h", off * 3600 * 1e6, c->utf8 ? "\u00b5s" : "us");
		kv(c, "Offset trend", buf);
	}
	if (isfinite(freq)) {
		snprintf(buf, sizeof buf, "%+.4f ppm/h", freq * 3600);
		kv_role(c, "Frequency trend", tone_role(columns_finding_tone(c->nd, COL_FREQ), c->value), buf);
	}
	if (isfinite(ptp)) {
		snprintf(buf, sizeof buf, "%+.1f ns/h", ptp * 3600);
		kv(c, "PTP offset trend", buf);
	}
	if (isfinite(off) || isfinite(freq) || isfinite(ptp)) {
		snprintf(buf, sizeof buf, "least squares over the last %s", span);
		kv(c, "Window", buf);
	}
}

static void history_section(ctx *c)
{
	const history *h = &c->nd->history;
	if (!has_finite(h, HISTORY_OFFSET_S) && !has_finite(h, HISTORY_FREQUENCY_PPM) &&
	    !has_finite(h, HISTORY_PTP_OFFSET_NS) && !has_finite(h, HISTORY_PATH_DELAY_NS) &&
	    !has_finite(h, HISTORY_PHC_SYS_OFFSET_NS)) {
		return;
	}
	section(c, "History");
	trends(c);
	plot_one(c, "Offset, chrony System time (node - reference)", HISTORY_OFFSET_S, format_offset);
	plot_one(c, "Frequency, chrony", HISTORY_FREQUENCY_PPM, format_ppm_label);
	plot_one(c, "PTP offset from master (node - master)", HISTORY_PTP_OFFSET_NS, format_ns_label);
	plot_one(c, "PTP mean path delay", HISTORY_PATH_DELAY_NS, format_delay_label);
	plot_one(c, "System clock - PHC (phc_ctl, UTC timescale)", HISTORY_PHC_SYS_OFFSET_NS, format_ns_label);
}

/* ------------------------------------------- collectors' own sections */

static theme_role detail_role(const ctx *c, detail_tone tone)
{
	if (c->value == ROLE_DIM) {
		return ROLE_DIM; /* a node we lost: everything is stale */
	}
	switch (tone) {
	case DETAIL_DIM: return ROLE_DIM;
	case DETAIL_GOOD: return ROLE_STATUS_OK;
	case DETAIL_WARN: return ROLE_STATUS_WARN;
	case DETAIL_CRIT: return ROLE_STATUS_CRIT;
	case DETAIL_PLAIN: break;
	}
	return ROLE_DEFAULT;
}

/* Remote or formatted text for the terminal: µ spelled u where the
 * terminal is not UTF-8, then cleaned. */
static void sink_clean(const ctx *c, const char *in, char *out, size_t out_len)
{
	char ascii[1024];
	snprintf(ascii, sizeof ascii, "%s", in);
	tw_ascii_micro(ascii, c->utf8);
	tw_clean(ascii, strlen(ascii), c->utf8, out, out_len);
}

static void sink_kv(void *ctxp, const char *key, const char *value, detail_tone tone)
{
	ctx *c = ctxp;
	char k[128], v[512];
	sink_clean(c, key, k, sizeof k);
	sink_clean(c, value, v, sizeof v);
	kv_role(c, k, detail_role(c, tone), v);
}

static void sink_text(void *ctxp, const char *text, detail_tone tone)
{
	ctx *c = ctxp;
	char t[1024];
	sink_clean(c, text, t, sizeof t);
	doc_newline(c->d);
	doc_pad(c->d, ROLE_DEFAULT, 2);
	doc_wrapped(c->d, detail_role(c, tone), 2, t, c->width);
}

static void sink_section(void *ctxp, const char *title)
{
	ctx *c = ctxp;
	char t[128];
	sink_clean(c, title, t, sizeof t);
	section(c, t);
}

static void sink_table_end(void *ctxp)
{
	ctx *c = ctxp;
	if (c->sink_table) {
		table_emit(c->sink_table, c->d, 2, c->width, c->utf8);
		table_free(c->sink_table);
		free(c->sink_table);
		c->sink_table = NULL;
	}
}

static void sink_table_begin(void *ctxp, int n_columns, const detail_column *columns)
{
	ctx *c = ctxp;
	table_column cols[TABLE_MAX_COLS];
	sink_table_end(c); /* one table at a time */
	if (n_columns < 1) {
		return;
	}
	if (n_columns > TABLE_MAX_COLS) {
		n_columns = TABLE_MAX_COLS;
	}
	for (int i = 0; i < n_columns; i++) {
		cols[i].title = columns[i].title;
		cols[i].right = columns[i].right;
	}
	c->sink_table = xmalloc(sizeof *c->sink_table);
	table_init(c->sink_table, n_columns, cols);
}

static void sink_table_row(void *ctxp)
{
	ctx *c = ctxp;
	if (c->sink_table) {
		table_row(c->sink_table);
	}
}

static void sink_table_cell(void *ctxp, const char *text, detail_tone tone)
{
	ctx *c = ctxp;
	char t[TABLE_CELL_LEN];
	if (c->sink_table) {
		sink_clean(c, text, t, sizeof t);
		table_cell(c->sink_table, detail_role(c, tone), t);
	}
}

static detail_tone sink_finding_tone(void *ctxp, const char *const *codes)
{
	const ctx *c = ctxp;
	severity worst = codes ? worst_of(c->nd, codes) : SEVERITY_OK;
	return worst == SEVERITY_CRIT ? DETAIL_CRIT : worst == SEVERITY_WARN ? DETAIL_WARN : DETAIL_PLAIN;
}

/* Every collector that writes its own section (collector.h), when its part
 * was asked for; a part that did not answer shows its state and why. */
static void collector_sections(ctx *c)
{
	detail_sink sink = {c,
			    sink_kv,
			    sink_text,
			    sink_section,
			    sink_table_begin,
			    sink_table_row,
			    sink_table_cell,
			    sink_table_end,
			    sink_finding_tone};
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *col = collector_registry[i];
		if (!col->detail || collector_part_absent(col, &c->nd->obs)) {
			continue;
		}
		section(c, col->detail_title);
		col->detail(&c->nd->obs, &sink);
		sink_table_end(c); /* a table the collector left open */
	}
}

/* ------------------------------------------- a node's detail over SSH */

static void clock_time(double t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;
	snprintf(buf, len, "?");
	if (isfinite(t) && localtime_r(&tt, &tm)) {
		strftime(buf, len, "%H:%M:%S", &tm);
	}
}

/* Every grid value either source has, side by side: the Prometheus node's
 * cell and the SSH poll's, through the grid's own formatting and validity
 * rules (columns.h), so the two read alike. */
static void compare_sources(ctx *c, const node *ssh)
{
	static const table_column cols[] = {{"value", false}, {"from Prometheus", true}, {"over SSH", true}};
	column_id ids[COLUMNS_MAX];
	int n = columns_in_place_order(ids);
	column_mask have = columns_data_mask(c->nd) | columns_data_mask(ssh);
	table t;
	table_init(&t, 3, cols);
	for (int i = 0; i < n; i++) {
		column_id id = ids[i];
		if (id == COL_NODE || id == COL_SPARK || !(have & COLUMN_BIT(id))) {
			continue;
		}
		column_cell pc, sc;
		columns_cell(c->nd, id, 24, c->now, c->utf8, &pc);
		columns_cell(ssh, id, 24, c->now, c->utf8, &sc);
		table_row(&t);
		/* a word, not the grid's heading, with the heading's unit ("FREQ ppm") */
		const column_info *info = columns_info(id);
		const char *unit = strchr(info->title, ' ');
		table_cellf(&t, ROLE_DEFAULT, "%s%s", info->key, unit ? unit : "");
		table_cell(&t, tone_role(pc.tone, c->value), pc.text);
		table_cell(&t, tone_role(sc.tone, ROLE_DEFAULT), sc.text);
	}
	blank(c);
	table_emit(&t, c->d, 2, c->width, c->utf8);
	table_free(&t);
}

/* A node read from Prometheus, polled once over SSH (`S`, --ssh-detail):
 * the poll's state or its error, both sources' values side by side, then
 * the poll's own report, every section marked as over SSH. */
static void ssh_detail_section(ctx *c)
{
	const ssh_detail *sd = c->nd->ssh_detail;
	char buf[160], when[32];
	if (!sd) {
		if (c->nd->remote) {
			/* a node a source gave (its history came from there) */
			section(c, "Over SSH");
			doc_newline(c->d);
			doc_pad(c->d, ROLE_DEFAULT, 2);
			doc_add(c->d, ROLE_DIM, "not polled: S polls this node once over SSH (same name) for its full "
						"chrony, PTP and NIC detail");
		}
		return;
	}
	const node *ssh = &sd->node;
	const char *tag = c->tag;
	c->tag = NULL;
	section(c, "Over SSH (one poll; S: poll again)");
	c->tag = tag;
	clock_time(sd->asked_at, when, sizeof when);
	if (sd->state == SSH_DETAIL_POLLING) {
		snprintf(buf, sizeof buf, "asked at %s, polling...", when);
		kv_role(c, "Poll", ROLE_DIM, buf);
	} else if (node_answered(ssh)) {
		snprintf(buf, sizeof buf, "asked at %s, answered in %.1f s", when, sd->done_at - sd->asked_at);
		kv_role(c, "Poll", ROLE_STATUS_OK, buf);
	} else {
		char clean[NODE_ERROR_LEN * 3 + 1];
		tw_clean(ssh->error, sizeof ssh->error, c->utf8, clean, sizeof clean);
		snprintf(buf, sizeof buf, "asked at %s, failed after %.1f s", when, sd->done_at - sd->asked_at);
		kv_role(c, "Poll", ROLE_STATUS_CRIT, buf);
		kv_role(c, "Error", ROLE_STATUS_CRIT, clean[0] ? clean : "no answer");
	}
	if (!ssh->has_observation) {
		ctx sc = *c;
		sc.nd = ssh;
		sc.tag = " (over SSH)";
		connection_section(&sc);
		return;
	}
	compare_sources(c, ssh);
	ctx sc = *c;
	sc.nd = ssh;
	sc.value = ROLE_DEFAULT;
	sc.tag = " (over SSH)";
	sc.sink_table = NULL;
	diagnosis(&sc);
	clock_check_section(&sc);
	collector_sections(&sc);
	ptp_section(&sc);
	nic_section(&sc);
	daemons_section(&sc);
	connection_section(&sc);
	raw_section(&sc);
}

/* What changed on this node (events.h), newest first. */
static void events_section(ctx *c, const event_log *log, size_t node_index)
{
	const event *found[DETAIL_DOC_EVENTS];
	size_t n = events_of_node(log, node_index, found, DETAIL_DOC_EVENTS);
	char line[EVENT_MESSAGE_LEN + 64], clean[sizeof line * 3 + 1];

	section(c, "Events (newest first; e: all nodes)");
	if (n == 0) {
		doc_newline(c->d);
		doc_pad(c->d, ROLE_DEFAULT, 2);
		doc_add(c->d, ROLE_DIM, "no change seen since synctop started");
	}
	for (size_t i = 0; i < n; i++) {
		events_line(found[i], line, sizeof line);
		tw_clean(line, sizeof line, c->utf8, clean, sizeof clean);
		doc_newline(c->d);
		doc_pad(c->d, ROLE_DEFAULT, 2);
		doc_wrapped(c->d, ROLE_DEFAULT, 12, clean, c->width);
	}
}

void detail_doc_build(doc *d, const node *nd, double now, int width, bool utf8)
{
	detail_doc_build_events(d, nd, NULL, 0, now, width, utf8);
}

void detail_doc_build_events(doc *d, const node *nd, const event_log *log, size_t node_index, double now,
			     int width, bool utf8)
{
	ctx c = {d, nd, now, width < 40 ? 40 : width, utf8,
		 nd->has_observation && !nd->reachable ? ROLE_DIM : ROLE_DEFAULT, NULL, NULL};
	/* two sources in one report: each section says whose it is */
	if (nd->ssh_detail) {
		c.tag = " (from Prometheus)";
	}

	title_line(&c);
	diagnosis(&c);
	if (log) {
		events_section(&c, log, node_index);
	}
	error_section(&c);
	if (nd->has_observation) {
		clock_check_section(&c);
		collector_sections(&c);
		ptp_section(&c);
		nic_section(&c);
		daemons_section(&c);
	}
	connection_section(&c);
	remote_history_section(&c);
	drift_section(&c);
	history_section(&c);
	raw_section(&c);
	/* after everything the source says: a second source's report */
	ssh_detail_section(&c);
}
