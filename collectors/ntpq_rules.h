/* ntpq_rules.h - ntpd's health rules (ntp.*), run by health_evaluate through
 * the registry (collector.h) when ntpq answered. */
#ifndef SYNCTOP_NTPQ_RULES_H
#define SYNCTOP_NTPQ_RULES_H

#include "health_rule.h"

void ntpq_rules(const health_context *ctx, finding_list *out);

/* An association that stands for a real server: not a `pool` line's
 * placeholder (type 'p', refid .POOL., never reached by design). */
bool ntpq_peer_is_server(const ntp_peer *p);

#endif
