/* fuzz_obs.c - invariants of a parsed observation (see fuzz_obs.h).
 *
 * The limits are the parsers' documented sanity bounds (chrony_parse.c's
 * SECONDS_MAX and friends, pmc's data set field ranges): a value outside
 * them must have been refused, not stored. */
#include <config.h>

#include "fuzz_obs.h"

#include <math.h>
#include <string.h>

#include "fuzz.h"

#define SECONDS_MAX 1e10
#define PPM_MAX 1e9
#define UNIX_TIME_MAX 1e11
/* the text report's reference time is a date up to the year 9999 */
#define TEXT_TIME_MAX 253402300800.0
#define LAST_RX_MAX 4294967294.0

static bool state_valid(obs_state s)
{
	return (int)s >= OBS_NOT_COLLECTED && (int)s <= OBS_NOT_SUPPORTED &&
	       strcmp(obs_state_name(s), "?") != 0;
}

static bool in_range(double v, double lo, double hi)
{
	return isfinite(v) && v >= lo && v <= hi;
}

/* NAN (unknown) or a finite value within [lo, hi]. */
static bool nan_or(double v, double lo, double hi)
{
	return isnan(v) || in_range(v, lo, hi);
}

static bool int_or_unknown(int v, int lo, int hi)
{
	return v == INT_UNKNOWN || (v >= lo && v <= hi);
}

/* A chrony name: what FT_HOST / FT_NAME accept, i.e. printable, no ' ' and
 * (the CSV separator) no ','. */
static bool chrony_name_ok(const char *s, size_t cap, bool may_be_empty)
{
	if (!fuzz_printable(s, cap) || (!may_be_empty && s[0] == '\0')) {
		return false;
	}
	return strchr(s, ' ') == NULL && strchr(s, ',') == NULL;
}

static void check_tracking(const chrony_tracking *t, bool csv, bool all_known)
{
	const double time_max = csv ? UNIX_TIME_MAX : TEXT_TIME_MAX;
	const double v[] = {t->system_time_offset_s, t->last_offset_s, t->frequency_ppm,
			    t->residual_frequency_ppm};
	const double lo[] = {-SECONDS_MAX, -SECONDS_MAX, -PPM_MAX, -PPM_MAX};
	const double hi[] = {SECONDS_MAX, SECONDS_MAX, PPM_MAX, PPM_MAX};
	const double pos[] = {t->rms_offset_s, t->root_delay_s, t->root_dispersion_s,
			      t->update_interval_s};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		FUZZ_CHECK(all_known ? in_range(v[i], lo[i], hi[i]) : nan_or(v[i], lo[i], hi[i]));
	}
	for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++) {
		FUZZ_CHECK(all_known ? in_range(pos[i], 0, SECONDS_MAX) : nan_or(pos[i], 0, SECONDS_MAX));
	}
	FUZZ_CHECK(all_known ? in_range(t->skew_ppm, 0, PPM_MAX) : nan_or(t->skew_ppm, 0, PPM_MAX));
	FUZZ_CHECK(all_known ? in_range(t->ref_time, 0, time_max) : nan_or(t->ref_time, 0, time_max));
	FUZZ_CHECK(all_known ? (t->stratum >= 0 && t->stratum <= 255)
			     : int_or_unknown(t->stratum, 0, 255));
	FUZZ_CHECK((int)t->leap >= CHRONY_LEAP_UNKNOWN && (int)t->leap <= CHRONY_LEAP_UNSYNC);
	FUZZ_CHECK(!all_known || t->leap != CHRONY_LEAP_UNKNOWN);
	FUZZ_CHECK(!all_known || t->has_reference_id);
	FUZZ_CHECK(fuzz_printable(t->reference_name, sizeof t->reference_name));
	FUZZ_CHECK(t->has_reference_id || t->reference_name[0] == '\0');
}

void fuzz_check_chrony(const chrony_obs *c, bool csv)
{
	FUZZ_CHECK(state_valid(c->state));
	FUZZ_CHECK(fuzz_printable(c->error, sizeof c->error));
	if (c->state != OBS_OK) {
		/* chrony_parse.c: "a failed part carries no data" */
		chrony_obs fresh;
		chrony_obs_init(&fresh);
		fresh.state = c->state;
		memcpy(fresh.error, c->error, sizeof fresh.error);
		FUZZ_CHECK(memcmp(&fresh, c, sizeof fresh) == 0);
		FUZZ_CHECK(c->state == OBS_NOT_COLLECTED || c->error[0] != '\0');
		return;
	}
	FUZZ_CHECK(c->error[0] == '\0');
	FUZZ_CHECK(c->n_sources >= 0 && c->n_sources <= CHRONY_MAX_SOURCES);
	FUZZ_CHECK(c->n_sourcestats >= 0 && c->n_sourcestats <= CHRONY_MAX_SOURCES);
	FUZZ_CHECK(c->n_sources_total >= c->n_sources);
	FUZZ_CHECK(c->n_sources == (c->n_sources_total < CHRONY_MAX_SOURCES
					    ? c->n_sources_total : CHRONY_MAX_SOURCES));
	if (!csv) {
		FUZZ_CHECK(c->n_sources_total == 0 && c->n_sourcestats == 0);
	}
	/* CSV: one tracking record stores all 14 fields or none.  The chrony
	 * collector then applies the validity rule (observation.h): without a
	 * reference, the values measured against it are unknown. */
	const chrony_tracking *t = &c->tracking;
	bool record = csv && t->leap != CHRONY_LEAP_UNKNOWN;
	check_tracking(t, csv, record && t->has_reference_id);
	if (record && !t->has_reference_id) {
		FUZZ_CHECK(!chrony_tracking_has_reference(t));
		FUZZ_CHECK(isnan(t->system_time_offset_s) && isnan(t->root_delay_s) &&
			   isnan(t->root_dispersion_s) && isnan(t->residual_frequency_ppm) &&
			   isnan(t->skew_ppm) && t->stratum == INT_UNKNOWN && t->reference_name[0] == '\0');
		FUZZ_CHECK(!isnan(t->frequency_ppm) && !isnan(t->last_offset_s) && !isnan(t->rms_offset_s));
	} else if (csv && !record) {
		chrony_obs fresh;
		chrony_obs_init(&fresh);
		FUZZ_CHECK(memcmp(&fresh.tracking, t, sizeof fresh.tracking) == 0);
	}
	for (int i = 0; i < c->n_sources; i++) {
		const chrony_source *s = &c->sources[i];
		FUZZ_CHECK(s->mode >= CHRONY_MODE_SERVER && s->mode <= CHRONY_MODE_REFCLOCK);
		FUZZ_CHECK(s->state >= CHRONY_STATE_SELECTED && s->state <= CHRONY_STATE_UNUSABLE);
		FUZZ_CHECK(chrony_name_ok(s->name, sizeof s->name, false));
		FUZZ_CHECK(s->stratum >= 0 && s->stratum <= 255);
		FUZZ_CHECK(s->poll >= -32 && s->poll <= 32);
		FUZZ_CHECK(s->reach <= 0377);
		FUZZ_CHECK(s->last_rx_s >= -1 && (double)s->last_rx_s <= LAST_RX_MAX);
		FUZZ_CHECK(in_range(s->adjusted_offset_s, -SECONDS_MAX, SECONDS_MAX));
		FUZZ_CHECK(in_range(s->measured_offset_s, -SECONDS_MAX, SECONDS_MAX));
		FUZZ_CHECK(in_range(s->error_s, 0, SECONDS_MAX));
	}
	for (int i = 0; i < c->n_sourcestats; i++) {
		const chrony_sourcestat *s = &c->sourcestats[i];
		FUZZ_CHECK(chrony_name_ok(s->name, sizeof s->name, false));
		FUZZ_CHECK(s->samples >= 0 && s->samples <= 65535);
		FUZZ_CHECK(s->runs >= 0 && s->runs <= 65535);
		FUZZ_CHECK(s->span_s >= 0);
		FUZZ_CHECK(in_range(s->frequency_ppm, -PPM_MAX, PPM_MAX));
		FUZZ_CHECK(in_range(s->skew_ppm, 0, PPM_MAX));
		FUZZ_CHECK(in_range(s->offset_s, -SECONDS_MAX, SECONDS_MAX));
		FUZZ_CHECK(in_range(s->std_dev_s, 0, SECONDS_MAX));
	}
}

/* pmc_parse.c valid_identity(): [0-9a-fA-F.-]+, or "" when refused. */
static bool identity_ok(const char *s)
{
	if (!fuzz_terminated(s, PTP_ID_LEN)) {
		return false;
	}
	return strspn(s, "0123456789abcdefABCDEF.-") == strlen(s);
}

/* "<clock>-<port>": the clock part holds no '-', the port is 0..65535 and
 * is what port_number says. */
static bool port_identity_ok(const char *s, int port_number)
{
	if (!identity_ok(s) || s[0] == '\0') {
		return false;
	}
	const char *dash = strchr(s, '-');
	if (dash == NULL || dash == s || strchr(dash + 1, '-') != NULL || dash[1] == '\0') {
		return false;
	}
	long v = 0;
	for (const char *p = dash + 1; *p; p++) {
		if (*p < '0' || *p > '9' || v > 65535) {
			return false;
		}
		v = v * 10 + (*p - '0');
	}
	return v <= 65535 && v == port_number;
}

/* pmc's FK_WORD: printable, no blanks, or "". */
static bool word_ok(const char *s, size_t cap)
{
	return fuzz_printable(s, cap) && strchr(s, ' ') == NULL;
}

void fuzz_check_ptp(const ptp_obs *p)
{
	FUZZ_CHECK(state_valid(p->state));
	FUZZ_CHECK(fuzz_printable(p->error, sizeof p->error));
	if (p->state != OBS_OK) {
		/* pmc_parse.c: "On any state but OBS_OK every data field is left
		 * unknown" */
		ptp_obs fresh;
		ptp_obs_init(&fresh);
		fresh.state = p->state;
		memcpy(fresh.error, p->error, sizeof fresh.error);
		FUZZ_CHECK(memcmp(&fresh, p, sizeof fresh) == 0);
		FUZZ_CHECK(p->state == OBS_NOT_COLLECTED || p->error[0] != '\0');
		return;
	}
	FUZZ_CHECK(identity_ok(p->clock_identity));
	FUZZ_CHECK(identity_ok(p->gm_identity));
	FUZZ_CHECK(identity_ok(p->grandmaster_identity));
	FUZZ_CHECK(p->parent_port_identity[0] == '\0' ||
		   identity_ok(p->parent_port_identity));
	FUZZ_CHECK(int_or_unknown(p->domain_number, 0, 255));
	FUZZ_CHECK(int_or_unknown(p->slave_only, 0, 1));
	FUZZ_CHECK(int_or_unknown(p->number_ports, 0, 65535));
	FUZZ_CHECK(int_or_unknown(p->priority1, 0, 255));
	FUZZ_CHECK(int_or_unknown(p->priority2, 0, 255));
	FUZZ_CHECK(int_or_unknown(p->clock_class, 0, 255));
	FUZZ_CHECK(int_or_unknown(p->gm_present, 0, 1));
	FUZZ_CHECK(int_or_unknown(p->steps_removed, INT16_MIN, INT16_MAX));
	FUZZ_CHECK(int_or_unknown(p->gm_priority1, 0, 255));
	FUZZ_CHECK(int_or_unknown(p->gm_priority2, 0, 255));
	FUZZ_CHECK(int_or_unknown(p->gm_clock_class, 0, 255));
	FUZZ_CHECK(int_or_unknown(p->gm_clock_accuracy, 0, 255));
	FUZZ_CHECK(int_or_unknown(p->gm_offset_scaled_log_variance, 0, 65535));
	FUZZ_CHECK(int_or_unknown(p->current_utc_offset, INT16_MIN, INT16_MAX));
	FUZZ_CHECK(int_or_unknown(p->current_utc_offset_valid, 0, 1));
	FUZZ_CHECK(int_or_unknown(p->leap61, 0, 1));
	FUZZ_CHECK(int_or_unknown(p->leap59, 0, 1));
	FUZZ_CHECK(int_or_unknown(p->ptp_timescale, 0, 1));
	FUZZ_CHECK(int_or_unknown(p->time_traceable, 0, 1));
	FUZZ_CHECK(int_or_unknown(p->frequency_traceable, 0, 1));
	FUZZ_CHECK(int_or_unknown(p->time_source, 0, 255));
	FUZZ_CHECK(p->foreign_responses >= 0);
	/* the collector's realtime reads: positive, or unknown */
	FUZZ_CHECK(p->realtime_before_ns == PTP_NS_UNKNOWN || p->realtime_before_ns > 0);
	FUZZ_CHECK(p->realtime_after_ns == PTP_NS_UNKNOWN || p->realtime_after_ns > 0);
	FUZZ_CHECK(p->n_ports >= 0 && p->n_ports <= PTP_MAX_PORTS);
	for (int i = 0; i < p->n_ports; i++) {
		const ptp_port *port = &p->ports[i];
		FUZZ_CHECK(port_identity_ok(port->port_identity, port->port_number));
		for (int j = 0; j < i; j++) {
			/* ports merge by identity: never the same one twice */
			FUZZ_CHECK(strcmp(p->ports[j].port_identity, port->port_identity) != 0);
		}
		FUZZ_CHECK(port->state >= PTP_PORT_UNKNOWN && port->state <= PTP_PORT_GRAND_MASTER);
		FUZZ_CHECK(strcmp(ptp_port_state_name(port->state), "?") != 0);
		FUZZ_CHECK(int_or_unknown(port->log_sync_interval, INT8_MIN, INT8_MAX));
		const ptp_port_sync *sy = &port->sync;
		FUZZ_CHECK(int_or_unknown(sy->log_announce_interval, INT8_MIN, INT8_MAX));
		FUZZ_CHECK(int_or_unknown(sy->announce_receipt_timeout, 0, 255));
		const int64_t counts[] = {sy->rx_sync, sy->rx_follow_up, sy->rx_delay_resp, sy->rx_announce,
					  sy->tx_sync, sy->tx_delay_req, sy->tx_announce, sy->announce_timeouts,
					  sy->sync_timeouts};
		for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
			FUZZ_CHECK(counts[k] == PTP_COUNT_UNKNOWN || counts[k] >= 0);
		}
		/* only the poll comparison sets these (pmc_sync.h) */
		FUZZ_CHECK(isnan(sy->rx_sync_since) && sy->timeouts_new == PTP_COUNT_UNKNOWN);
		FUZZ_CHECK(int_or_unknown(port->delay_mechanism, 0, 255));
		FUZZ_CHECK(word_ok(port->interface, sizeof port->interface));
		FUZZ_CHECK(word_ok(port->timestamping, sizeof port->timestamping));
	}
}

/* ethtool mode lists: [A-Za-z0-9_-]{1,40} words joined by single spaces. */
static bool mode_list_ok(const char *s, size_t cap)
{
	if (!fuzz_terminated(s, cap)) {
		return false;
	}
	size_t word = 0;
	for (const char *p = s; *p; p++) {
		char c = *p;
		if (c == ' ') {
			if (word == 0) {
				return false;
			}
			word = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '-' || c == '_') {
			if (++word > 40) {
				return false;
			}
		} else {
			return false;
		}
	}
	return s[0] == '\0' || word > 0;
}

void fuzz_check_nic(const nic_obs *n)
{
	FUZZ_CHECK(state_valid(n->state));
	FUZZ_CHECK(fuzz_printable(n->error, sizeof n->error));
	FUZZ_CHECK(n->state == OBS_OK || n->state == OBS_NOT_COLLECTED || n->error[0] != '\0');
	FUZZ_CHECK(n->state != OBS_OK || n->error[0] == '\0');
	FUZZ_CHECK(fuzz_printable(n->interface, sizeof n->interface));
	FUZZ_CHECK((n->caps & ~(unsigned)0x3f) == 0);
	FUZZ_CHECK(n->phc_index >= NIC_PHC_UNKNOWN);
	FUZZ_CHECK(mode_list_ok(n->tx_modes, sizeof n->tx_modes));
	FUZZ_CHECK(mode_list_ok(n->rx_filters, sizeof n->rx_filters));
}

void fuzz_check_daemons(const daemons_obs *d)
{
	const unsigned all = DAEMON_CHRONYD | DAEMON_NTPD | DAEMON_TIMESYNCD | DAEMON_PTP4L |
			     DAEMON_PHC2SYS;
	FUZZ_CHECK(state_valid(d->state));
	FUZZ_CHECK(fuzz_printable(d->error, sizeof d->error));
	FUZZ_CHECK(d->state == OBS_OK || d->state == OBS_NOT_COLLECTED || d->error[0] != '\0');
	FUZZ_CHECK((d->running & ~all) == 0);
	FUZZ_CHECK(d->state == OBS_OK || d->running == 0);
	for (int i = 0; i < DAEMON_KINDS; i++) {
		const daemon_proc *p = &d->procs[i];
		bool runs = (d->running & (1u << i)) != 0;
		FUZZ_CHECK(p->count >= 0 && (p->count > 0) == runs);
		FUZZ_CHECK(p->pid >= 0 && p->pid <= 4194304 && (p->pid == 0 || runs));
		FUZZ_CHECK(p->pid > 0 ? p->age_s >= 0 && p->age_s <= (int64_t)1e11 : p->age_s == -1);
	}
	FUZZ_CHECK(d->n_phc2sys >= 0 && d->n_phc2sys <= DAEMONS_MAX_PHC2SYS);
	FUZZ_CHECK(d->n_phc2sys == 0 || (d->running & DAEMON_PHC2SYS));
	for (int i = 0; i < d->n_phc2sys && i < DAEMONS_MAX_PHC2SYS; i++) {
		FUZZ_CHECK(fuzz_printable(d->phc2sys_cmdline[i], sizeof d->phc2sys_cmdline[i]));
		FUZZ_CHECK(fuzz_printable(d->phc2sys[i].source, sizeof d->phc2sys[i].source));
		FUZZ_CHECK(fuzz_printable(d->phc2sys[i].sink, sizeof d->phc2sys[i].sink));
		FUZZ_CHECK(d->phc2sys[i].realtime >= 0);
	}
	/* places: one per listed daemon process with a PID, its kind running */
	FUZZ_CHECK(d->n_places >= 0 && d->n_places <= DAEMONS_MAX_PLACES);
	FUZZ_CHECK(d->n_places_total >= d->n_places);
	FUZZ_CHECK(d->n_places_total == d->n_places || d->n_places == DAEMONS_MAX_PLACES);
	for (int i = 0; i < d->n_places && i < DAEMONS_MAX_PLACES; i++) {
		const daemon_place *p = &d->places[i];
		FUZZ_CHECK(p->pid >= 1 && p->pid <= 4194304);
		FUZZ_CHECK((p->bit & all) != 0 && (p->bit & (p->bit - 1)) == 0 && (d->running & p->bit));
		FUZZ_CHECK(fuzz_printable(p->cgroup, sizeof p->cgroup));
		FUZZ_CHECK(p->cgroup_read || p->cgroup[0] == '\0');
		FUZZ_CHECK(!p->cgroup_read || p->cgroup[0] == '/');
		FUZZ_CHECK(p->container >= CONTAINER_NONE && p->container <= CONTAINER_LXC);
		FUZZ_CHECK(p->runtime >= CONTAINER_NONE && p->runtime <= CONTAINER_LXC);
		FUZZ_CHECK(p->runtime == CONTAINER_NONE || p->container != CONTAINER_NONE);
		FUZZ_CHECK(p->can_set >= CAN_SET_TIME_UNKNOWN && p->can_set <= CAN_SET_TIME_YES);
	}
}

void fuzz_check_phc(const phc_obs *p)
{
	FUZZ_CHECK(state_valid(p->state));
	FUZZ_CHECK(fuzz_printable(p->error, sizeof p->error));
	FUZZ_CHECK(fuzz_printable(p->interface, sizeof p->interface));
	FUZZ_CHECK(fuzz_printable(p->version, sizeof p->version));
	FUZZ_CHECK(p->state == OBS_OK || p->state == OBS_NOT_COLLECTED || p->error[0] != '\0');
	/* a value only with OBS_OK, and then always the offset */
	FUZZ_CHECK((p->state == OBS_OK) == (p->realtime_minus_phc_ns != PTP_NS_UNKNOWN));
	FUZZ_CHECK(p->state == OBS_OK || p->phc_time_ns == PTP_NS_UNKNOWN);
	FUZZ_CHECK(p->realtime_minus_phc_ns == PTP_NS_UNKNOWN ||
		   (p->realtime_minus_phc_ns >= -4000000000000000000LL &&
		    p->realtime_minus_phc_ns <= 4000000000000000000LL));
}

void fuzz_check_observation(const observation *obs)
{
	/* probe_decode_node_time: at most 12 integer digits, or unknown */
	FUZZ_CHECK(nan_or(obs->node_time, 0, 1e12));
	fuzz_check_chrony(&obs->chrony, true);
	fuzz_check_ptp(&obs->ptp);
	fuzz_check_nic(&obs->nic);
	FUZZ_CHECK(obs->n_nics >= 0 && obs->n_nics <= NIC_MAX);
	for (int i = 0; i < obs->n_nics; i++) {
		fuzz_check_nic(&obs->nics[i]);
	}
	fuzz_check_daemons(&obs->daemons);
	fuzz_check_phc(&obs->phc);
}
