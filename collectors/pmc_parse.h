/* pmc_parse.h - pure parser for `pmc -u -b 0 'GET ...' ...` output.
 *
 * Responses are keyed by their "RESPONSE MANAGEMENT <ID>" header, not by
 * request order (pmc interleaves them with its "sending:" lines).  Port data
 * sets are kept per port identity, so boundary clocks keep their ports apart.
 * offsetFromMaster and master_offset are slave - master = node - reference.
 *
 * Other clocks' answers reach pmc even with -b 0 and may come first.  The
 * node's clock is the one answering clock-wide data sets from port 0 over
 * the socket (evidence from linuxptp's source in pmc_parse.c); only its
 * blocks and its ports are read.  Each block from another clock adds one to
 * foreign_responses and is otherwise ignored (the raw output keeps it).
 * Answers from other clocks only, none from port 0: OBS_DAEMON_UNREACHABLE.
 *
 * The collector's command brackets pmc with two "synctop-realtime-ns
 * before|after <ns>" lines (the node's CLOCK_REALTIME); they are read into
 * realtime_before_ns / realtime_after_ns and never taken for pmc output.
 */
#ifndef SYNCTOP_PMC_PARSE_H
#define SYNCTOP_PMC_PARSE_H

#include "observation.h"
#include "tool_output.h"

/* Always fills dst completely (ptp_obs_init first).  pmc exits 0 even when no
 * ptp4l answers: "no RESPONSE MANAGEMENT block" is OBS_DAEMON_UNREACHABLE. */
void pmc_parse(const tool_output *out, ptp_obs *dst);

#endif
