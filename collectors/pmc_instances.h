/* pmc_instances.h - several ptp4l on one node: the pmc section framed per
 * instance, and which of them speaks for the node.
 *
 * One ptp4l per NIC, each with its own uds_address, is how OpenShift's
 * linuxptp-daemon and timemaster run them.  The pmc collector's shell
 * (collectors/pmc.c) reads each ptp4l's command line (ps -C ptp4l -o args)
 * and asks every socket in turn.  Only where it had to, it frames the
 * answers, each instance as
 *     synctop-ptp4l instance
 *     synctop-ptp4l config <ptp4l's -f file>            (when it has one)
 *     synctop-ptp4l socket <uds_address>                (when not pmc's default)
 *     synctop-ptp4l config-error <why>                  (and nothing else follows)
 *     <what `pmc -u -b 0 -s SOCKET ...` printed, realtime lines included>
 *     synctop-ptp4l stderr
 *     <pmc's stderr, byte for byte>
 *     synctop-ptp4l rc <exit status>
 * (the stderr replay leaves its last line unterminated and the rc line
 * starts with the newline that follows it, as ethtool's frames do).  One
 * ptp4l on pmc's default socket, or none found, is not framed: the section
 * is exactly one pmc run, as before instances existed. */
#ifndef SYNCTOP_PMC_INSTANCES_H
#define SYNCTOP_PMC_INSTANCES_H

#include "observation.h"
#include "tool_output.h"

#define PMC_INSTANCE_TAG "synctop-ptp4l "

/* 0 when the section is not framed (parse it with pmc_parse as one ptp4l).
 * Else the instances, at most max, each with its pmc answer parsed by
 * pmc_parse from its own stdout, stderr and exit status; *more counts the
 * instances beyond max, left out.  A frame cut short is OBS_TRUNCATED; an
 * instance whose config could not be read keeps config_error, state
 * OBS_NOT_COLLECTED and error saying why.  Pure. */
int pmc_instances_parse(const tool_output *out, ptp_instance *list, int max, int *more);

/* The instance that speaks for the node (observation.ptp): a SLAVE port,
 * else a port following a master, else the first that answered, else the
 * first.  0 when n is 0. */
int pmc_instances_primary(const ptp_instance *list, int n);

/* "socket /var/run/ptp4l-a", "config /etc/a.conf" or "pmc's default
 * socket": how findings and the drill-down name an instance, cleaned for
 * one line. */
const char *pmc_instance_label(const ptp_instance *inst, char *buf, size_t len);

#endif
