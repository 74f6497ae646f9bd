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

/* The ethtool section for a list of interfaces (ethtool.c runs `ethtool -T`
 * once per interface and frames each answer in the section's stdout):
 *
 *   @@ethtool iface NAME
 *   <ethtool's stdout>\n        <- the shell adds this "\n"
 *   @@ethtool stderr
 *   <ethtool's stderr>\n        <- and this one
 *   @@ethtool rc N
 *
 * Markers count only at the start of a line.  Fills dst[0..max) with one
 * entry per interface, in order, each with interface = NAME (what was asked,
 * known even when ethtool failed; a failure's error starts with NAME), and
 * returns how many (at least 1 when max >= 1).  A block cut short has rc -1
 * and comes out truncated or empty.  Output without any marker is one
 * interface's answer, parsed as ethtool_parse does. */
int ethtool_parse_list(const tool_output *out, nic_obs *dst, int max);

#endif
