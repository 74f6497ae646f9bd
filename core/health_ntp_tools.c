/* health_ntp_tools.c - why synctop could not read a running ntpd: ntpq
 * (ntpd: ntpsec or ntp 4.2.8) or ntpctl (openntpd) missing, refused, or not
 * answering.  The ntpq and ntpctl collectors agree on whose node it is
 * (collectors/ntpq.c): where ntpctl ran, the daemon is openntpd and ntpq's
 * part says nothing; otherwise ntpq's part speaks for ntpd. */
#include <config.h>

#include "health_ntp_tools.h"

#include <string.h>

#include "health_rule.h"

static bool ntpd_runs(const observation *o)
{
	return o->daemons.state == OBS_OK && (o->daemons.running & DAEMON_NTPD);
}

/* ntpctl ran (it runs only where ntpctl is installed and ntpd runs): the
 * daemon is openntpd's, judged by ntpctl's part. */
static bool is_openntpd(const observation *o)
{
	return o->openntpd.state != OBS_NOT_COLLECTED;
}

static bool failed(obs_state s)
{
	return s != OBS_OK && s != OBS_NOT_COLLECTED;
}

bool health_ntp_tool_failed(const observation *o)
{
	if (!ntpd_runs(o)) {
		return false;
	}
	return is_openntpd(o) ? failed(o->openntpd.state) : failed(o->ntp.state);
}

static void openntpd_finding(const observation *o, const char *why, finding *f)
{
	finding_start(f, SEVERITY_WARN, "collector.tool_failed");
	finding_message(f, "ntpctl failed (%s)%s%s: openntpd cannot be checked", obs_state_name(o->openntpd.state),
			why[0] ? ": " : "", why);
	switch (o->openntpd.state) {
	case OBS_PERMISSION_DENIED:
		/* the socket is 0660 root (tests/fixtures/ntpctl.source.md) */
		finding_hint(f, "ntpctl needs openntpd's control socket (/var/run/ntpd.sock, Debian "
			     "/var/lib/openntpd/run/ntpd.sock, mode 0660 root): run synctop with `--sudo` "
			     "and a NOPASSWD sudoers rule for ntpctl, or poll as root.");
		break;
	case OBS_DAEMON_UNREACHABLE:
		finding_hint(f, "openntpd does not answer on its control socket: `systemctl status openntpd`, "
			     "`ntpctl -s status` as root; restart it if it hangs (`-s` socket path in its "
			     "command line must match ntpctl's).");
		break;
	default:
		finding_hint(f, "Run `ntpctl -s all` by hand on the node as the polling user and compare "
			     "with what synctop expects (openntpd 6.x output).");
		break;
	}
}

static void ntpq_finding(const observation *o, const char *why, finding *f)
{
	if (o->ntp.state == OBS_TOOL_MISSING) {
		finding_start(f, SEVERITY_WARN, "collector.tool_missing");
		finding_message(f, "ntpq not found on the node: ntpd runs and cannot be checked");
		finding_hint(f, "Install ntpq with ntpd's package (Debian 12: `apt install ntpsec-ntpq`; "
			     "classic ntp 4.2.8: `ntp`; RHEL: `ntpsec`); for openntpd install its ntpctl.");
		return;
	}
	finding_start(f, SEVERITY_WARN, "collector.tool_failed");
	finding_message(f, "ntpq failed (%s)%s%s: ntpd cannot be checked", obs_state_name(o->ntp.state),
			why[0] ? ": " : "", why);
	switch (o->ntp.state) {
	case OBS_DAEMON_UNREACHABLE:
		/* ntpd drops mode 6 queries a `restrict ... noquery` line covers,
		 * so a refusal looks like a timeout (ntp.conf(5) restrict) */
		finding_hint(f, "ntpd does not answer ntpq on localhost: it is hung or stopped (`systemctl "
			     "status ntpsec`/`ntp`), or ntp.conf refuses queries from localhost (`restrict "
			     "... noquery` covering 127.0.0.1 and ::1: add `restrict 127.0.0.1` and "
			     "`restrict ::1`); `ntpq -p` by hand shows it.");
		break;
	case OBS_PERMISSION_DENIED:
		finding_hint(f, "ntpd refused the query: allow queries from localhost in ntp.conf "
			     "(`restrict 127.0.0.1`, `restrict ::1`) or poll as root.");
		break;
	default:
		finding_hint(f, "Run `ntpq -n -c rv -c peers` by hand on the node as the polling user and "
			     "compare with what synctop expects (ntpsec or ntp 4.2.8 output).");
		break;
	}
}

void health_ntp_tools(const observation *o, finding_list *out)
{
	if (!health_ntp_tool_failed(o)) {
		return;
	}
	char why[OBS_ERROR_LEN];
	finding f;
	if (is_openntpd(o)) {
		HEALTH_CLEAN(why, o->openntpd.error);
		openntpd_finding(o, why, &f);
	} else {
		HEALTH_CLEAN(why, o->ntp.error);
		ntpq_finding(o, why, &f);
	}
	health_add_finding(out, &f);
}
