/* ntpq_parse.h - the pure parser of `ntpq -n -c rv -c peers` (ntpsec and
 * classic ntp 4.2.8), for the collector in ntpq.c, its tests and its fuzz
 * target. */
#ifndef SYNCTOP_NTPQ_PARSE_H
#define SYNCTOP_NTPQ_PARSE_H

#include "observation.h"
#include "tool_output.h"

/* What the collector's shell function (ntpq.c) says on stderr, with its
 * exit status, when it does not run ntpq: no ntpd process on the node, or
 * an openntpd (also called ntpd) that answers `ntpctl -s status` and has no
 * ntpq interface. */
#define NTPQ_NO_NTPD_LINE "synctop: no ntpd process"
#define NTPQ_NO_NTPD_RC 3
#define NTPQ_OPENNTPD_LINE "synctop: ntpd is openntpd (ntpctl answers), which ntpq cannot query"
#define NTPQ_OPENNTPD_RC 4
/* ntpq ran out of its time (timeout(1)'s status 124): a hung ntpd, or
 * ntpsec's ntpq retrying one that is gone.  NTPQ_TIMEOUT_S stays below the
 * default poll deadline (10 s, --timeout) so the rest of the node's answer
 * arrives in time. */
#define NTPQ_TIMEOUT_S "4"
#define NTPQ_TIMEOUT_RC 124
#define NTPQ_TIMEOUT_RC_TEXT "124"
#define NTPQ_TIMEOUT_LINE "synctop: ntpq got no answer within " NTPQ_TIMEOUT_S " s"

/* Always fills dst completely (dst->ran is set).  No ntpd process: state
 * OBS_NOT_COLLECTED.  ntpq missing, or openntpd: OBS_TOOL_MISSING (absent,
 * not a failure).  ntpq unable to reach ntpd ("***Socket error", "timed
 * out"; ntpq exits 0 then), or stopped by timeout(1) (NTPQ_TIMEOUT_LINE):
 * OBS_DAEMON_UNREACHABLE.  A malformed line fails
 * the part whole (OBS_GARBAGE, or OBS_TRUNCATED for output cut short).
 *
 * Units and signs: ntpq prints milliseconds (offset, sys_jitter, clk_jitter,
 * rootdelay, rootdisp, and the peers' delay, offset, jitter) and ppm
 * (frequency, clk_wander), in ntpsec (ntp/util.py MS_VARS, PPM_VARS) and
 * classic ntp 4.2.8 alike.  Its offsets are "offset of server relative to
 * this host" (ntpsec docs/includes/peerfmt.adoc; ntpq.html of ntp 4.2.8):
 * server minus local, RFC 5905's theta.  synctop's offsets are node minus
 * reference, so the parser negates them. */
void ntpq_parse(const tool_output *out, ntp_obs *dst);

/* The leap indicator as ntpq prints it ("00", "01", "10", "11"). */
const char *ntp_leap_bits(int leap);

#endif
