/* exec_transport.c - the exec transports: argv from exec_argv.c or a
 * command template, the child run by local_transport.c. */
#include <config.h>

#include "exec_transport.h"

#include <stdlib.h>
#include <string.h>

#include "local_transport.h"
#include "xalloc.h"

/* The remote sh reads one command line: the probe program, which execs. */
static char *preamble(const char *probe_command)
{
	size_t n = strlen(probe_command);
	char *s = xmalloc(n + 2);
	memcpy(s, probe_command, n);
	s[n] = '\n';
	s[n + 1] = '\0';
	return s;
}

static transport *spawn(struct ev_loop *loop, char **argv, bool is_ssh, double start_timeout_s,
			const char *probe_command, const transport_events *events, void *owner)
{
	char *pre = preamble(probe_command);
	local_spawn sp = {
		.argv = (const char *const *)argv,
		.preamble = pre,
		.remote = true,
		.is_ssh = is_ssh,
		.start_timeout_s = start_timeout_s,
	};
	transport *t = local_transport_spawn(loop, &sp, events, owner);
	free(pre);
	return t;
}

transport *exec_transport_new_ssh(struct ev_loop *loop, const exec_ssh_args *args, double start_timeout_s,
				  const char *probe_command, const transport_events *events, void *owner)
{
	char **argv = exec_argv_ssh(args);
	transport *t = spawn(loop, argv, true, start_timeout_s, probe_command, events, owner);
	exec_argv_free(argv);
	return t;
}

transport *exec_transport_new_cmd(struct ev_loop *loop, const command_template *tmpl, const char *host,
				  double start_timeout_s, const char *probe_command, const transport_events *events,
				  void *owner)
{
	char **argv = command_template_argv(tmpl, host);
	transport *t = spawn(loop, argv, false, start_timeout_s, probe_command, events, owner);
	command_template_argv_free(argv);
	return t;
}
