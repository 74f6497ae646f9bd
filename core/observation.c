/* observation.c - initialisers and names for the observation model. */
#include <config.h>

#include "observation.h"

#include <math.h>
#include <string.h>

const char *obs_state_name(obs_state state)
{
	switch (state) {
	case OBS_NOT_COLLECTED: return "not collected";
	case OBS_OK: return "ok";
	case OBS_TOOL_MISSING: return "tool missing";
	case OBS_DAEMON_UNREACHABLE: return "daemon unreachable";
	case OBS_PERMISSION_DENIED: return "permission denied";
	case OBS_NO_DEVICE: return "no such device";
	case OBS_EMPTY: return "empty output";
	case OBS_TRUNCATED: return "truncated output";
	case OBS_GARBAGE: return "unparseable output";
	case OBS_COMMAND_FAILED: return "command failed";
	case OBS_NOT_SUPPORTED: return "not supported";
	}
	return "?";
}

bool obs_state_absent(obs_state state)
{
	return state == OBS_NOT_COLLECTED || state == OBS_TOOL_MISSING;
}

const char *chrony_leap_name(chrony_leap leap)
{
	switch (leap) {
	case CHRONY_LEAP_NORMAL: return "Normal";
	case CHRONY_LEAP_INSERT: return "Insert second";
	case CHRONY_LEAP_DELETE: return "Delete second";
	case CHRONY_LEAP_UNSYNC: return "Not synchronised";
	case CHRONY_LEAP_UNKNOWN: break;
	}
	return "unknown";
}

const char *ptp_port_state_name(ptp_port_state state)
{
	switch (state) {
	case PTP_PORT_INITIALIZING: return "INITIALIZING";
	case PTP_PORT_FAULTY: return "FAULTY";
	case PTP_PORT_DISABLED: return "DISABLED";
	case PTP_PORT_LISTENING: return "LISTENING";
	case PTP_PORT_PRE_MASTER: return "PRE_MASTER";
	case PTP_PORT_MASTER: return "MASTER";
	case PTP_PORT_PASSIVE: return "PASSIVE";
	case PTP_PORT_UNCALIBRATED: return "UNCALIBRATED";
	case PTP_PORT_SLAVE: return "SLAVE";
	case PTP_PORT_GRAND_MASTER: return "GRAND_MASTER";
	case PTP_PORT_UNKNOWN: break;
	}
	return "unknown";
}

void chrony_obs_init(chrony_obs *chrony)
{
	memset(chrony, 0, sizeof *chrony);
	chrony_tracking *t = &chrony->tracking;
	t->stratum = INT_UNKNOWN;
	t->ref_time = NAN;
	t->system_time_offset_s = NAN;
	t->last_offset_s = NAN;
	t->rms_offset_s = NAN;
	t->frequency_ppm = NAN;
	t->residual_frequency_ppm = NAN;
	t->skew_ppm = NAN;
	t->root_delay_s = NAN;
	t->root_dispersion_s = NAN;
	t->update_interval_s = NAN;
}

bool chrony_tracking_has_reference(const chrony_tracking *t)
{
	return t->leap != CHRONY_LEAP_UNSYNC;
}

void chrony_tracking_settle(chrony_tracking *t)
{
	if (chrony_tracking_has_reference(t)) {
		return;
	}
	t->system_time_offset_s = NAN;
	t->stratum = INT_UNKNOWN;
	t->reference_id = 0;
	t->has_reference_id = false;
	t->reference_name[0] = '\0';
	t->root_delay_s = NAN;
	t->root_dispersion_s = NAN;
	t->residual_frequency_ppm = NAN;
	t->skew_ppm = NAN;
}

void ptp_obs_init(ptp_obs *ptp)
{
	memset(ptp, 0, sizeof *ptp);
	ptp->domain_number = INT_UNKNOWN;
	ptp->slave_only = INT_UNKNOWN;
	ptp->number_ports = INT_UNKNOWN;
	ptp->priority1 = ptp->priority2 = ptp->clock_class = INT_UNKNOWN;
	ptp->master_offset_ns = PTP_NS_UNKNOWN;
	ptp->gm_present = INT_UNKNOWN;
	ptp->steps_removed = INT_UNKNOWN;
	ptp->offset_from_master_ns = PTP_NS_UNKNOWN;
	ptp->mean_path_delay_ns = PTP_NS_UNKNOWN;
	ptp->gm_priority1 = ptp->gm_priority2 = ptp->gm_clock_class = INT_UNKNOWN;
	ptp->gm_clock_accuracy = ptp->gm_offset_scaled_log_variance = INT_UNKNOWN;
	ptp->current_utc_offset = INT_UNKNOWN;
	ptp->current_utc_offset_valid = INT_UNKNOWN;
	ptp->leap61 = ptp->leap59 = INT_UNKNOWN;
	ptp->ptp_timescale = INT_UNKNOWN;
	ptp->time_traceable = ptp->frequency_traceable = INT_UNKNOWN;
	ptp->time_source = INT_UNKNOWN;
	for (int i = 0; i < PTP_MAX_PORTS; i++) {
		ptp->ports[i].port_number = INT_UNKNOWN;
		ptp->ports[i].peer_mean_path_delay_ns = PTP_NS_UNKNOWN;
		ptp->ports[i].log_sync_interval = INT_UNKNOWN;
		ptp->ports[i].delay_mechanism = INT_UNKNOWN;
		ptp_port_sync_init(&ptp->ports[i].sync);
	}
	ptp->ingress_time_ns = PTP_NS_UNKNOWN;
	ptp->realtime_before_ns = ptp->realtime_after_ns = PTP_NS_UNKNOWN;
}

void ptp_port_sync_init(ptp_port_sync *s)
{
	s->log_announce_interval = INT_UNKNOWN;
	s->announce_receipt_timeout = INT_UNKNOWN;
	s->rx_sync = s->rx_follow_up = s->rx_delay_resp = s->rx_announce = PTP_COUNT_UNKNOWN;
	s->tx_sync = s->tx_delay_req = s->tx_announce = PTP_COUNT_UNKNOWN;
	s->announce_timeouts = s->sync_timeouts = PTP_COUNT_UNKNOWN;
	s->rx_sync_since = NAN;
	s->timeouts_new = PTP_COUNT_UNKNOWN;
}

void nic_obs_init(nic_obs *nic)
{
	memset(nic, 0, sizeof *nic);
	nic->phc_index = NIC_PHC_UNKNOWN;
}

int observation_nic_count(const observation *obs)
{
	if (obs->n_nics <= 0) {
		return obs->nic.state != OBS_NOT_COLLECTED ? 1 : 0;
	}
	return obs->n_nics < NIC_MAX ? obs->n_nics : NIC_MAX;
}

const nic_obs *observation_nic_at(const observation *obs, int i)
{
	return obs->n_nics <= 0 ? &obs->nic : &obs->nics[i];
}

const nic_obs *observation_nic_for(const observation *obs, const char *iface, size_t len)
{
	if (iface == NULL || iface[0] == '\0') {
		return NULL;
	}
	for (int i = 0; i < observation_nic_count(obs); i++) {
		const nic_obs *nic = observation_nic_at(obs, i);
		size_t n = len < sizeof nic->interface ? len : sizeof nic->interface;
		if (strncmp(nic->interface, iface, n) == 0) {
			return nic;
		}
	}
	return NULL;
}

void observation_settle_nic(observation *obs)
{
	if (obs->n_nics <= 0) {
		return;
	}
	const ptp_port *port = ptp_primary_port(&obs->ptp);
	const nic_obs *primary = port ? observation_nic_for(obs, port->interface, sizeof port->interface) : NULL;
	obs->nic = primary ? *primary : obs->nics[0];
}

int daemon_index(unsigned bit)
{
	int i = 0;
	while (bit > 1u && i < DAEMON_KINDS - 1) {
		bit >>= 1;
		i++;
	}
	return i;
}

const char *daemon_name(unsigned bit)
{
	switch (bit) {
	case DAEMON_CHRONYD: return "chronyd";
	case DAEMON_NTPD: return "ntpd";
	case DAEMON_TIMESYNCD: return "systemd-timesyncd";
	case DAEMON_PTP4L: return "ptp4l";
	case DAEMON_PHC2SYS: return "phc2sys";
	}
	return "?";
}

const char *container_kind_name(container_kind k)
{
	switch (k) {
	case CONTAINER_NONE: return "host";
	case CONTAINER_KUBEPODS: return "kubepods";
	case CONTAINER_DOCKER: return "docker";
	case CONTAINER_CONTAINERD: return "containerd";
	case CONTAINER_CRIO: return "cri-o";
	case CONTAINER_LIBPOD: return "libpod";
	case CONTAINER_LXC: return "lxc";
	}
	return "?";
}

const char *can_set_time_name(can_set_time c)
{
	switch (c) {
	case CAN_SET_TIME_YES: return "yes";
	case CAN_SET_TIME_NO: return "no";
	case CAN_SET_TIME_UNKNOWN: break;
	}
	return "unknown";
}

void daemons_obs_init(daemons_obs *d)
{
	memset(d, 0, sizeof *d);
	for (int i = 0; i < DAEMON_KINDS; i++) {
		d->procs[i].age_s = -1;
		d->procs[i].restarted_at = NAN;
	}
}

void clock_check_obs_init(clock_check_obs *cc)
{
	memset(cc, 0, sizeof *cc);
	cc->offset_s = NAN;
	cc->uncertainty_s = NAN;
	cc->measured_at = NAN;
}

void observation_init(observation *obs)
{
	obs->taken_at = NAN;
	obs->rtt_s = NAN;
	obs->node_time = NAN;
	chrony_obs_init(&obs->chrony);
	chrony_selection_init(&obs->selection);
	ptp_obs_init(&obs->ptp);
	obs->n_ptp_instances = 0;
	obs->ptp_primary = 0;
	for (int i = 0; i < PTP_MAX_INSTANCES; i++) {
		memset(&obs->ptp_instances[i], 0, sizeof obs->ptp_instances[i]);
		ptp_obs_init(&obs->ptp_instances[i].ptp);
	}
	nic_obs_init(&obs->nic);
	obs->n_nics = 0;
	for (int i = 0; i < NIC_MAX; i++) {
		nic_obs_init(&obs->nics[i]);
	}
	daemons_obs_init(&obs->daemons);
	timesyncd_obs_init(&obs->timesyncd);
	phc_obs_init(&obs->phc);
	clock_check_obs_init(&obs->clock);
	ntp_obs_init(&obs->ntp);
	kernel_clock_obs_init(&obs->kernel);
	openntpd_obs_init(&obs->openntpd);
	chrony_ntpdata_init(&obs->ntpdata);
}

void timesyncd_obs_init(timesyncd_obs *t)
{
	memset(t, 0, sizeof *t);
	t->ntp_enabled = INT_UNKNOWN;
	t->kernel_synchronised = INT_UNKNOWN;
	t->poll_interval_s = NAN;
	t->packet_count = -1;
	t->leap = INT_UNKNOWN;
	t->stratum = INT_UNKNOWN;
	t->precision = INT_UNKNOWN;
	t->root_delay_s = NAN;
	t->root_dispersion_s = NAN;
	t->offset_s = NAN;
	t->delay_s = NAN;
	t->jitter_s = NAN;
	t->frequency_ppm = NAN;
}

bool timesyncd_has_reference(const timesyncd_obs *t)
{
	return t->packet_count > 0 && t->leap != INT_UNKNOWN && t->leap != NTP_LEAP_UNSYNC;
}

void timesyncd_settle(timesyncd_obs *t)
{
	if (timesyncd_has_reference(t)) {
		return;
	}
	t->stratum = INT_UNKNOWN;
	t->reference[0] = '\0';
	t->root_delay_s = NAN;
	t->root_dispersion_s = NAN;
	t->offset_s = NAN;
	t->delay_s = NAN;
	t->jitter_s = NAN;
}

void phc_obs_init(phc_obs *phc)
{
	memset(phc, 0, sizeof *phc);
	phc->realtime_minus_phc_ns = PTP_NS_UNKNOWN;
	phc->phc_time_ns = PTP_NS_UNKNOWN;
	phc->reported_sys_minus_phc_ns = PTP_NS_UNKNOWN;
}

int ptp_port_count(const ptp_obs *p)
{
	if (p->n_ports < 0) {
		return 0;
	}
	return p->n_ports < PTP_MAX_PORTS ? p->n_ports : PTP_MAX_PORTS;
}

const ptp_port *ptp_following_port(const ptp_obs *p)
{
	if (p->state != OBS_OK) {
		return NULL;
	}
	const ptp_port *uncalibrated = NULL;
	for (int i = 0; i < ptp_port_count(p); i++) {
		if (p->ports[i].state == PTP_PORT_SLAVE) {
			return &p->ports[i];
		}
		if (p->ports[i].state == PTP_PORT_UNCALIBRATED && !uncalibrated) {
			uncalibrated = &p->ports[i];
		}
	}
	return uncalibrated;
}

const chrony_source *chrony_selected_source(const chrony_obs *c)
{
	int n = c->n_sources < CHRONY_MAX_SOURCES ? c->n_sources : CHRONY_MAX_SOURCES;
	for (int i = 0; i < n; i++) {
		if (c->sources[i].state == CHRONY_STATE_SELECTED) {
			return &c->sources[i];
		}
	}
	return NULL;
}

const ptp_port *ptp_primary_port(const ptp_obs *p)
{
	static const ptp_port_state preference[] = {
		PTP_PORT_FAULTY, PTP_PORT_LISTENING, PTP_PORT_MASTER, PTP_PORT_GRAND_MASTER,
		PTP_PORT_PRE_MASTER, PTP_PORT_PASSIVE,
	};
	const ptp_port *following = ptp_following_port(p);
	if (following || p->state != OBS_OK || ptp_port_count(p) == 0) {
		return following;
	}
	for (size_t k = 0; k < sizeof preference / sizeof preference[0]; k++) {
		for (int i = 0; i < ptp_port_count(p); i++) {
			if (p->ports[i].state == preference[k]) {
				return &p->ports[i];
			}
		}
	}
	return &p->ports[0];
}

const ptp_port *ptp_locked_port(const ptp_obs *p)
{
	const ptp_port *following = ptp_following_port(p);
	return following && following->state == PTP_PORT_SLAVE ? following : NULL;
}

bool chrony_tracking_is_local(const chrony_tracking *t)
{
	return t->has_reference_id && t->reference_id == CHRONY_REFID_LOCAL;
}

/* What chronyd uses for its selected source's packets (ntpdata). */
static const char *ntp_timestamping(const observation *obs)
{
	if (obs->chrony.state != OBS_OK) {
		return NULL;
	}
	const chrony_ntp_source *s = chrony_ntpdata_selected(&obs->chrony, &obs->ntpdata);
	if (!s) {
		return NULL;
	}
	bool hw_tx = s->tx_ts == CHRONY_TS_HARDWARE, hw_rx = s->rx_ts == CHRONY_TS_HARDWARE;
	if (hw_tx && hw_rx) {
		return "HW";
	}
	if (hw_rx) {
		return "HW rx";
	}
	if (hw_tx) {
		return "HW tx";
	}
	if (s->rx_ts == CHRONY_TS_KERNEL || s->rx_ts == CHRONY_TS_DAEMON) {
		return "SW";
	}
	return NULL;
}

const char *observation_timestamping(const observation *obs)
{
	const nic_obs *nic = &obs->nic;
	/* A chrony node: what chronyd does with its packets says more than
	 * what the NIC could do (hwtimestamp must be configured). */
	const char *ntp = ptp_primary_port(&obs->ptp) ? NULL : ntp_timestamping(obs);
	if (ntp) {
		return ntp;
	}
	if (nic->state == OBS_OK) {
		if ((nic->caps & NIC_CAP_HW_TX) && (nic->caps & NIC_CAP_HW_RX)) {
			return "HW";
		}
		if (nic->caps & (NIC_CAP_SW_TX | NIC_CAP_SW_RX)) {
			return "SW";
		}
		return "none";
	}
	/* ptp4l says what it uses even when ethtool was not asked. */
	const ptp_port *port = ptp_primary_port(&obs->ptp);
	if (port && strncmp(port->timestamping, "HARDWARE", sizeof port->timestamping) == 0) {
		return "HW";
	}
	if (port && strncmp(port->timestamping, "SOFTWARE", sizeof port->timestamping) == 0) {
		return "SW";
	}
	return NULL;
}

void chrony_ntpdata_init(chrony_ntpdata *nd)
{
	memset(nd, 0, sizeof *nd);
}

const char *chrony_ts_name(chrony_ts_source ts)
{
	switch (ts) {
	case CHRONY_TS_INVALID: return "Invalid";
	case CHRONY_TS_DAEMON: return "Daemon";
	case CHRONY_TS_KERNEL: return "Kernel";
	case CHRONY_TS_HARDWARE: return "Hardware";
	case CHRONY_TS_UNKNOWN: break;
	}
	return "?";
}

const chrony_ntp_source *chrony_ntpdata_selected(const chrony_obs *c, const chrony_ntpdata *nd)
{
	const chrony_source *sel = chrony_selected_source(c);
	if (!sel || nd->state != OBS_OK) {
		return NULL;
	}
	for (int i = 0; i < nd->n_sources && i < CHRONY_MAX_SOURCES; i++) {
		if (strncmp(nd->sources[i].remote, sel->name, sizeof sel->name) == 0) {
			return &nd->sources[i];
		}
	}
	return NULL;
}

void chrony_selection_init(chrony_selection *sel)
{
	memset(sel, 0, sizeof *sel);
}

/* chronyc(1) "selectdata" and chrony's sources.c (SRC_SelectSource). */
const char *chrony_select_state_reason(char state)
{
	switch (state) {
	case '*': return "selected: the best source, the clock follows it";
	case '+': return "combined with the selected source";
	case 'x': return "a falseticker: its offset interval disagrees with the majority";
	case 's': return "not synchronised itself (it says so, or its stratum is 16)";
	case 'N': return "configured noselect, or noselect in effect";
	case 'M': return "too few samples yet (missing samples)";
	case 'd': return "its root distance is over maxdistance";
	case 'D': return "its distance is too large to combine (combinelimit)";
	case '~': return "too jittery (jitter above maxjitter)";
	case 'w': return "waiting for other sources to be selectable";
	case 'W': return "waiting for the required sources";
	case 'S': return "stale: no new sample for too long";
	case 'O': return "an orphan: same stratum and no better reference";
	case 'T': return "not trusted while trusted sources exist";
	case 'P': return "not preferred while a preferred source is selectable";
	case 'U': return "waiting for an update of its sample";
	}
	return NULL;
}

void ntp_obs_init(ntp_obs *ntp)
{
	memset(ntp, 0, sizeof *ntp);
	ntp->status = INT_UNKNOWN;
	ntp->leap = INT_UNKNOWN;
	ntp->stratum = INT_UNKNOWN;
	ntp->offset_s = NAN;
	ntp->sys_jitter_s = NAN;
	ntp->clk_jitter_s = NAN;
	ntp->clk_wander_ppm = NAN;
	ntp->answered_at = NAN;
	ntp->frequency_ppm = NAN;
	ntp->root_delay_s = NAN;
	ntp->root_dispersion_s = NAN;
	ntp->tc = INT_UNKNOWN;
}

bool ntp_has_reference(const ntp_obs *n)
{
	return n->leap != NTP_LEAP_UNSYNC;
}

void ntp_obs_settle(ntp_obs *n)
{
	if (ntp_has_reference(n)) {
		return;
	}
	n->offset_s = NAN;
	n->stratum = INT_UNKNOWN;
	n->refid[0] = '\0';
	n->sys_jitter_s = NAN;
	n->root_delay_s = NAN;
	n->root_dispersion_s = NAN;
}

int ntp_peer_count(const ntp_obs *n)
{
	if (n->n_peers < 0) {
		return 0;
	}
	return n->n_peers < NTP_MAX_PEERS ? n->n_peers : NTP_MAX_PEERS;
}

const ntp_peer *ntp_system_peer(const ntp_obs *n)
{
	for (int i = 0; i < ntp_peer_count(n); i++) {
		if (n->peers[i].tally == '*' || n->peers[i].tally == 'o') {
			return &n->peers[i];
		}
	}
	return NULL;
}

/* The classes both tables name (observation.h), in words.  G.8275.1's
 * T-GM / T-BC are the telecom grandmaster and boundary clock. */
static const struct {
	int cls;
	ptp_class_kind kind;
	const char *meaning;
} clock_classes[] = {
	{6, PTP_CLASS_LOCKED, "locked to a primary reference (PRTC, e.g. GNSS)"},
	{7, PTP_CLASS_HOLDOVER, "holdover within specification: lost its primary reference"},
	{13, PTP_CLASS_LOCKED, "locked to an application-specific time source (ARB timescale)"},
	{14, PTP_CLASS_HOLDOVER, "holdover within specification: lost its application-specific source"},
	{52, PTP_CLASS_DEGRADED, "degraded: holdover out of specification (was class 7)"},
	{58, PTP_CLASS_DEGRADED, "degraded: holdover out of specification (was class 14)"},
	{135, PTP_CLASS_HOLDOVER, "boundary clock in holdover within specification (G.8275)"},
	{140, PTP_CLASS_DEGRADED,
	 "degraded: holdover out of specification, frequency from a category 1 source (G.8275)"},
	{150, PTP_CLASS_DEGRADED,
	 "degraded: holdover out of specification, frequency from a category 2 source (G.8275)"},
	{160, PTP_CLASS_DEGRADED,
	 "degraded: holdover out of specification, frequency from a category 3 source (G.8275)"},
	{165, PTP_CLASS_DEGRADED, "degraded: boundary clock in holdover out of specification (G.8275)"},
	{187, PTP_CLASS_DEGRADED, "degraded: holdover out of specification (was class 7, may be a slave)"},
	{193, PTP_CLASS_DEGRADED, "degraded: holdover out of specification (was class 14, may be a slave)"},
	{248, PTP_CLASS_FREE_RUNNING, "free-running default: no reference at all"},
	{255, PTP_CLASS_SLAVE_ONLY, "slave-only: a clock that never serves time"},
};

ptp_class_kind ptp_clock_class_kind(int cls)
{
	if (cls < 0 || cls > 255) {
		return PTP_CLASS_UNKNOWN;
	}
	for (size_t i = 0; i < sizeof clock_classes / sizeof clock_classes[0]; i++) {
		if (clock_classes[i].cls == cls) {
			return clock_classes[i].kind;
		}
	}
	if ((cls >= 68 && cls <= 122) || (cls >= 133 && cls <= 170) || (cls >= 216 && cls <= 232)) {
		return PTP_CLASS_PROFILE;
	}
	return PTP_CLASS_RESERVED;
}

const char *ptp_clock_class_meaning(int cls)
{
	for (size_t i = 0; i < sizeof clock_classes / sizeof clock_classes[0]; i++) {
		if (clock_classes[i].cls == cls) {
			return clock_classes[i].meaning;
		}
	}
	switch (ptp_clock_class_kind(cls)) {
	case PTP_CLASS_PROFILE:
		return "defined by an alternate PTP profile";
	case PTP_CLASS_RESERVED:
		return "reserved: IEEE 1588 defines no meaning";
	default:
		return "unknown";
	}
}

const char *ptp_clock_accuracy_name(int acc)
{
	static const char *const names[] = {
		"within 25 ns", "within 100 ns", "within 250 ns", "within 1 µs", "within 2.5 µs",
		"within 10 µs", "within 25 µs", "within 100 µs", "within 250 µs", "within 1 ms",
		"within 2.5 ms", "within 10 ms", "within 25 ms", "within 100 ms", "within 250 ms",
		"within 1 s", "within 10 s", "worse than 10 s",
	}; /* 0x20 .. 0x31 */
	if (acc >= 0x20 && acc < 0x20 + (int)(sizeof names / sizeof names[0])) {
		return names[acc - 0x20];
	}
	if (acc == 0xFE) {
		return "unknown";
	}
	return NULL;
}

const char *ptp_time_source_name(int src)
{
	switch (src) {
	case 0x10: return "ATOMIC_CLOCK";
	case 0x20: return "GPS";
	case 0x30: return "TERRESTRIAL_RADIO";
	case 0x40: return "PTP";
	case 0x50: return "NTP";
	case 0x60: return "HAND_SET";
	case 0x90: return "OTHER";
	case 0xA0: return "INTERNAL_OSCILLATOR";
	}
	return NULL;
}

void kernel_clock_obs_init(kernel_clock_obs *k)
{
	memset(k, 0, sizeof *k);
	k->synchronised = INT_UNKNOWN;
	k->status = INT_UNKNOWN;
	k->offset_s = NAN;
	k->max_error_s = NAN;
	k->est_error_s = NAN;
	k->freq_adjust_ppm = NAN;
	k->time_constant = INT_UNKNOWN;
	k->tick_s = NAN;
	k->tai_offset_s = INT_UNKNOWN;
}

bool kernel_clock_synchronised(const kernel_clock_obs *k)
{
	if (k->synchronised == 0) {
		return false;
	}
	if (k->status != INT_UNKNOWN && (k->status & KERNEL_STA_UNSYNC)) {
		return false;
	}
	return k->synchronised == 1 || k->status != INT_UNKNOWN;
}

void kernel_clock_settle(kernel_clock_obs *k)
{
	bool synced = kernel_clock_synchronised(k);
	if (!synced) {
		k->max_error_s = NAN;
		k->est_error_s = NAN;
	}
	if (!synced || k->status == INT_UNKNOWN || !(k->status & KERNEL_STA_PLL)) {
		k->offset_s = NAN;
	}
}

void openntpd_obs_init(openntpd_obs *o)
{
	memset(o, 0, sizeof *o);
	o->synced = INT_UNKNOWN;
	o->stratum = INT_UNKNOWN;
	o->unsynced_offset_s = NAN;
	for (int i = 0; i < OPENNTPD_MAX_PEERS; i++) {
		o->peers[i].stratum = INT_UNKNOWN;
		o->peers[i].offset_s = NAN;
		o->peers[i].delay_s = NAN;
		o->peers[i].jitter_s = NAN;
	}
}

bool openntpd_synced(const openntpd_obs *o)
{
	return o->state == OBS_OK && o->synced == 1;
}

int openntpd_peer_count(const openntpd_obs *o)
{
	return o->n_peers < 0 ? 0 : o->n_peers > OPENNTPD_MAX_PEERS ? OPENNTPD_MAX_PEERS : o->n_peers;
}

const openntpd_peer *openntpd_selected_peer(const openntpd_obs *o)
{
	for (int i = 0; i < openntpd_peer_count(o); i++) {
		if (o->peers[i].selected) {
			return &o->peers[i];
		}
	}
	return NULL;
}
