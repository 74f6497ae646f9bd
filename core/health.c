/* health.c - the per-node health rules (see health.h for the contract).
 *
 * Every rule reads the observation and history only (no clock, no globals),
 * compares against the thresholds struct (no literal limits), and adds its
 * findings through health_add_finding(), which keeps the list sorted by severity.
 * Messages carry the measured numbers in human units; hints name the command
 * to run or the setting to change. */
#include <config.h>

#include "health.h"
#include "finding_wait.h"
#include "daemon_steering.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "collector.h"
#include "health_ntp_tools.h"
#include "health_rule.h"
#include "sanitize.h"
#include "system_clock.h"
#include "units.h"

/* Protocol constants, not thresholds. */
#define NAME_LEN HEALTH_NAME_LEN

typedef enum {
	TRI_UNKNOWN = 0,
	TRI_NO,
	TRI_YES,
} tri;

/* What the node runs, what it should run, and which parts get judged. */
typedef struct {
	tri chronyd;
	tri ptp4l;
	bool chrony_expected;
	bool ptp_expected;
	bool chrony_judged; /* chrony answered and is not excluded by expect_chrony */
	bool ptp_judged;
} role;

/* ------------------------------------------------------------ findings */

void health_add_finding(finding_list *out, const finding *f)
{
	/* Insert after every finding at least as severe: sorted, and stable in
	 * rule order.  When full, the least severe (newest) finding falls off. */
	int pos = out->count;
	while (pos > 0 && out->items[pos - 1].sev < f->sev) {
		pos--;
	}
	if (pos >= MAX_FINDINGS) {
		return;
	}
	int keep = out->count < MAX_FINDINGS ? out->count : MAX_FINDINGS - 1;
	memmove(&out->items[pos + 1], &out->items[pos], (size_t)(keep - pos) * sizeof out->items[0]);
	out->items[pos] = *f;
	if (out->count < MAX_FINDINGS) {
		out->count++;
	}
}


/* --------------------------------------------------------- formatting */

/* Names in the observation came from the node: bounded and sanitised
 * (escape sequences, controls, invalid UTF-8 dropped), so a message can go to
 * a terminal or into JSON as it is. */
const char *health_clean(char *dst, size_t dst_len, const char *src, size_t src_len)
{
	sanitize_text(src, strnlen(src, src_len), dst, dst_len, SANITIZE_SINGLE_LINE);
	return dst;
}


int health_missed_polls(unsigned reach)
{
	int got = 0;
	for (unsigned r = reach & HEALTH_REACH_ALL_EIGHT; r; r >>= 1) {
		got += (int)(r & 1u);
	}
	return 8 - got;
}

severity health_grade(double value, double warn, double crit)
{
	if (value > crit) {
		return SEVERITY_CRIT;
	}
	if (value > warn) {
		return SEVERITY_WARN;
	}
	return SEVERITY_OK; /* also for NAN */
}

/* ---------------------------------------------------------------- role */

/* A daemon that answered its tool is running.  Otherwise the process list
 * decides; without one, silence proves nothing (chronyd keeps running with
 * its command socket disabled, pmc may use the wrong socket path). */
static tri daemon_running(const observation *o, unsigned bit, obs_state answered)
{
	if (answered == OBS_OK) {
		return TRI_YES;
	}
	if (o->daemons.state == OBS_OK) {
		return (o->daemons.running & bit) ? TRI_YES : TRI_NO;
	}
	return TRI_UNKNOWN;
}

static bool expected(expectation e, tri running)
{
	return e == EXPECT_YES || (e == EXPECT_AUTO && running == TRI_YES);
}

static void role_of(const observation *o, const thresholds *th, role *r)
{
	r->chronyd = daemon_running(o, DAEMON_CHRONYD, o->chrony.state);
	r->ptp4l = daemon_running(o, DAEMON_PTP4L, o->ptp.state);
	r->chrony_expected = expected(th->expect_chrony, r->chronyd);
	r->ptp_expected = expected(th->expect_ptp, r->ptp4l);
	r->chrony_judged = o->chrony.state == OBS_OK && th->expect_chrony != EXPECT_NO;
	r->ptp_judged = o->ptp.state == OBS_OK && th->expect_ptp != EXPECT_NO;
}

static bool chrony_synchronised(const chrony_obs *c)
{
	chrony_leap l = c->tracking.leap;
	return c->state == OBS_OK &&
	       (l == CHRONY_LEAP_NORMAL || l == CHRONY_LEAP_INSERT || l == CHRONY_LEAP_DELETE);
}

static bool ptp_working(const ptp_obs *p)
{
	if (p->state != OBS_OK) {
		return false;
	}
	for (int i = 0; i < ptp_port_count(p); i++) {
		ptp_port_state s = p->ports[i].state;
		if (s == PTP_PORT_SLAVE || s == PTP_PORT_MASTER || s == PTP_PORT_GRAND_MASTER) {
			return true;
		}
	}
	return false;
}

const char *health_port_iface(const ptp_port *port, const nic_obs *nic, char *buf, size_t len)
{
	if (port && port->interface[0]) {
		return health_clean(buf, len, port->interface, sizeof port->interface);
	}
	if (nic->interface[0]) {
		return health_clean(buf, len, nic->interface, sizeof nic->interface);
	}
	return health_clean(buf, len, "IFACE", sizeof "IFACE");
}

const char *health_port_label(const ptp_port *port, int index, char *buf, size_t len)
{
	char ifname[NAME_LEN];
	int number = port->port_number != INT_UNKNOWN ? port->port_number : index + 1;
	HEALTH_CLEAN(ifname, port->interface);
	if (ifname[0]) {
		snprintf(buf, len, "port %d (%s)", number, ifname);
	} else {
		snprintf(buf, len, "port %d", number);
	}
	return buf;
}

/* ---------------------------------------------------- time service */

static const char *chrony_summary(const chrony_obs *c, tri running, char *buf, size_t len)
{
	if (c->state == OBS_OK) {
		snprintf(buf, len, "chrony leap status %s", chrony_leap_name(c->tracking.leap));
	} else if (running == TRI_NO) {
		snprintf(buf, len, "chronyd not running");
	} else {
		snprintf(buf, len, "chrony %s", obs_state_name(c->state));
	}
	return buf;
}

static const char *ptp_summary(const ptp_obs *p, tri running, char *buf, size_t len)
{
	if (p->state == OBS_OK) {
		if (ptp_port_count(p) > 0) {
			char label[NAME_LEN + 24];
			snprintf(buf, len, "PTP %s %s, none SLAVE/MASTER",
				 health_port_label(&p->ports[0], 0, label, sizeof label),
				 ptp_port_state_name(p->ports[0].state));
		} else {
			snprintf(buf, len, "PTP without ports");
		}
	} else if (running == TRI_NO) {
		snprintf(buf, len, "ptp4l not running");
	} else {
		snprintf(buf, len, "PTP %s", obs_state_name(p->state));
	}
	return buf;
}

/* An expected daemon that runs but whose tool gave no data this poll. */
static bool unreadable(obs_state state, tri running, bool is_expected)
{
	return is_expected && running == TRI_YES && state != OBS_OK && state != OBS_NOT_COLLECTED;
}

/* Daemons that steer CLOCK_REALTIME on their own.  More than one at a time
 * fight: each undoes the other's corrections, and the offset each reports
 * says nothing about the clock.  Only those that may set it count, and
 * only the host's: a containerized one is time.daemon_in_container's
 * (daemon_steering.h), which names both sides. */
static int steering_names(const observation *o, const role *r, const char **names)
{
	int k = 0;
	unsigned running = o->daemons.state == OBS_OK ? o->daemons.running : 0;
	if (r->chronyd == TRI_YES && daemon_host_may_steer(o, DAEMON_CHRONYD)) {
		names[k++] = "chronyd";
	}
	if ((running & DAEMON_NTPD) && daemon_host_may_steer(o, DAEMON_NTPD)) {
		names[k++] = "ntpd";
	}
	if ((running & DAEMON_TIMESYNCD) && daemon_host_may_steer(o, DAEMON_TIMESYNCD)) {
		names[k++] = "systemd-timesyncd";
	}
	return k;
}

/* TRI_YES when chronyd lists a reference clock ('#') such as `refclock PHC`,
 * TRI_UNKNOWN when its sources were not (all) read. */
static tri chrony_has_refclock(const chrony_obs *c)
{
	if (c->state != OBS_OK) {
		return TRI_UNKNOWN;
	}
	int n = c->n_sources < CHRONY_MAX_SOURCES ? c->n_sources : CHRONY_MAX_SOURCES;
	for (int i = 0; i < n; i++) {
		if (c->sources[i].mode == CHRONY_MODE_REFCLOCK) {
			return TRI_YES;
		}
	}
	return c->n_sources_total > n ? TRI_UNKNOWN : TRI_NO;
}

/* A node following a PTP master (SLAVE or UNCALIBRATED port).  Only there
 * does phc2sys steer CLOCK_REALTIME in the usual setups: on a grandmaster it
 * copies the system clock into the PHC (`phc2sys -s CLOCK_REALTIME` or
 * `-a -rr`), next to an NTP daemon by design. */
static bool ptp_following(const ptp_obs *p)
{
	return ptp_following_port(p) != NULL;
}

/* Returns whether it raised a finding (which then replaces time.other_daemon
 * and time.no_service: the node has too many services, not none). */
static bool rule_conflicting_daemons(const observation *o, const role *r, finding_list *out)
{
	const char *names[3];
	int k = steering_names(o, r, names);
	finding f;

	if (k > 1) {
		finding_start(&f, SEVERITY_CRIT, "time.conflicting_daemons");
		if (k == 2) {
			finding_message(&f, "%s and %s both steer the system clock", names[0], names[1]);
		} else {
			finding_message(&f, "%s, %s and %s all steer the system clock", names[0],
					names[1], names[2]);
		}
		if (r->chronyd == TRI_YES) {
			/* names[0] is chronyd: stop the rest */
			finding_hint(&f, "Keep chronyd and stop the other%s: `systemctl disable --now "
				     "%s%s%s` (Debian calls ntpd's unit `ntp`); confirm with "
				     "`ps -e -o comm= | grep -E 'ntpd|timesyn'` and `chronyc tracking`.",
				     k > 2 ? "s" : "", names[1], k > 2 ? " " : "", k > 2 ? names[2] : "");
		} else {
			finding_hint(&f, "Keep one: `timedatectl set-ntp false` stops systemd-timesyncd "
				     "and leaves ntpd; confirm with `timedatectl status` and `ntpq -p`.");
		}
		health_add_finding(out, &f);
		return true;
	}
	bool phc2sys = o->daemons.state == OBS_OK && (o->daemons.running & DAEMON_PHC2SYS) &&
		       daemon_host_may_steer(o, DAEMON_PHC2SYS);
	if (!phc2sys || k != 1 || !ptp_following(&o->ptp)) {
		return false;
	}
	if (r->chronyd == TRI_YES && chrony_has_refclock(&o->chrony) != TRI_NO) {
		return false; /* a `refclock PHC` setup, or not known */
	}
	if (r->chronyd != TRI_YES && strcmp(names[0], "systemd-timesyncd") != 0) {
		return false; /* ntpd may read phc2sys through a refclock driver: cannot tell */
	}
	finding_start(&f, SEVERITY_CRIT, "time.conflicting_daemons");
	if (r->chronyd == TRI_YES) {
		finding_message(&f, "phc2sys and chronyd both steer the system clock (chronyd has "
				"no refclock source)");
		finding_hint(&f, "Either stop phc2sys and add `refclock PHC /dev/ptp0 poll 0 dpoll -2` "
			     "to chrony.conf (`chronyc sources -v` then shows `#* PHC0`), or stop chronyd "
			     "steering (`systemctl disable --now chronyd`).");
	} else {
		finding_message(&f, "phc2sys and systemd-timesyncd both steer the system clock");
		finding_hint(&f, "Let phc2sys alone steer it: `timedatectl set-ntp false`; confirm with "
			     "`timedatectl status` and `pmc -u -b 0 'GET TIME_STATUS_NP'`.");
	}
	health_add_finding(out, &f);
	return true;
}

/* DAEMON_* bits of the daemons a collector read this poll (collector.h
 * daemon): synctop judges those by their own rules. */
static unsigned inspected_daemons(const observation *o)
{
	unsigned bits = 0;
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *c = collector_registry[i];
		if (c->daemon && c->part_state && c->part_state(o) == OBS_OK) {
			bits |= c->daemon;
		}
	}
	return bits;
}

/* A daemon synctop reads (its collector's time_service view) follows a
 * reference. */
static bool service_synchronised(const observation *o)
{
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *c = collector_registry[i];
		time_service_view v;
		if (c->time_service && c->time_service(o, &v) && v.referenced) {
			return true;
		}
	}
	return false;
}

static void rule_time_service(const observation *o, const role *r, bool conflicting,
			      finding_list *out)
{
	if (conflicting || chrony_synchronised(&o->chrony) || service_synchronised(o) ||
	    ptp_working(&o->ptp)) {
		return;
	}
	/* ntpd or timesyncd answered but follows no reference: its own
	 * collector's finding says why, more precisely than "no service". */
	if (inspected_daemons(o) & (DAEMON_NTPD | DAEMON_TIMESYNCD)) {
		return;
	}
	/* All a Prometheus node may tell is the kernel's view: its rules judge it. */
	if (o->kernel.state == OBS_OK) {
		return;
	}
	/* A daemon known to run that we could not read is the collector rule's
	 * finding (crit if it does not answer, warn if the tool is missing or
	 * failed); calling it "no service" would claim more than we know. */
	if (unreadable(o->chrony.state, r->chronyd, r->chrony_expected) ||
	    unreadable(o->ptp.state, r->ptp4l, r->ptp_expected)) {
		return;
	}
	finding f;
	char chrony[96], ptp[96];
	chrony_summary(&o->chrony, r->chronyd, chrony, sizeof chrony);
	ptp_summary(&o->ptp, r->ptp4l, ptp, sizeof ptp);

	/* ntpd / timesyncd keep time too; where no collector read them,
	 * synctop cannot look inside.  One it read has its own findings. */
	unsigned others = o->daemons.state == OBS_OK ?
		o->daemons.running & (DAEMON_NTPD | DAEMON_TIMESYNCD) & ~inspected_daemons(o) : 0;
	/* an ntpd whose ntpq/ntpctl failed has its collection finding, which
	 * says why and how to fix it (health_ntp_tools.h) */
	if (health_ntp_tool_failed(o)) {
		others &= ~(unsigned)DAEMON_NTPD;
		if (!others) {
			return;
		}
	}
	if (others) {
		const char *name = (others & DAEMON_NTPD) ? "ntpd" : "systemd-timesyncd";
		finding_start(&f, SEVERITY_WARN, "time.other_daemon");
		finding_message(&f, "Time kept by %s, which synctop cannot inspect (%s; %s)",
				name, chrony, ptp);
		finding_hint(&f, "Check it by hand (`ntpq -p` or `timedatectl timesync-status`), "
			     "or switch to chrony (`apt install chrony`) so synctop can judge it.");
		health_add_finding(out, &f);
		return;
	}
	finding_start(&f, SEVERITY_CRIT, "time.no_service");
	finding_message(&f, "No working time service (%s; %s)", chrony, ptp);
	finding_hint(&f, "Start a time daemon: `systemctl enable --now chronyd` (Debian: chrony) for "
		     "NTP, or ptp4l + phc2sys for PTP; then check `chronyc tracking` or "
		     "`pmc -u -b 0 'GET PORT_DATA_SET'`.");
	health_add_finding(out, &f);
}

/* ----------------------------------------------------------- collector */

typedef struct {
	const char *daemon;      /* NULL for a tool that needs no daemon */
	const char *tool;
	const char *probe;       /* the command to try by hand */
	const char *role;        /* what the tool is needed for */
	const char *install;     /* hint when the tool is missing */
	const char *unreachable; /* hint when the daemon does not answer */
	const char *start;       /* hint when the daemon is not running */
	const char *denied;      /* hint when permission is denied; NULL: the daemon's socket */
} part_info;

static const part_info chrony_part = {
	"chronyd", "chronyc", "chronyc -c tracking", "chrony",
	"Install chronyc (`apt install chrony` or `dnf install chrony`) or put it on the "
	"login PATH of the polling user.",
	"`systemctl status chronyd` (Debian: chrony); if it runs, try `chronyc tracking` as root: a "
	"`bindcmdaddress` socket directory readable by others disables the command socket.",
	"`systemctl enable --now chronyd` (Debian: chrony), then `chronyc tracking`.",
	NULL,
};

static const part_info ptp_part = {
	"ptp4l", "pmc", "pmc -u -b 0 'GET PORT_DATA_SET'", "PTP",
	"Install linuxptp (`apt install linuxptp`); pmc lives in /usr/sbin, which synctop "
	"adds to PATH.",
	"`systemctl status ptp4l` (Debian: ptp4l@IFACE); pmc must reach ptp4l's "
	"`uds_address` (default /var/run/ptp4l) and get an answer within 100 ms.",
	"`systemctl enable --now ptp4l` (Debian: ptp4l@IFACE), then "
	"`pmc -u -b 0 'GET PORT_DATA_SET'`.",
	NULL,
};

static const part_info nic_part = {
	NULL, "ethtool", "ethtool -T IFACE", "NIC timestamping",
	"Install ethtool (`apt install ethtool`); synctop runs `ethtool -T IFACE`.",
	NULL,
	NULL,
	NULL,
};

/* phc_ctl opens /dev/ptpN read-write (linuxptp phc.c phc_open) */
static const part_info phc_part = {
	NULL, "phc_ctl", "phc_ctl -q IFACE get cmp", "the system clock against the PHC",
	"Install linuxptp (`apt install linuxptp`); phc_ctl lives in /usr/sbin, which synctop "
	"adds to PATH.",
	NULL,
	NULL,
	"phc_ctl opens the PHC (/dev/ptpN) read-write: run synctop with `--sudo` (config `sudo`) "
	"and a NOPASSWD sudoers rule for phc_ctl, poll as root, or give the polling user's group "
	"write access to /dev/ptp* (a udev rule).",
};

static void rule_collection(const part_info *part, obs_state state, const char *error,
			    size_t error_len, tri running, bool is_expected, finding_list *out)
{
	if (state == OBS_OK || !is_expected) {
		return;
	}
	finding f;
	char why[OBS_ERROR_LEN];
	health_clean(why, sizeof why, error, error_len);
	if (strcmp(why, obs_state_name(state)) == 0) {
		why[0] = '\0'; /* the state's name says it already */
	}

	if (part->daemon && running == TRI_NO) {
		finding_start(&f, SEVERITY_CRIT, "collector.daemon_unreachable");
		finding_message(&f, "%s is expected but not running", part->daemon);
		finding_hint(&f, "%s", part->start);
	} else if (part->daemon && state == OBS_DAEMON_UNREACHABLE) {
		finding_start(&f, SEVERITY_CRIT, "collector.daemon_unreachable");
		finding_message(&f, "%s %s %s%s%s", part->daemon,
				running == TRI_YES ? "is running but does not answer" : "does not answer",
				part->tool, why[0] ? ": " : "", why);
		finding_hint(&f, "%s", part->unreachable);
	} else if (state == OBS_NOT_COLLECTED) {
		return; /* not asked for in this poll: nothing to say */
	} else if (state == OBS_TOOL_MISSING) {
		finding_start(&f, SEVERITY_WARN, "collector.tool_missing");
		finding_message(&f, "%s not found on the node: %s cannot be checked",
				part->tool, part->role);
		finding_hint(&f, "%s", part->install);
	} else {
		finding_start(&f, SEVERITY_WARN, "collector.tool_failed");
		finding_message(&f, "%s failed (%s)%s%s", part->tool, obs_state_name(state),
				why[0] ? ": " : "", why);
		if (state == OBS_PERMISSION_DENIED && part->denied) {
			finding_hint(&f, "%s", part->denied);
		} else if (state == OBS_PERMISSION_DENIED) {
			finding_hint(&f, "Poll as root (or `--sudo`), or give the polling user access to the "
				     "daemon's socket (pmc also needs to create /var/run/pmc.PID).");
		} else if (state == OBS_NO_DEVICE) {
			finding_hint(&f, "Set the node's PTP interface in the synctop configuration; "
				     "`ip -br link` lists the interfaces.");
		} else {
			finding_hint(&f, "Run `%s` by hand on the node as the polling user and compare "
				     "with what synctop expects.", part->probe);
		}
	}
	health_add_finding(out, &f);
}

/* phc_ctl failing counts where a PHC is in use: the system clock is meant
 * to follow one, or ptp4l follows its master with hardware timestamps.  A
 * software-timestamping port has no PHC to read ("does not have a PHC"). */
static bool phc_in_use(const observation *o)
{
	const ptp_port *follow = ptp_following_port(&o->ptp);
	bool hardware = follow && follow->timestamping[0] &&
			strncmp(follow->timestamping, "SOFTWARE", sizeof follow->timestamping) != 0;
	return hardware || sysclk_follows_phc(o);
}

/* ----------------------------------------------------------------- NIC */

static bool is_software(const ptp_port *port)
{
	return strncmp(port->timestamping, "SOFTWARE", sizeof port->timestamping) == 0;
}

/* ethtool's capabilities of one interface: warn when it lacks hardware
 * transmit or receive timestamping. */
static void nic_lacks_hardware(const nic_obs *nic, finding_list *out)
{
	bool tx = nic->caps & NIC_CAP_HW_TX, rx = nic->caps & NIC_CAP_HW_RX;
	if (tx && rx) {
		return;
	}
	char iface[NAME_LEN];
	HEALTH_CLEAN(iface, nic->interface);
	if (!iface[0]) {
		health_clean(iface, sizeof iface, "IFACE", sizeof "IFACE");
	}
	const char *missing = !tx && !rx ? "hardware transmit and receive" :
			      !tx ? "hardware transmit" : "hardware receive";
	finding f;
	finding_start(&f, SEVERITY_WARN, "nic.no_hw_timestamping");
	finding_message(&f, "%s lacks %s timestamping: ptp4l runs on software timestamping only "
			"(tens of µs at best)", iface, missing);
	finding_hint(&f, "Not fixable on the node without a NIC that supports it (`ethtool -T %s` "
		     "must list hardware-transmit and hardware-receive); if software accuracy is "
		     "enough, set `time_stamping software` in ptp4l.conf knowingly.", iface);
	health_add_finding(out, &f);
}

/* One interface ptp4l uses, judged by its port (the first one on it; the
 * following one when it is there).  ptp4l's own PORT_PROPERTIES_NP is
 * evidence on its own: the port it follows its master on timestamps in
 * software, whatever ethtool said about this or another interface.  For
 * another port, ethtool's answer for that interface decides, and without
 * one PORT_PROPERTIES_NP does. */
static void nic_judge_port(const observation *o, const ptp_port *port, bool following,
			   finding_list *out)
{
	char iface[NAME_LEN];
	if (following && is_software(port)) {
		health_port_iface(port, &o->nic, iface, sizeof iface);
		finding f;
		finding_start(&f, SEVERITY_WARN, "nic.no_hw_timestamping");
		finding_message(&f, "ptp4l follows its master on %s with software timestamping "
				"(PORT_PROPERTIES_NP): tens of µs at best", iface);
		finding_hint(&f, "`ethtool -T %s`: with hardware-transmit and hardware-receive listed, "
			     "set `time_stamping hardware` in ptp4l.conf and run phc2sys; without them "
			     "this NIC cannot do better (accept it knowingly, or use one that can).",
			     iface);
		health_add_finding(out, &f);
		return;
	}
	/* a port whose interface ptp4l does not name: the interface checked */
	const nic_obs *checked = &o->nic;
	const nic_obs *nic = NULL;
	if (port->interface[0]) {
		nic = observation_nic_for(o, port->interface, sizeof port->interface);
	} else if (observation_nic_count(o) > 0) {
		nic = checked;
	}
	if (nic && nic->state == OBS_OK) {
		nic_lacks_hardware(nic, out);
		return;
	}
	if (!is_software(port)) {
		return;
	}
	health_port_iface(port, checked, iface, sizeof iface);
	finding f;
	finding_start(&f, SEVERITY_WARN, "nic.no_hw_timestamping");
	finding_message(&f, "%s lacks hardware timestamping: ptp4l runs on software timestamping only "
			"(tens of µs at best)", iface);
	finding_hint(&f, "Not fixable on the node without a NIC that supports it (`ethtool -T %s` "
		     "must list hardware-transmit and hardware-receive); if software accuracy is "
		     "enough, set `time_stamping software` in ptp4l.conf knowingly.", iface);
	health_add_finding(out, &f);
}

/* One ptp4l's ports, each interface once. */
static void nic_judge_ports(const observation *o, const ptp_obs *ptp, finding_list *out)
{
	const ptp_port *follow = ptp_following_port(ptp);
	if (ptp->state != OBS_OK) {
		return;
	}
	for (int i = 0; i < ptp_port_count(ptp); i++) {
		const ptp_port *port = &ptp->ports[i];
		bool judged = false;
		for (int k = 0; k < i && !judged; k++) {
			judged = strncmp(ptp->ports[k].interface, port->interface, sizeof port->interface) == 0;
		}
		if (judged) {
			continue;
		}
		/* the following port speaks for its interface */
		const ptp_port *speaker = port;
		if (follow && strncmp(follow->interface, port->interface, sizeof port->interface) == 0) {
			speaker = follow;
		}
		nic_judge_port(o, speaker, speaker == follow, out);
	}
}

/* Every interface ptp4l uses (PORT_PROPERTIES_NP: all ports, a boundary
 * clock has several), each once; when pmc reported no port, the interfaces
 * ethtool checked (--iface, the config's iface, the default route's). */
static void rule_nic(const observation *o, const role *r, const thresholds *th, finding_list *out)
{
	if (r->ptp4l != TRI_YES || th->expect_ptp == EXPECT_NO) {
		return;
	}
	const ptp_obs *ptp = &o->ptp;
	nic_judge_ports(o, ptp, out);
	/* several ptp4l (one per NIC): every other instance's ports too, each
	 * judged by its own instance's following port */
	for (int k = 0; k < o->n_ptp_instances && k < PTP_MAX_INSTANCES; k++) {
		if (k != o->ptp_primary) {
			nic_judge_ports(o, &o->ptp_instances[k].ptp, out);
		}
	}
	if (ptp->state == OBS_OK && ptp_port_count(ptp) > 0) {
		return; /* the ports above said it */
	}
	for (int i = 0; i < observation_nic_count(o); i++) {
		const nic_obs *nic = observation_nic_at(o, i);
		if (nic->state == OBS_OK) {
			nic_lacks_hardware(nic, out);
		}
	}
}

/* ------------------------------------------------ independent clock */

/* What the node's own daemon says about the same clock, for the hint. */
static void clock_claim_hint(const observation *o, finding *f)
{
	char claim[UNITS_BUF_LEN];
	const chrony_tracking *t = &o->chrony.tracking;
	if (chrony_synchronised(&o->chrony) && isfinite(t->system_time_offset_s)) {
		finding_hint(f, "chronyd claims %s (System time offset): it is synchronised to a wrong "
			     "source or does not steer this clock; `chronyc sources -v`, "
			     "`chronyc tracking`, then `chronyc makestep`.",
			     units_format_seconds(t->system_time_offset_s, claim, sizeof claim));
		return;
	}
	const ptp_port *slave = ptp_locked_port(&o->ptp);
	if (o->ptp.state == OBS_OK && slave && o->ptp.offset_from_master_ns != PTP_NS_UNKNOWN) {
		finding_hint(f, "ptp4l claims %s from its master, for the PHC: check that phc2sys "
			     "steers the system clock (`systemctl status phc2sys`, "
			     "`pmc -u -b 0 'GET TIME_STATUS_NP'`); `chronyc sources -v` if chronyd runs.",
			     units_format_ns(o->ptp.offset_from_master_ns, claim, sizeof claim));
		return;
	}
	finding_hint(f, "No daemon's own offset was read to compare: `chronyc sources -v`, "
		     "`chronyc tracking` or `timedatectl timesync-status`; check synctop's own clock "
		     "too (`chronyc tracking` here).");
}

static void rule_clock_offset(const observation *o, const thresholds *th, finding_list *out)
{
	const clock_check_obs *cc = &o->clock;
	if (cc->state != OBS_OK || !isfinite(cc->offset_s) || !isfinite(cc->uncertainty_s)) {
		return;
	}
	/* The true offset lies within +-uncertainty of the measured one: only
	 * what is certainly beyond the limit counts. */
	double excess = fabs(cc->offset_s) - cc->uncertainty_s;
	severity sev = health_grade(excess, th->clock_offset_warn_s, th->clock_offset_crit_s);
	if (sev == SEVERITY_OK) {
		return;
	}
	finding f;
	char value[UNITS_BUF_LEN], unc[UNITS_BUF_LEN], limit[UNITS_BUF_LEN];
	finding_start(&f, sev, "clock.offset");
	finding_message(&f, "Clock %s ± %s against synctop's clock (%s above %s beyond the "
			"uncertainty)", units_format_seconds(cc->offset_s, value, sizeof value),
			units_magnitude_seconds(cc->uncertainty_s, unc, sizeof unc), severity_name(sev),
			units_magnitude_seconds(sev == SEVERITY_CRIT ? th->clock_offset_crit_s :
				    th->clock_offset_warn_s, limit, sizeof limit));
	clock_claim_hint(o, &f);
	health_add_finding(out, &f);
}

/* ---------------------------------------------------------------- API */

void health_evaluate(const node *n, const thresholds *th, finding_list *out)
{
	out->count = 0;
	if (!n->has_observation || !n->reachable) {
		return; /* stale or absent data: the status is unknown, not judged */
	}
	const observation *o = &n->obs;
	role r;
	role_of(o, th, &r);

	bool conflicting = rule_conflicting_daemons(o, &r, out);
	rule_time_service(o, &r, conflicting, out);
	rule_collection(&chrony_part, o->chrony.state, o->chrony.error, sizeof o->chrony.error,
			r.chronyd, r.chrony_expected, out);
	rule_collection(&ptp_part, o->ptp.state, o->ptp.error, sizeof o->ptp.error,
			r.ptp4l, r.ptp_expected, out);
	health_ntp_tools(o, out);
	/* each interface checked; a missing ethtool is said once */
	for (int i = 0; i < observation_nic_count(o); i++) {
		const nic_obs *nic = observation_nic_at(o, i);
		bool said = false;
		for (int k = 0; k < i && !said; k++) {
			said = nic->state == OBS_TOOL_MISSING && observation_nic_at(o, k)->state == OBS_TOOL_MISSING;
		}
		if (!said) {
			rule_collection(&nic_part, nic->state, nic->error, sizeof nic->error,
					TRI_UNKNOWN, r.ptp_expected, out);
		}
	}
	rule_collection(&phc_part, o->phc.state, o->phc.error, sizeof o->phc.error,
			TRI_UNKNOWN, r.ptp_judged && phc_in_use(o), out);
	/* each collector's own rules, for a part that answered and is not
	 * excluded by the group's expectations (thresholds.h) */
	health_context ctx = {o, &n->history, th};
	for (size_t i = 0; i < collector_registry_count; i++) {
		const collector *c = collector_registry[i];
		if (c->rules && c->part_state && c->part_state(o) == OBS_OK &&
		    (!c->expectation || c->expectation(th) != EXPECT_NO)) {
			c->rules(&ctx, out);
		}
		if (c->rules_any_state && (!c->expectation || c->expectation(th) != EXPECT_NO)) {
			c->rules_any_state(&ctx, out);
		}
	}
	rule_nic(o, &r, th, out);
	sysclk_rule_unsteered(&ctx, out);
	rule_clock_offset(o, th, out);
}

node_status health_status(const node *n, const finding_list *findings)
{
	if (!n->has_observation || !n->reachable) {
		return NODE_STATUS_UNKNOWN;
	}
	severity worst = SEVERITY_OK;
	int count = findings ? findings->count : 0;
	for (int i = 0; i < count && i < MAX_FINDINGS; i++) {
		if (findings->items[i].sev > worst) {
			worst = findings->items[i].sev;
		}
	}
	switch (worst) {
	case SEVERITY_CRIT: return NODE_STATUS_CRIT;
	case SEVERITY_WARN: return NODE_STATUS_WARN;
	case SEVERITY_OK: break;
	}
	return NODE_STATUS_OK;
}

/* Appends items after the node's own findings, most severe first (stable),
 * as far as the list has room. */
static void append_cluster_findings(node *n, const finding *items, int count)
{
	finding_list *l = &n->findings;
	for (int sev = SEVERITY_CRIT; sev >= SEVERITY_OK; sev--) {
		for (int i = 0; i < count && l->count < MAX_FINDINGS; i++) {
			if ((int)items[i].sev == sev) {
				l->items[l->count++] = items[i];
			}
		}
	}
}

/* The time findings are judged at: the poll they come from (so `since`
 * and pending move with the node's answers, not with the screen's clock). */
static double judged_at(const node *n)
{
	return n->has_observation ? n->obs.taken_at : 0;
}

/* The findings held, not the whole list: a node's 7.5 KiB of unused slots
 * would be written at every poll (and mapped in, for a fleet of 10,000
 * nodes 2 pages each that no one reads). */
static void findings_copy(finding_list *dst, const finding_list *src)
{
	int count = src->count < 0 ? 0 : src->count > MAX_FINDINGS ? MAX_FINDINGS : src->count;
	memcpy(dst->items, src->items, (size_t)count * sizeof src->items[0]);
	dst->count = src->count;
}

void health_apply(node *n, const thresholds *th)
{
	/* The cluster pass runs less often than polls complete: keep what it
	 * last said about this node until it runs again. */
	finding cluster[MAX_FINDINGS];
	int n_cluster = 0;
	if (n->n_own_findings < 0 || n->n_own_findings > n->findings.count) {
		n->n_own_findings = n->findings.count;
	}
	for (int i = n->n_own_findings; i < n->findings.count && i < MAX_FINDINGS; i++) {
		cluster[n_cluster++] = n->findings.items[i];
	}
	finding_list fresh;
	health_evaluate(n, th, &fresh);
	/* `since` comes from the node's own findings of the last poll */
	finding_wait_settle(fresh.items, fresh.count, n->findings.items, n->n_own_findings, th, judged_at(n));
	findings_copy(&n->findings, &fresh);
	n->n_own_findings = n->findings.count;
	append_cluster_findings(n, cluster, n_cluster);
	n->status = health_status(n, &n->findings);
}

void health_set_cluster_findings(node *n, const finding *items, int count, const thresholds *th)
{
	if (n->n_own_findings < 0 || n->n_own_findings > n->findings.count) {
		n->n_own_findings = n->findings.count;
	}
	finding settled[MAX_FINDINGS];
	int n_settled = count < MAX_FINDINGS ? count : MAX_FINDINGS;
	for (int i = 0; i < n_settled; i++) {
		settled[i] = items[i];
	}
	const finding *prev = n->findings.items + n->n_own_findings;
	finding_wait_settle(settled, n_settled, prev, n->findings.count - n->n_own_findings, th, judged_at(n));
	n->findings.count = n->n_own_findings;
	append_cluster_findings(n, settled, n_settled);
	n->status = health_status(n, &n->findings);
}

node_status health_live_status(const node *n)
{
	if (n->status == NODE_STATUS_UNKNOWN) {
		return NODE_STATUS_UNKNOWN;
	}
	bool waiting = false;
	for (int i = 0; i < n->findings.count && i < MAX_FINDINGS; i++) {
		waiting |= n->findings.items[i].pending;
	}
	if (!waiting) {
		/* a value outside the enum counts as unknown, as everywhere */
		return n->status >= NODE_STATUS_OK && n->status <= NODE_STATUS_UNKNOWN ? n->status
										    : NODE_STATUS_UNKNOWN;
	}
	/* the worst finding that has lasted (no copy: this runs per node per
	 * frame while anything waits) */
	severity settled = SEVERITY_OK;
	for (int i = 0; i < n->findings.count && i < MAX_FINDINGS; i++) {
		const finding *f = &n->findings.items[i];
		if (!f->pending && f->sev > settled) {
			settled = f->sev;
		}
	}
	switch (settled) {
	case SEVERITY_CRIT: return NODE_STATUS_CRIT;
	case SEVERITY_WARN: return NODE_STATUS_WARN;
	case SEVERITY_OK: break;
	}
	return NODE_STATUS_PENDING;
}

void health_drop_pending(node *n)
{
	finding_list kept;
	int own = 0;
	kept.count = 0;
	for (int i = 0; i < n->findings.count && i < MAX_FINDINGS; i++) {
		if (!n->findings.items[i].pending) {
			own += i < n->n_own_findings;
			kept.items[kept.count++] = n->findings.items[i];
		}
	}
	findings_copy(&n->findings, &kept);
	n->n_own_findings = own;
	n->status = health_status(n, &n->findings);
}
