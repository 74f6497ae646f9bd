/* ethtool_parse.h - pure parser for `ethtool -T IFACE` output.
 *
 * Handles the ethtool 6.1 format ("PTP Hardware Clock: N|none") and the newer
 * one ("Hardware timestamp provider index: N"). */
#ifndef SYNCTOP_ETHTOOL_PARSE_H
#define SYNCTOP_ETHTOOL_PARSE_H

#include "observation.h"
#include "tool_output.h"

/* Always fills dst completely (nic_obs_init first). */
void ethtool_parse(const tool_output *out, nic_obs *dst);

#endif
