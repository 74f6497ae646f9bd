/* container_parse.h - where a process runs and whether it may set the
 * clock, from what the daemons collector reads in /proc/PID: its cgroup
 * lines, the CapEff line of its status and its uid_map.  Pure: text in,
 * fields of a daemon_place (observation.h) out. */
#ifndef SYNCTOP_CONTAINER_PARSE_H
#define SYNCTOP_CONTAINER_PARSE_H

#include <stdbool.h>

#include "observation.h"
#include "text_span.h"

/* Lines of /proc/PID/cgroup ("ID:CONTROLLERS:PATH": cgroup v2 is the one
 * line "0::PATH"; v1 and hybrid hosts add one per hierarchy, with
 * "N:name=systemd:PATH"), one a line: sets dst's cgroup_read, cgroup,
 * container and runtime (the patterns: docs/checks.md).  A container
 * matched in any hierarchy wins; else the unified path, else name=systemd's,
 * else the first that is not "/". */
void container_classify(text_span cgroup_lines, daemon_place *dst);

/* The value of a CapEff line (16 hex digits, blanks around): true with
 * *has_sys_time (CAP_SYS_TIME, bit 25) when it is one. */
bool container_cap_sys_time(text_span capeff, bool *has_sys_time);

/* Lines of /proc/PID/uid_map: the initial user namespace maps every ID to
 * itself in one line, "0 0 4294967295" (columns padded by the kernel). */
bool container_uid_map_initial(text_span uid_map_lines);

/* A cgroup path short enough for a table cell: IDs (runs of hex digits
 * longer than 12) cut to 12, and the components between the first and the
 * last left out ("/kubepods.slice/.../cri-containerd-0123456789ab.scope"). */
void container_shorten(const char *path, char *buf, size_t len);

#endif
