/* ntpctl.c - the openntpd collector: `ntpctl -s all` (status line, peers,
 * sensors), parsed by ntpctl_parse.c.
 *
 * openntpd's daemon is also a process called ntpd, and it has no ntpq
 * (mode 6) interface: ntpctl asks it over its control socket
 * (/var/run/ntpd.sock on OpenBSD, /var/lib/openntpd/run/ntpd.sock in
 * Debian's build).  The two collectors agree on who speaks for a node's
 * ntpd: where ntpq is missing and ntpctl is installed, or ntpq gets no
 * answer and ntpctl does, the ntpq collector's part is absent (ntpq.c) and
 * this one judges the daemon.  It runs every poll: ntpctl is a small C
 * program reading a Unix socket, and it costs nothing on a node without
 * ntpd (the process list the daemons section left in $synctop_ps, read in
 * the shell; registry.c runs this after it) or without ntpctl.
 *
 * openntpd's view is coarser than ntpd's: synced or not, a stratum, and per
 * peer a trust level instead of a reach register.  Its findings reuse
 * ntpd's codes where they mean the same (ntp.leap for "clock unsynced",
 * ntp.offset with chrony's limits, ntp.no_system_peer, ntp.reach for peers
 * that stopped answering), and its values fill the same `ntp` JSON object
 * (daemon "openntpd") and the same Prometheus series (label
 * daemon="openntpd"). */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collector.h"
#include "json_value.h"
#include "ntpctl_parse.h"
#include "units.h"

/* POSIX sh, no single quote (probe.h).  timeout(1) bounds ntpctl, which
 * blocks on a daemon that accepts the connection and never answers; a
 * timeout that does not take "SECONDS COMMAND" (old busybox) is not used. */
static const char ntpctl_functions[] =
	"synctop_ntpctl() {\n"
	"	case $synctop_ps in *ntpd*) ;; *) return 0 ;; esac\n"
	"	command -v ntpctl >/dev/null 2>&1 || return 0\n"
	"	if [ -z \"$synctop_to\" ]; then\n"
	"		if timeout 1 true >/dev/null 2>&1; then synctop_to=timeout; else synctop_to=none; fi\n"
	"	fi\n"
	"	if [ \"$synctop_to\" = timeout ]; then timeout 4 ntpctl -s all; else ntpctl -s all; fi\n"
	"}\n";

static void ntpctl_decode(const tool_output *out, observation *obs)
{
	ntpctl_parse(out, &obs->openntpd);
}

static obs_state ntpctl_part_state(const observation *obs)
{
	return obs->openntpd.state;
}

static const openntpd_obs *openntpd_of(const observation *obs)
{
	return obs->openntpd.state == OBS_OK ? &obs->openntpd : NULL;
}

/* The node's offset as openntpd last measured it: its selected peer's
 * (openntpd steers towards the median of its valid peers and marks the
 * one it follows '*'); NAN when unsynced or none is marked. */
static double system_offset(const openntpd_obs *o)
{
	const openntpd_peer *p = openntpd_selected_peer(o);
	return openntpd_synced(o) && p && p->valid ? p->offset_s : NAN;
}

static chrony_leap leap_of(const openntpd_obs *o)
{
	return o->synced == 1 ? CHRONY_LEAP_NORMAL : o->synced == 0 ? CHRONY_LEAP_UNSYNC : CHRONY_LEAP_UNKNOWN;
}

/* ---------------------------------------------------------------- rules */

static void rule_unsynced(const openntpd_obs *o, finding_list *out)
{
	if (o->synced != 0) {
		return;
	}
	finding f;
	char off[UNITS_BUF_LEN];
	finding_start(&f, SEVERITY_CRIT, "ntp.leap");
	if (isfinite(o->unsynced_offset_s)) {
		finding_message(&f, "openntpd: clock unsynced (%d/%d peers valid; %s still to correct)",
				o->peers_valid, o->peers_configured,
				units_format_seconds(o->unsynced_offset_s, off, sizeof off));
	} else {
		finding_message(&f, "openntpd: clock unsynced (%d/%d peers valid)", o->peers_valid,
				o->peers_configured);
	}
	finding_hint(&f, "`ntpctl -s all`: openntpd syncs once a peer is valid and an adjustment has "
			 "completed; it needs the right to set the clock (CAP_SYS_TIME: a container "
			 "without it never syncs) and servers that answer on UDP 123.");
	health_add_finding(out, &f);
}

static void rule_offset(const openntpd_obs *o, const thresholds *th, finding_list *out)
{
	double off = system_offset(o);
	if (!isfinite(off)) {
		return;
	}
	severity sev = health_grade(fabs(off), th->chrony_offset_warn_s, th->chrony_offset_crit_s);
	if (sev == SEVERITY_OK) {
		return;
	}
	finding f;
	char value[UNITS_BUF_LEN], limit[UNITS_BUF_LEN];
	finding_start(&f, sev, "ntp.offset");
	finding_message(&f, "openntpd offset %s (%s above %s)", units_format_seconds(off, value, sizeof value),
			severity_name(sev),
			units_magnitude_seconds(sev == SEVERITY_CRIT ? th->chrony_offset_crit_s : th->chrony_offset_warn_s,
						limit, sizeof limit));
	finding_hint(&f, "`ntpctl -s peers`; openntpd slews slowly (adjtime), so a large offset takes long "
			 "to go: start it with `-s` (set the time at start-up) or step the clock once, and "
			 "check the peers' offsets.");
	health_add_finding(out, &f);
}

static void rule_system_peer(const openntpd_obs *o, finding_list *out)
{
	if (openntpd_selected_peer(o) || o->sensor_selected || o->n_peers_total > openntpd_peer_count(o)) {
		return;
	}
	finding f;
	finding_start(&f, SEVERITY_CRIT, "ntp.no_system_peer");
	if (o->n_peers_total == 0 && o->n_sensors == 0) {
		finding_message(&f, "openntpd has no peers and no sensors");
		finding_hint(&f, "Add `servers NAME` or `server ADDRESS` lines to ntpd.conf "
				 "(Debian: /etc/openntpd/ntpd.conf) and restart openntpd.");
	} else {
		finding_message(&f, "No peer marked '*' among %d openntpd peer%s", o->n_peers_total,
				o->n_peers_total == 1 ? "" : "s");
		finding_hint(&f, "`ntpctl -s peers`: openntpd follows a peer once its trust level (tl) "
				 "reaches 6; \"peer not valid\" means it has not answered well enough yet.");
	}
	health_add_finding(out, &f);
}

/* openntpd keeps no reach register: a peer whose trust level fell below
 * OPENNTPD_TRUSTLEVEL_BADPEER has missed replies (client.c lowers it on
 * every timeout) or never answered. */
static void rule_reach(const openntpd_obs *o, finding_list *out)
{
	int total = openntpd_peer_count(o), invalid = 0;
	const openntpd_peer *first = NULL;
	for (int i = 0; i < total; i++) {
		if (!o->peers[i].valid) {
			first = first ? first : &o->peers[i];
			invalid++;
		}
	}
	if (total == 0 || invalid == 0) {
		return;
	}
	finding f;
	char name[HEALTH_NAME_LEN];
	if (invalid == total && o->n_peers_total <= total) {
		finding_start(&f, SEVERITY_CRIT, "ntp.reach");
		finding_message(&f, "No openntpd peer is valid (%d peer%s; trust level below %d)", total,
				total == 1 ? "" : "s", OPENNTPD_TRUSTLEVEL_BADPEER);
		finding_hint(&f, "Check UDP 123 to the servers (firewall, routing) and the server lines in "
				 "ntpd.conf; `ntpctl -s peers` shows each peer's trust level and next query.");
		health_add_finding(out, &f);
		return;
	}
	HEALTH_CLEAN(name, first->address);
	finding_start(&f, SEVERITY_WARN, "ntp.reach");
	if (invalid > 1) {
		finding_message(&f, "openntpd peer %s is not valid (trust level %d) and %d more", name,
				first->trust_level, invalid - 1);
	} else {
		finding_message(&f, "openntpd peer %s is not valid (trust level %d)", name, first->trust_level);
	}
	finding_hint(&f, "Its replies are missing or bad: `ntpctl -s peers`; check the network path "
			 "(`mtr %s`).", name);
	health_add_finding(out, &f);
}

static void ntpctl_rules(const health_context *ctx, finding_list *out)
{
	const openntpd_obs *o = &ctx->obs->openntpd;
	rule_unsynced(o, out);
	rule_offset(o, ctx->th, out);
	rule_system_peer(o, out);
	rule_reach(o, out);
}

/* ------------------------------------------------------------------ JSON */

static json_t *peers_json(const openntpd_obs *o, bool *ok)
{
	json_t *arr = json_array();
	for (int i = 0; i < openntpd_peer_count(o); i++) {
		const openntpd_peer *p = &o->peers[i];
		json_t *j = json_object();
		/* ntpd's peer keys first (ntpq.c), null where openntpd has no such value */
		json_value_put(j, "tally", json_string(p->selected ? "*" : " "), ok);
		json_value_put(j, "state", json_string(p->selected ? "system_peer" : p->valid ? "candidate" : "rejected"),
			       ok);
		json_value_put(j, "name", json_value_text(p->address, sizeof p->address), ok);
		json_value_put(j, "refid", json_null(), ok);
		json_value_put(j, "stratum", json_value_int(p->stratum), ok);
		json_value_put(j, "type", json_null(), ok);
		json_value_put(j, "last_rx_s", json_null(), ok);
		json_value_put(j, "poll_s", json_value_int(p->poll_s), ok);
		json_value_put(j, "reach", json_null(), ok);
		json_value_put(j, "delay_s", json_value_number(p->delay_s), ok);
		json_value_put(j, "offset_s", json_value_number(p->offset_s), ok);
		json_value_put(j, "jitter_s", json_value_number(p->jitter_s), ok);
		/* openntpd's own */
		json_value_put(j, "description", json_value_text(p->description, sizeof p->description), ok);
		json_value_put(j, "weight", json_integer(p->weight), ok);
		json_value_put(j, "trust_level", json_integer(p->trust_level), ok);
		json_value_put(j, "next_s", json_integer(p->next_s), ok);
		json_value_put(j, "valid", json_boolean(p->valid), ok);
		json_value_append(arr, j, ok);
	}
	return arr;
}

/* The `ntp` object, as ntpq.c writes it for ntpd (the same keys in the same
 * order, null where openntpd does not say), then openntpd's own keys. */
static json_t *ntpctl_json(const observation *obs, bool *ok)
{
	const openntpd_obs *got = &obs->openntpd;
	if (obs_state_absent(got->state)) {
		return json_null();
	}
	openntpd_obs blank;
	const openntpd_obs *o = got;
	if (got->state != OBS_OK) {
		openntpd_obs_init(&blank);
		o = &blank;
	}
	bool good = got->state == OBS_OK;
	chrony_leap leap = leap_of(o);
	const openntpd_peer *sel = openntpd_selected_peer(o);
	json_t *j = json_object();
	json_value_put(j, "error", json_value_part_error(got->state, got->error, sizeof got->error), ok);
	json_value_put(j, "daemon", json_string("openntpd"), ok);
	json_value_put(j, "version", json_null(), ok);
	json_value_put(j, "leap_status", leap == CHRONY_LEAP_UNKNOWN ? json_null() : json_string(chrony_leap_name(leap)),
		       ok);
	json_value_put(j, "leap", o->synced == INT_UNKNOWN ? json_null() : json_string(o->synced ? "00" : "11"), ok);
	json_value_put(j, "status_word", json_null(), ok);
	json_value_put(j, "stratum", json_value_int(o->stratum), ok);
	json_value_put(j, "reference_name",
		       sel && openntpd_synced(o) ? json_value_text(sel->address, sizeof sel->address) : json_null(), ok);
	json_value_put(j, "system_time_offset_s", json_value_number(system_offset(o)), ok);
	static const char *const none[] = {
		"frequency_offset_ppm", "sys_jitter_s", "clk_jitter_s", "clk_wander_ppm",
		"root_delay_s", "root_dispersion_s", "time_constant",
	};
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
		json_value_put(j, none[i], json_null(), ok);
	}
	json_value_put(j, "peers_total", good ? json_integer(o->n_peers_total) : json_null(), ok);
	json_value_put(j, "peers", good ? peers_json(o, ok) : json_null(), ok);
	/* ntpq's key (one schema for either ntpd): ntpctl runs every poll */
	json_value_put(j, "age_s", good ? json_real(0.0) : json_null(), ok);
	json_value_put(j, "synced", o->synced == INT_UNKNOWN ? json_null() : json_boolean(o->synced), ok);
	json_value_put(j, "unsynced_offset_s", json_value_number(o->unsynced_offset_s), ok);
	json_value_put(j, "peers_valid", good ? json_integer(o->peers_valid) : json_null(), ok);
	json_value_put(j, "peers_configured", good ? json_integer(o->peers_configured) : json_null(), ok);
	json_value_put(j, "sensors_valid", good ? json_integer(o->sensors_valid) : json_null(), ok);
	json_value_put(j, "sensors_configured", good ? json_integer(o->sensors_configured) : json_null(), ok);
	json_value_put(j, "constraint_offset_s",
		       o->constraint_known ? json_integer((json_int_t)o->constraint_offset_s) : json_null(), ok);
	json_value_put(j, "constraint_errors", o->constraint_known ? json_integer(o->constraint_errors) : json_null(),
		       ok);
	return j;
}

/* ------------------------------------------------------------ Prometheus */

/* ntpd's series (ntpq.c) under the same names, labelled daemon="openntpd":
 * report_prometheus.c writes same-named families of several collectors as
 * one. */
static void emit_value(prom_writer *w, double v)
{
	prom_label l[] = {{"node", prom_node(w)}, {"daemon", "openntpd"}};
	prom_sample(w, l, 2, v);
}

static void e_offset(prom_writer *w, const observation *obs)
{
	const openntpd_obs *o = openntpd_of(obs);
	if (o && isfinite(system_offset(o))) {
		emit_value(w, system_offset(o));
	}
}

static void e_stratum(prom_writer *w, const observation *obs)
{
	const openntpd_obs *o = openntpd_of(obs);
	if (o && openntpd_synced(o)) {
		emit_value(w, prom_int(o->stratum));
	}
}

static void e_leap(prom_writer *w, const observation *obs)
{
	const openntpd_obs *o = openntpd_of(obs);
	if (o && o->synced != INT_UNKNOWN) {
		emit_value(w, o->synced ? 0.0 : 3.0);
	}
}

static const prom_family ntpctl_prometheus[] = {
	{"synctop_chrony_offset_seconds", "gauge",
	 "chronyd System time offset: node clock minus its reference (positive = node ahead).", NULL, e_offset},
	{"synctop_chrony_stratum", "gauge", "chronyd Stratum.", NULL, e_stratum},
	{"synctop_chrony_leap_status", "gauge",
	 "chronyd Leap status: 0 normal, 1 insert second, 2 delete second, 3 not synchronised.", NULL, e_leap},
};

/* ------------------------------------------------------------ drill-down */

static const char *const offset_codes[] = {"ntp.offset", NULL};
static const char *const sync_codes[] = {"ntp.leap", "ntp.no_system_peer", NULL};
static const char *const reach_codes[] = {"ntp.reach", NULL};

static void ntpctl_detail(const observation *obs, const detail_sink *out)
{
	const openntpd_obs *o = &obs->openntpd;
	char value[200], a[UNITS_BUF_LEN], b[UNITS_BUF_LEN], c[UNITS_BUF_LEN];
	if (o->state != OBS_OK) {
		snprintf(value, sizeof value, "%s: %.*s", obs_state_name(o->state), (int)strnlen(o->error, sizeof o->error),
			 o->error);
		out->text(out->ctx, value, o->state == OBS_DAEMON_UNREACHABLE ? DETAIL_CRIT : DETAIL_WARN);
		return;
	}
	if (o->synced == 1) {
		snprintf(value, sizeof value, "synced, stratum %d", o->stratum == INT_UNKNOWN ? 0 : o->stratum);
	} else if (isfinite(o->unsynced_offset_s)) {
		snprintf(value, sizeof value, "unsynced, %s still to correct",
			 units_format_seconds(o->unsynced_offset_s, a, sizeof a));
	} else {
		snprintf(value, sizeof value, "%s", o->synced == 0 ? "unsynced" : "unknown");
	}
	out->kv(out->ctx, "Clock", value, out->finding_tone(out->ctx, sync_codes));
	units_format_seconds(system_offset(o), a, sizeof a);
	out->kv(out->ctx, "Offset", isfinite(system_offset(o)) ? a : "unknown",
		out->finding_tone(out->ctx, offset_codes));
	snprintf(value, sizeof value, "%d/%d valid", o->peers_valid, o->peers_configured);
	out->kv(out->ctx, "Peers", value, out->finding_tone(out->ctx, reach_codes));
	if (o->sensors_configured > 0) {
		snprintf(value, sizeof value, "%d/%d valid%s", o->sensors_valid, o->sensors_configured,
			 o->sensor_selected ? ", one selected" : "");
		out->kv(out->ctx, "Sensors", value, DETAIL_PLAIN);
	}
	if (o->constraint_known) {
		snprintf(value, sizeof value, "offset %llds (%d errors)", (long long)o->constraint_offset_s,
			 o->constraint_errors);
		out->kv(out->ctx, "HTTPS constraint", value, DETAIL_PLAIN);
	} else if (o->constraints_configured) {
		out->kv(out->ctx, "HTTPS constraint", "configured, none available", DETAIL_WARN);
	}
	for (int i = 0; i < openntpd_peer_count(o); i++) {
		const openntpd_peer *p = &o->peers[i];
		if (p->valid) {
			snprintf(value, sizeof value, "%c st %d  tl %d  offset %s  delay %s  jitter %s",
				 p->selected ? '*' : ' ', p->stratum == INT_UNKNOWN ? 0 : p->stratum, p->trust_level,
				 units_format_seconds(p->offset_s, a, sizeof a),
				 units_magnitude_seconds(p->delay_s, b, sizeof b),
				 units_magnitude_seconds(p->jitter_s, c, sizeof c));
		} else {
			snprintf(value, sizeof value, "  tl %d  not valid, next query in %d s", p->trust_level, p->next_s);
		}
		out->kv(out->ctx, p->address, value, p->selected ? DETAIL_GOOD : p->valid ? DETAIL_PLAIN : DETAIL_WARN);
	}
	out->text(out->ctx,
		  "openntpd (ntpctl) reports no frequency, root delay or reach register: the NTP columns "
		  "show what it has.",
		  DETAIL_DIM);
}

/* ------------------------------------------------------------- grid view */

/* openntpd's view of the system clock for the grid's SOURCE, ST, OFFSET
 * and LEAP columns (time_service.h). */
static bool ntpctl_time_service(const observation *obs, time_service_view *out)
{
	const openntpd_obs *o = openntpd_of(obs);
	if (!o) {
		return false;
	}
	const openntpd_peer *sel = openntpd_selected_peer(o);
	out->daemon = "openntpd";
	out->referenced = openntpd_synced(o) && (sel != NULL || o->sensor_selected);
	snprintf(out->source, sizeof out->source, "%s", out->referenced && sel ? sel->address : "");
	out->stratum = openntpd_synced(o) ? o->stratum : INT_UNKNOWN;
	out->offset_s = system_offset(o);
	out->frequency_ppm = NAN;
	out->skew_ppm = NAN;
	out->leap = leap_of(o);
	return true;
}

/* ----------------------------------------------------------- demo renderer */

/* As OpenBSD ntpd.c show_status_msg and show_peer_msg print `ntpctl -s all`
 * (ntpctl_parse.h), for the peers; sensors are not rendered. */
static int ntpctl_render(const observation *truth, const char *iface, text_sink *out, text_sink *err)
{
	const openntpd_obs *o = &truth->openntpd;
	(void)iface;
	switch (o->state) {
	case OBS_OK:
		break;
	case OBS_NOT_COLLECTED:
		return 0;
	case OBS_DAEMON_UNREACHABLE:
		text_sink_puts(err, "ntpctl: connect: /var/lib/openntpd/run/ntpd.sock: Connection refused\n");
		return 1;
	case OBS_PERMISSION_DENIED:
		text_sink_puts(err, "ntpctl: connect: /var/lib/openntpd/run/ntpd.sock: Permission denied\n");
		return 1;
	default:
		text_sink_printf(err, "%s\n", o->error);
		return 1;
	}
	if (o->peers_configured > 0) {
		text_sink_printf(out, "%d/%d peers valid, ", o->peers_valid, o->peers_configured);
	}
	if (o->constraint_known) {
		text_sink_printf(out, "constraint offset %llds", (long long)o->constraint_offset_s);
		if (o->constraint_errors) {
			text_sink_printf(out, " (%d errors)", o->constraint_errors);
		}
		text_sink_puts(out, ", ");
	} else if (o->constraints_configured) {
		text_sink_puts(out, "constraints configured but none available, ");
	}
	if (o->peers_configured == 0) {
		text_sink_puts(out, "no peers and no sensors configured\n");
	}
	if (o->synced == 1) {
		text_sink_printf(out, "clock synced, stratum %d\n", o->stratum == INT_UNKNOWN ? 0 : o->stratum);
	} else if (isfinite(o->unsynced_offset_s)) {
		text_sink_printf(out, "clock unsynced, clock offset is %.3fms\n", -o->unsynced_offset_s * 1e3);
	} else {
		text_sink_puts(out, "clock unsynced\n");
	}
	for (int i = 0; i < openntpd_peer_count(o); i++) {
		const openntpd_peer *p = &o->peers[i];
		char stratum[16];
		if (i == 0) {
			text_sink_puts(out, "\npeer\n   wt tl st  next  poll          offset       delay      jitter\n");
		}
		if (p->stratum == INT_UNKNOWN) {
			snprintf(stratum, sizeof stratum, " -");
		} else {
			snprintf(stratum, sizeof stratum, "%2d", p->stratum);
		}
		text_sink_printf(out, "%s%s%s\n %1s %2d %2d %2s %4ds %4ds", p->address, p->description[0] ? " " : "",
				 p->description, p->selected ? "*" : " ", p->weight, p->trust_level, stratum, p->next_s,
				 p->poll_s);
		if (p->valid) {
			text_sink_printf(out, "  %12.3fms %9.3fms  %8.3fms\n", -p->offset_s * 1e3, p->delay_s * 1e3,
					 p->jitter_s * 1e3);
		} else {
			text_sink_puts(out, "             ---- peer not valid ----\n");
		}
	}
	return 0;
}

const collector ntpctl_collector = {
	.name = "ntpctl",
	.title = "openntpd status and peers (ntpctl -s all)",
	.shell_functions = ntpctl_functions,
	.command = "synctop_ntpctl",
	.cadence = COLLECT_EVERY_POLL,
	.decode = ntpctl_decode,
	/* the `ntp` object ntpd's collector writes when its part is absent
	 * (collector.h: a shared key) */
	.json_key = "ntp",
	.json = ntpctl_json,
	.part_state = ntpctl_part_state,
	.prometheus = ntpctl_prometheus,
	.n_prometheus = sizeof ntpctl_prometheus / sizeof ntpctl_prometheus[0],
	.rules = ntpctl_rules,
	.detail_title = "openntpd",
	.detail = ntpctl_detail,
	.daemon = DAEMON_NTPD,
	.time_service = ntpctl_time_service,
	.demo_render = ntpctl_render,
};
