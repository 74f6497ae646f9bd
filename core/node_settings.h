/* node_settings.h - what synctop applies to one node: its health thresholds
 * and expectations, how to probe it, and what it should be synchronised to.
 *
 * Resolved once per node before anything connects (built-in defaults, then
 * the configuration file's defaults, then its first matching group, then the
 * command line), and read by the scheduler for every poll of that node. */
#ifndef SYNCTOP_NODE_SETTINGS_H
#define SYNCTOP_NODE_SETTINGS_H

#include <stdbool.h>

#include "thresholds.h"

#define NODE_SETTINGS_IFACE_LEN 16       /* IFNAMSIZ */
#define NODE_SETTINGS_UPSTREAM_LEN 254   /* a 253-byte DNS name + NUL */
#define NODE_SETTINGS_CLOCK_ID_LEN 19    /* "xxxxxx.xxxx.xxxxxx" + NUL */
#define NODE_SETTINGS_GROUP_LEN 64       /* a --config group's name, as messages show it */
#define NODE_SETTINGS_TRANSPORT_CMD_LEN 1024
#define NODE_SETTINGS_JUMP_LEN 1024
#define NODE_SETTINGS_STATE_DIR_LEN 352  /* state_store.c's longest directory + NUL */

/* How synctop reaches the node (--transport, --transport-cmd). */
typedef enum {
	NODE_TRANSPORT_LIBSSH2 = 0, /* the built-in SSH client (the default) */
	NODE_TRANSPORT_SSH,         /* the system OpenSSH client, one process per node */
	NODE_TRANSPORT_CMD,         /* transport_cmd with {host} filled in */
} node_transport;

typedef struct {
	thresholds th;       /* includes expect_chrony / expect_ptp */
	bool pmc_sudo;       /* run pmc through sudo -n */
	char iface[NODE_SETTINGS_IFACE_LEN];             /* "" = ptp4l's, else the default route's */
	/* Stored for the cluster consistency check; "" = not configured. */
	char ntp_upstream[NODE_SETTINGS_UPSTREAM_LEN];   /* host name or IP address */
	char grandmaster[NODE_SETTINGS_CLOCK_ID_LEN];    /* lower-case PTP clock identity */
	/* The --config group that applied (cluster.upstream_split compares
	 * groups): 1 + its index, 0 = none; its name, truncated. */
	int group;
	char group_name[NODE_SETTINGS_GROUP_LEN];
	node_transport transport;
	/* NODE_TRANSPORT_CMD: the template as written (command_template.h
	 * splits it; checked when read); "" otherwise. */
	char transport_cmd[NODE_SETTINGS_TRANSPORT_CMD_LEN];
	/* The jump hosts (-J, config key "jump"), as written and checked
	 * when read; "none" = directly; "" = the ssh config decides.  Like
	 * ssh's own -J it beats ProxyJump and ProxyCommand lines. */
	char jump[NODE_SETTINGS_JUMP_LEN];
	/* The configuration's `state_dir` (in "defaults" only; --state-dir
	 * and --state beat it): "" = none. */
	char state_dir[NODE_SETTINGS_STATE_DIR_LEN];
} node_settings;

/* The built-in defaults: thresholds_init_defaults(), no sudo, no interface,
 * no upstream or grandmaster, no group, the built-in SSH client, no jump
 * host of its own. */
void node_settings_init(node_settings *ns);

#endif
