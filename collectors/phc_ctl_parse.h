/* phc_ctl_parse.h - pure parser for what the phc_ctl collector's shell
 * function prints (collectors/phc_ctl.c): `phc_ctl -q IFACE get cmp` from
 * linuxptp, framed by a few `synctop: ...` lines of its own. */
#ifndef SYNCTOP_PHC_CTL_PARSE_H
#define SYNCTOP_PHC_CTL_PARSE_H

#include "observation.h"
#include "tool_output.h"

/* Always fills dst completely (phc_obs_init first).  OBS_OK needs the
 * offset line; the PHC time is kept when printed.  A function that chose
 * not to run phc_ctl ("synctop: phc_ctl not run: WHY") is
 * OBS_NOT_COLLECTED with WHY in error. */
void phc_ctl_parse(const tool_output *out, phc_obs *dst);

/* The major version of a linuxptp version string ("3.1.1", "4.2-00012-g...",
 * "v4.0"); -1 when there is none. */
int phc_ctl_version_major(const char *version);

#endif
