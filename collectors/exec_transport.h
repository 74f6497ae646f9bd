/* exec_transport.h - reach a node through a program that gives a shell on
 * it: the system OpenSSH client (--transport ssh) or any command
 * (--transport-cmd 'kubectl exec -i {host} -- sh').
 *
 * One persistent child per node (local_transport.h runs it): the probe
 * program is written to the remote `sh`'s stdin, the shell is up when the
 * probe's banner comes back, and from then on the same request lines and
 * framing as over libssh2 go through its pipes.  Host keys, authentication,
 * ProxyCommand, Kerberos, certificates: the program's business.  Its exit
 * status and the last lines of its stderr become the node's error
 * (exec_argv.h).  Restarting the shell starts a new child (a new connection
 * for ssh, unless ControlMaster shares one).  local_transport_set_start_limit()
 * caps how many are starting at once. */
#ifndef SYNCTOP_EXEC_TRANSPORT_H
#define SYNCTOP_EXEC_TRANSPORT_H

#include <ev.h>

#include "command_template.h"
#include "exec_argv.h"
#include "transport.h"

/* probe_command is what the remote sh runs (probe_command()); copied.
 * start_timeout_s: no probe banner within this long is a connect failure. */
transport *exec_transport_new_ssh(struct ev_loop *loop, const exec_ssh_args *args, double start_timeout_s,
				  const char *probe_command, const transport_events *events, void *owner);

/* tmpl's words with {host} replaced by host, run with execvp. */
transport *exec_transport_new_cmd(struct ev_loop *loop, const command_template *tmpl, const char *host,
				  double start_timeout_s, const char *probe_command, const transport_events *events,
				  void *owner);

#endif
