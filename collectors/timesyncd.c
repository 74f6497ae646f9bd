/* timesyncd.c - the systemd-timesyncd collector: what timedatectl says about
 * the SNTP client many images run by default (timesyncd_parse.c).
 *
 * It costs nothing on a node without timesyncd: the command looks for the
 * process in the list the daemons section left in $synctop_ps (it runs
 * earlier in the same request, registry.c; the name is cut to 15
 * characters as the kernel keeps it) and prints nothing when there is
 * none, which reads as "not collected".  A pgrep would cost each node
 * ~18 ms of CPU a poll (tests/fixtures/ntpq.source.md).  Where timedatectl cannot reach D-Bus (no
 * systemd as PID 1: containers, this project's lab) the part says so and
 * the collection rule reports the tool failure. */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collector.h"
#include "json_value.h"
#include "timesyncd_parse.h"
#include "units.h"

static void timesyncd_decode(const tool_output *out, observation *obs)
{
	timesyncd_parse(out, &obs->timesyncd);
}

/* POSIX sh; runs inside the probe script (probe.h). */
static const char timesyncd_functions[] =
	"synctop_timesyncd() {\n"
	"	case $synctop_ps in *systemd-timesyn*) ;; *) return 0 ;; esac\n"
	"	timedatectl show && timedatectl show-timesync --all && timedatectl timesync-status\n"
	"}\n";

static obs_state timesyncd_part_state(const observation *obs)
{
	return obs->timesyncd.state;
}

/* The NTP leap indicator in chrony's words (time_service.h). */
static chrony_leap leap_of(int leap)
{
	switch (leap) {
	case 0: return CHRONY_LEAP_NORMAL;
	case 1: return CHRONY_LEAP_INSERT;
	case 2: return CHRONY_LEAP_DELETE;
	case NTP_LEAP_UNSYNC: return CHRONY_LEAP_UNSYNC;
	default: break;
	}
	return CHRONY_LEAP_UNKNOWN;
}

static const char *server_of(const timesyncd_obs *t)
{
	return t->server_name[0] ? t->server_name : t->server_address[0] ? t->server_address : "its server";
}

/* ---------------------------------------------------------------- rules */

static void rule_unsynchronised(const timesyncd_obs *t, finding_list *out)
{
	char server[HEALTH_NAME_LEN];
	finding f;
	health_clean(server, sizeof server, server_of(t), strlen(server_of(t)));
	if (t->packet_count == 0) {
		finding_start(&f, SEVERITY_CRIT, "timesyncd.unsynchronised");
		finding_message(&f, "systemd-timesyncd has had no answer from %s", server);
	} else if (t->leap == NTP_LEAP_UNSYNC) {
		finding_start(&f, SEVERITY_CRIT, "timesyncd.unsynchronised");
		finding_message(&f, "systemd-timesyncd's server %s is not synchronised itself (leap indicator 3)",
				server);
	} else if (t->kernel_synchronised == 0) {
		finding_start(&f, SEVERITY_CRIT, "timesyncd.unsynchronised");
		finding_message(&f, "The kernel marks the system clock unsynchronised (timedatectl "
				    "NTPSynchronized=no) although systemd-timesyncd runs");
	} else {
		return;
	}
	finding_hint(&f, "Check the servers it uses (`timedatectl show-timesync --all`, NTP= in "
			 "/etc/systemd/timesyncd.conf), that UDP 123 reaches them, and `journalctl -u "
			 "systemd-timesyncd`; for a cluster prefer chrony (`apt install chrony`), which "
			 "filters several sources.");
	health_add_finding(out, &f);
}

static void rule_offset(const timesyncd_obs *t, const thresholds *th, finding_list *out)
{
	if (!timesyncd_has_reference(t) || !isfinite(t->offset_s)) {
		return;
	}
	severity sev = health_grade(fabs(t->offset_s), th->chrony_offset_warn_s, th->chrony_offset_crit_s);
	if (sev == SEVERITY_OK) {
		return;
	}
	char server[HEALTH_NAME_LEN], off[UNITS_BUF_LEN], limit[UNITS_BUF_LEN];
	finding f;
	health_clean(server, sizeof server, server_of(t), strlen(server_of(t)));
	units_format_seconds(t->offset_s, off, sizeof off);
	units_magnitude_seconds(sev == SEVERITY_CRIT ? th->chrony_offset_crit_s : th->chrony_offset_warn_s, limit,
				sizeof limit);
	finding_start(&f, sev, "timesyncd.offset");
	finding_message(&f, "systemd-timesyncd measured the clock %s from %s at its last answer (limit %s)", off,
			server, limit);
	finding_hint(&f, "timesyncd corrects slowly between polls (`timedatectl timesync-status`: Poll "
			 "interval); a large offset after start-up settles, one that stays means a bad or far "
			 "server. chrony keeps GPU nodes far tighter.");
	health_add_finding(out, &f);
}

static void rule_leap(const timesyncd_obs *t, finding_list *out)
{
	if (!timesyncd_has_reference(t) || (t->leap != 1 && t->leap != 2)) {
		return;
	}
	finding f;
	finding_start(&f, SEVERITY_WARN, "timesyncd.leap");
	finding_message(&f, "A leap second is announced: the last minute of the day has %d seconds",
			t->leap == 1 ? 61 : 59);
	finding_hint(&f, "Jobs that span midnight UTC see the kernel insert or delete a second; "
			 "plan around it or smear it on every node alike.");
	health_add_finding(out, &f);
}

static void timesyncd_rules(const health_context *ctx, finding_list *out)
{
	const timesyncd_obs *t = &ctx->obs->timesyncd;
	rule_unsynchronised(t, out);
	rule_offset(t, ctx->th, out);
	rule_leap(t, out);
}

/* --------------------------------------------------------------- outputs */

static json_t *timesyncd_json(const observation *obs, bool *ok)
{
	const timesyncd_obs *t = &obs->timesyncd;
	if (obs_state_absent(t->state)) {
		return json_null();
	}
	timesyncd_obs blank;
	if (t->state != OBS_OK) {
		timesyncd_obs_init(&blank);
		blank.state = t->state;
		memcpy(blank.error, t->error, sizeof blank.error);
		t = &blank;
	}
	chrony_leap leap = leap_of(t->leap);
	json_t *o = json_object();
	json_value_put(o, "error", json_value_part_error(t->state, t->error, sizeof t->error), ok);
	json_value_put(o, "ntp_enabled", json_value_flag(t->ntp_enabled), ok);
	json_value_put(o, "kernel_synchronised", json_value_flag(t->kernel_synchronised), ok);
	json_value_put(o, "server_name", json_value_text(t->server_name, sizeof t->server_name), ok);
	json_value_put(o, "server_address", json_value_text(t->server_address, sizeof t->server_address), ok);
	json_value_put(o, "leap_status", leap == CHRONY_LEAP_UNKNOWN ? json_null() : json_string(chrony_leap_name(leap)),
		       ok);
	json_value_put(o, "stratum", json_value_int(t->stratum), ok);
	json_value_put(o, "reference_id", json_value_text(t->reference, sizeof t->reference), ok);
	json_value_put(o, "offset_s", json_value_number(t->offset_s), ok);
	json_value_put(o, "delay_s", json_value_number(t->delay_s), ok);
	json_value_put(o, "jitter_s", json_value_number(t->jitter_s), ok);
	json_value_put(o, "root_delay_s", json_value_number(t->root_delay_s), ok);
	json_value_put(o, "root_dispersion_s", json_value_number(t->root_dispersion_s), ok);
	json_value_put(o, "poll_interval_s", json_value_number(t->poll_interval_s), ok);
	json_value_put(o, "packet_count",
		       t->packet_count < 0 ? json_null() : json_integer((json_int_t)t->packet_count), ok);
	json_value_put(o, "frequency_ppm", json_value_number(t->frequency_ppm), ok);
	return o;
}

static double v_offset(const observation *obs)
{
	return obs->timesyncd.state == OBS_OK ? obs->timesyncd.offset_s : NAN;
}

static double v_synchronised(const observation *obs)
{
	const timesyncd_obs *t = &obs->timesyncd;
	if (t->state != OBS_OK) {
		return NAN;
	}
	return timesyncd_has_reference(t) && t->kernel_synchronised != 0;
}

static const prom_family timesyncd_prometheus[] = {
	{"synctop_timesyncd_offset_seconds", "gauge",
	 "systemd-timesyncd's offset at its last answer: node clock minus its server (positive = node ahead).",
	 v_offset, NULL},
	{"synctop_timesyncd_synchronized", "gauge",
	 "1 when systemd-timesyncd has an answer from a synchronised server and the kernel clock is marked "
	 "synchronised, else 0.",
	 v_synchronised, NULL},
};

/* timesyncd's view of the system clock for the grid (time_service.h). */
static bool timesyncd_time_service(const observation *obs, time_service_view *out)
{
	const timesyncd_obs *t = &obs->timesyncd;
	if (t->state != OBS_OK) {
		return false;
	}
	out->daemon = "systemd-timesyncd";
	out->referenced = timesyncd_has_reference(t);
	snprintf(out->source, sizeof out->source, "%s", t->server_name[0] ? t->server_name : t->server_address);
	out->stratum = t->stratum;
	out->offset_s = t->offset_s;
	out->frequency_ppm = t->frequency_ppm;
	out->skew_ppm = NAN; /* SNTP keeps no frequency error estimate */
	out->leap = leap_of(t->leap);
	return true;
}

/* ------------------------------------------------------------- drill-down */

static const char *const offset_codes[] = {"timesyncd.offset", NULL};
static const char *const sync_codes[] = {"timesyncd.unsynchronised", NULL};
static const char *const leap_codes[] = {"timesyncd.leap", NULL};

static void span_value(double s, char *buf, size_t len)
{
	char signed_buf[UNITS_BUF_LEN];
	units_format_seconds(s, signed_buf, sizeof signed_buf);
	snprintf(buf, len, "%s", units_unsigned(signed_buf));
}

static void timesyncd_detail(const observation *obs, const detail_sink *out)
{
	const timesyncd_obs *t = &obs->timesyncd;
	char buf[256];
	if (t->state != OBS_OK) {
		snprintf(buf, sizeof buf, "%s: %.*s", obs_state_name(t->state), (int)strnlen(t->error, sizeof t->error),
			 t->error);
		out->text(out->ctx, buf, DETAIL_WARN);
		return;
	}
	bool ref = timesyncd_has_reference(t);
	const char *none = "no answer yet";
	snprintf(buf, sizeof buf, "%s%s%s%s", t->server_address[0] ? t->server_address : "unknown address",
		 t->server_name[0] ? " (" : "", t->server_name, t->server_name[0] ? ")" : "");
	out->kv(out->ctx, "Server", buf, out->finding_tone(out->ctx, sync_codes));
	out->kv(out->ctx, "Kernel synchronised",
		t->kernel_synchronised == INT_UNKNOWN ? "unknown" : t->kernel_synchronised ? "yes" : "no",
		t->kernel_synchronised == 0 ? DETAIL_CRIT : DETAIL_PLAIN);
	if (t->packet_count < 0) {
		snprintf(buf, sizeof buf, "unknown");
	} else {
		snprintf(buf, sizeof buf, "%lld", (long long)t->packet_count);
	}
	out->kv(out->ctx, "Packets", buf, DETAIL_PLAIN);
	units_format_seconds(t->offset_s, buf, sizeof buf);
	out->kv(out->ctx, "Offset", ref ? buf : none, out->finding_tone(out->ctx, offset_codes));
	span_value(t->delay_s, buf, sizeof buf);
	out->kv(out->ctx, "Delay", ref ? buf : none, DETAIL_PLAIN);
	span_value(t->jitter_s, buf, sizeof buf);
	out->kv(out->ctx, "Jitter", ref ? buf : none, DETAIL_PLAIN);
	if (t->stratum == INT_UNKNOWN) {
		snprintf(buf, sizeof buf, "%s", ref ? "unknown" : none);
	} else {
		snprintf(buf, sizeof buf, "%d (reference %s)", t->stratum, t->reference[0] ? t->reference : "?");
	}
	out->kv(out->ctx, "Stratum", buf, DETAIL_PLAIN);
	span_value(t->poll_interval_s, buf, sizeof buf);
	out->kv(out->ctx, "Poll interval", buf, DETAIL_PLAIN);
	if (isfinite(t->frequency_ppm)) {
		snprintf(buf, sizeof buf, "%+.3f ppm", t->frequency_ppm);
	} else {
		snprintf(buf, sizeof buf, "unknown");
	}
	out->kv(out->ctx, "Frequency", buf, DETAIL_PLAIN);
	out->kv(out->ctx, "Leap", chrony_leap_name(leap_of(t->leap)), out->finding_tone(out->ctx, leap_codes));
	out->text(out->ctx,
		  "systemd-timesyncd is an SNTP client: one server at a time, no filtering of several "
		  "sources; chrony keeps a cluster's clocks far closer together.",
		  DETAIL_DIM);
}

/* ----------------------------------------------------------- demo renderer */

/* A systemd time span as format_timespan(..., 0) prints it, for spans
 * below an hour (the demo's). */
static void span_text(double s, char *buf, size_t len)
{
	long long us = llround(s * 1e6);
	if (us <= 0) {
		snprintf(buf, len, "0");
	} else if (us >= 60000000LL) {
		long long min = us / 60000000LL, rest = us % 60000000LL;
		if (rest == 0) {
			snprintf(buf, len, "%lldmin", min);
		} else if (rest % 1000000LL == 0) {
			snprintf(buf, len, "%lldmin %llds", min, rest / 1000000LL);
		} else {
			snprintf(buf, len, "%lldmin %lld.%06llds", min, rest / 1000000LL, rest % 1000000LL);
		}
	} else if (us >= 1000000LL) {
		snprintf(buf, len, us % 1000000LL ? "%lld.%06llds" : "%llds", us / 1000000LL, us % 1000000LL);
	} else if (us >= 1000LL) {
		snprintf(buf, len, us % 1000LL ? "%lld.%03lldms" : "%lldms", us / 1000LL, us % 1000LL);
	} else {
		snprintf(buf, len, "%lldus", us);
	}
}

static int timesyncd_render(const observation *truth, const char *iface, text_sink *out, text_sink *err)
{
	const timesyncd_obs *t = &truth->timesyncd;
	(void)iface;
	switch (t->state) {
	case OBS_OK:
		break;
	case OBS_NOT_COLLECTED:
		return 0;
	case OBS_DAEMON_UNREACHABLE:
		text_sink_puts(err, "System has not been booted with systemd as init system (PID 1). Can't operate.\n"
				    "Failed to connect to bus: Host is down\n");
		return 1;
	default:
		text_sink_printf(err, "%s\n", t->error);
		return 1;
	}
	char a[48], b[48];
	text_sink_printf(out, "NTP=%s\nNTPSynchronized=%s\n", t->ntp_enabled == 0 ? "no" : "yes",
			 t->kernel_synchronised == 1 ? "yes" : "no");
	text_sink_printf(out, "ServerName=%s\nServerAddress=%s\n", t->server_name, t->server_address);
	span_text(t->poll_interval_s, a, sizeof a);
	text_sink_printf(out, "PollIntervalUSec=%s\n", a);
	if (t->packet_count > 0) {
		span_text(t->root_delay_s, a, sizeof a);
		span_text(t->root_dispersion_s, b, sizeof b);
		text_sink_printf(out, "NTPMessage={ Leap=%d, Version=4, Mode=4, Stratum=%d, Precision=%d, RootDelay=%s, "
				      "RootDispersion=%s, Reference=%s, Ignored=%s, PacketCount=%lld, ",
				 t->leap == INT_UNKNOWN ? 0 : t->leap, t->stratum == INT_UNKNOWN ? 0 : t->stratum,
				 t->precision == INT_UNKNOWN ? 0 : t->precision, a, b, t->reference,
				 t->ignored ? "yes" : "no", (long long)t->packet_count);
		span_text(t->jitter_s, a, sizeof a);
		text_sink_printf(out, "Jitter=%s }\n", a);
	}
	text_sink_printf(out, "Frequency=%lld\n", isfinite(t->frequency_ppm) ? llround(t->frequency_ppm * 65536.0) : 0LL);
	text_sink_printf(out, "       Server: %s (%s)\n", t->server_address[0] ? t->server_address : "n/a",
			 t->server_name[0] ? t->server_name : "n/a");
	span_text(t->poll_interval_s, a, sizeof a);
	text_sink_printf(out, "Poll interval: %s (min: 32s; max 34min 8s)\n", a);
	if (t->packet_count > 0) {
		span_text(fabs(t->offset_s), a, sizeof a);
		span_text(t->delay_s, b, sizeof b);
		/* printed as server minus node (timesyncd_parse.c) */
		text_sink_printf(out, "       Offset: %s%s\n        Delay: %s\n", t->offset_s > 0 ? "-" : "+", a, b);
	}
	text_sink_printf(out, " Packet count: %lld\n", (long long)(t->packet_count < 0 ? 0 : t->packet_count));
	return 0;
}

const collector timesyncd_collector = {
	.name = "timesyncd",
	.title = "systemd-timesyncd (timedatectl)",
	.shell_functions = timesyncd_functions,
	.command = "synctop_timesyncd",
	.cadence = COLLECT_EVERY_POLL,
	.daemon = DAEMON_TIMESYNCD,
	.json_key = "timesyncd",
	.json = timesyncd_json,
	.part_state = timesyncd_part_state,
	.prometheus = timesyncd_prometheus,
	.n_prometheus = sizeof timesyncd_prometheus / sizeof timesyncd_prometheus[0],
	.decode = timesyncd_decode,
	.rules = timesyncd_rules,
	.detail_title = "systemd-timesyncd",
	.detail = timesyncd_detail,
	.time_service = timesyncd_time_service,
	.demo_render = timesyncd_render,
};
