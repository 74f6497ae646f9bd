/* pmc_parse.h - pure parser for `pmc -u -b 0 'GET ...' ...` output.
 *
 * Responses are keyed by their "RESPONSE MANAGEMENT <ID>" header, not by
 * request order (pmc interleaves them with its "sending:" lines).  Port data
 * sets are kept per port identity, so boundary clocks keep their ports apart.
 * offsetFromMaster and master_offset are slave - master = node - reference.
 */
#ifndef SYNCTOP_PMC_PARSE_H
#define SYNCTOP_PMC_PARSE_H

#include "observation.h"
#include "tool_output.h"

/* Always fills dst completely (ptp_obs_init first).  pmc exits 0 even when no
 * ptp4l answers: "no RESPONSE MANAGEMENT block" is OBS_DAEMON_UNREACHABLE. */
void pmc_parse(const tool_output *out, ptp_obs *dst);

#endif
