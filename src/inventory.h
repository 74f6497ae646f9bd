/* inventory.h - the nodes to poll and how to reach each one.
 *
 * Combines hosts from the command line, -w host lists and -f files with the
 * OpenSSH client configuration, the way ssh would: user@host and :port in an
 * entry beat -l / -p, which beat ssh_config, which beats the defaults. */
#ifndef SYNCTOP_INVENTORY_H
#define SYNCTOP_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "conffile.h"
#include "known_hosts.h"
#include "node.h"
#include "ssh_transport.h"

typedef struct {
	char name[NODE_NAME_LEN]; /* as the operator wrote it, without user@ */
	bool local;               /* poll by fork/exec, no SSH */
	ssh_options ssh;
	known_hosts *known_hosts; /* shared between nodes, owned by the inventory */
	known_hosts_policy policy;
	char host_key_alias[256]; /* HostKeyAlias: the name known_hosts is asked about; "" = none */
	node_settings settings;   /* --config's for this node, then --sudo / --iface / --transport */
	/* The node as the operator wrote it, for the exec transports, which
	 * leave ssh_config to the program they run: the name without user@ and
	 * :port, and those two (""/0 = not given). */
	char target_host[256];
	char target_user[64];
	int target_port;
} node_spec;

typedef struct {
	node_spec *specs;
	size_t count;
	known_hosts **known_hosts_sets; /* one per distinct list of files */
	char **known_hosts_keys;
	size_t n_known_hosts_sets;
	char warnings[4][256];          /* ssh config lines synctop skipped */
	int n_warnings;
	/* Jump hosts (ProxyJump, -J), one per distinct hop and route; each
	 * allocated alone, as nodes' ssh_options.via point into them. */
	node_spec **jump_hosts;
	char **jump_keys;
	size_t n_jump_hosts;
} inventory;

/* Returns 0, or -1 with err saying what is wrong (file:line:column where it
 * applies).  Nothing is half-built on failure. */
int inventory_build(const cli_options *opt, const conffile *cf, inventory *inv, char *err, size_t err_len);

/* The settings of the node called host (no user@, no :port): cf's (may be
 * NULL), then the command line's --sudo, --iface, --transport and
 * --transport-cmd on top. */
void inventory_node_settings(const cli_options *opt, const conffile *cf, const char *host, node_settings *out);
void inventory_free(inventory *inv);

/* The ssh_options.verify_host_key callback; ctx is the node_spec. */
int inventory_verify_host_key(void *ctx, const char *host, int port, const unsigned char *key, size_t key_len,
			      char *msg, size_t msg_len);

/* Encrypted identity files: each distinct file is looked at once, the
 * encrypted ones are loaded into synctop's private agent (ssh-add asks their
 * passphrases on the terminal), and every node's ssh options learn how to
 * use each of its files.  Call after inventory_build, before the event loop
 * and any TUI; private_agent_stop() undoes it. */
void inventory_load_encrypted_keys(inventory *inv);

/* Whether any node runs a process of its own (--transport ssh,
 * --transport-cmd): then synctop needs a few descriptors per node. */
bool inventory_uses_exec(const inventory *inv);

#endif
