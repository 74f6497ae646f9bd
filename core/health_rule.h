/* health_rule.h - what a health rule needs, wherever it lives: core's
 * cross-tool rules (health.c) and each collector's own (collector.h).
 *
 * A rule reads the context and adds findings; it is pure: no I/O, no
 * globals, no literal limits (thresholds.h).  Names quoted in messages come
 * from the node and go through health_clean first. */
#ifndef SYNCTOP_HEALTH_RULE_H
#define SYNCTOP_HEALTH_RULE_H

#include <stddef.h>

#include "finding.h"
#include "history.h"
#include "observation.h"
#include "thresholds.h"

#define HEALTH_NAME_LEN 64 /* remote names quoted in messages */

typedef struct {
	const observation *obs;
	const history *history;
	const thresholds *th;
} health_context;

/* Inserts f after every finding at least as severe (sorted, stable in rule
 * order); when the list is full the least severe falls off. */
void health_add_finding(finding_list *out, const finding *f);

/* SEVERITY_CRIT above crit, SEVERITY_WARN above warn, else SEVERITY_OK
 * (also for NAN): a limit must be strictly exceeded. */
severity health_grade(double value, double warn, double crit);

/* An NTP reach register (chronyc and ntpq print it in octal): a bit per
 * poll, the last 8 polls; 0377 = every one answered. */
#define HEALTH_REACH_ALL_EIGHT 0377u

/* Polls among the last 8 that got no answer. */
int health_missed_polls(unsigned reach);

/* A fixed-size remote string made one clean line (sanitize.h). */
const char *health_clean(char *dst, size_t dst_len, const char *src, size_t src_len);
#define HEALTH_CLEAN(buf, field) health_clean((buf), sizeof(buf), (field), sizeof(field))

/* The interface a port runs on, else the one ethtool looked at, else
 * "IFACE": for hints that name a command to run. */
const char *health_port_iface(const ptp_port *port, const nic_obs *nic, char *buf, size_t len);

/* "port 1 (eth0)", or "port 1" without an interface name. */
const char *health_port_label(const ptp_port *port, int index, char *buf, size_t len);

#endif
