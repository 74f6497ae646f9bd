/* ssh_detail_run.h - Prometheus nodes polled once over SSH for their full
 * detail (`S` in the drill-down, --ssh-detail HOSTLIST): each through the
 * engine an SSH run uses (inventory, ssh_config, -l/-p/-i/-F/--known-hosts,
 * --transport; the scheduler in once mode, the libssh2 transport on the
 * loop), never blocking it; the answer goes to the node's ssh_detail
 * (core/ssh_detail.h), beside its Prometheus observation.
 *
 * One scheduler per polled node, so each finishes on its own; the
 * handshakes of all of them share --max-handshakes (ssh_transport.c).  A
 * finished poll's scheduler is freed at the next request or at the end,
 * never inside its own callbacks. */
#ifndef SYNCTOP_SSH_DETAIL_RUN_H
#define SYNCTOP_SSH_DETAIL_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"

typedef struct ssh_detail_run ssh_detail_run;

/* Starts one SSH poll of each model node nodes[0..n) that has none running
 * (a finished one is replaced).  may_prompt: encrypted key files may be
 * loaded into the private agent now (ssh-add asks on the terminal: not
 * under the dashboard).  Returns how many started; *busy (may be NULL) is
 * set to how many were still polling.  The first call creates a->detail_run
 * (and the resolver thread). */
size_t ssh_detail_run_ask(app *a, const size_t *nodes, size_t n, bool may_prompt, size_t *busy);

/* Polls not finished. */
size_t ssh_detail_run_pending(const ssh_detail_run *r);

/* Runs the loop until every poll has finished or timeout_s has passed
 * (then the rest finish with `why ... deadline`). */
void ssh_detail_run_wait(app *a, double timeout_s);

/* The model nodes a host list names, in model order (a name the model does
 * not have is skipped; *unknown counts them).  Returns a malloc'd array of
 * *n indices, NULL (err set) when the list is not a host list. */
size_t *ssh_detail_run_select(const app *a, const char *hostlist, size_t *n, size_t *unknown, char *err,
			      size_t err_len);

/* Stops every poll and frees them; the details the nodes hold stay (the
 * model's owner frees them), the ones they no longer hold go. */
void ssh_detail_run_free(ssh_detail_run *r);

#endif
