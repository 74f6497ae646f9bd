/* inventory.c - build the node list and each node's SSH options. */
#include <config.h>

#include "inventory.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "private_agent.h"
#include "sanitize.h"
#include "ssh_config.h"
#include "ssh_jump_spec.h"
#include "target.h"
#include "xalloc.h"

static const char *home_dir(void)
{
	const char *home = getenv("HOME");
	if (home && *home) {
		return home;
	}
	struct passwd *pw = getpwuid(getuid());
	return pw && pw->pw_dir ? pw->pw_dir : "/";
}

static const char *login_name(void)
{
	struct passwd *pw = getpwuid(getuid());
	if (pw && pw->pw_name) {
		return pw->pw_name;
	}
	const char *user = getenv("USER");
	return user && *user ? user : "root";
}

/* One known_hosts object per distinct pair of file lists: most nodes share
 * one.  n_global == -1: OpenSSH's default global files. */
static known_hosts *known_hosts_for(inventory *inv, const char *const *files, size_t n,
				    const char *const *global, int n_global)
{
	char key[2 * SSH_KNOWN_HOSTS_MAX * (SSH_PATH_LEN + 1) + 16] = "";
	size_t used = 0;
	for (size_t i = 0; i < n && used < sizeof key; i++) {
		int w = snprintf(key + used, sizeof key - used, "%s\n", files[i]);
		used += w > 0 ? (size_t)w : 0;
	}
	if (used < sizeof key) {
		int w = snprintf(key + used, sizeof key - used, "global %d\n", n_global);
		used += w > 0 ? (size_t)w : 0;
	}
	for (int i = 0; i < n_global && used < sizeof key; i++) {
		int w = snprintf(key + used, sizeof key - used, "%s\n", global[i]);
		used += w > 0 ? (size_t)w : 0;
	}
	for (size_t i = 0; i < inv->n_known_hosts_sets; i++) {
		if (strcmp(inv->known_hosts_keys[i], key) == 0) {
			return inv->known_hosts_sets[i];
		}
	}
	/* "GlobalKnownHostsFile none" is an empty list, not the defaults */
	static const char *const no_files[] = {"none"};
	const char *const *g = n_global < 0 ? NULL : n_global == 0 ? no_files : global;
	size_t gn = n_global < 0 ? 0 : n_global == 0 ? 1 : (size_t)n_global;
	known_hosts *kh = known_hosts_load(n ? files : NULL, n, g, gn);
	if (!kh) {
		return NULL;
	}
	size_t k = inv->n_known_hosts_sets++;
	inv->known_hosts_sets = xrealloc(inv->known_hosts_sets, inv->n_known_hosts_sets * sizeof(known_hosts *));
	inv->known_hosts_keys = xrealloc(inv->known_hosts_keys, inv->n_known_hosts_sets * sizeof(char *));
	inv->known_hosts_sets[k] = kh;
	inv->known_hosts_keys[k] = xstrdup(key);
	return kh;
}

static void display_name(const target *t, char *out, size_t len)
{
	if (t->port && strchr(t->host, ':')) {
		snprintf(out, len, "[%.200s]:%d", t->host, t->port);
	} else if (t->port) {
		snprintf(out, len, "%.200s:%d", t->host, t->port);
	} else {
		snprintf(out, len, "%s", t->host);
	}
}

void inventory_node_settings(const cli_options *opt, const conffile *cf, const char *host, node_settings *out)
{
	conffile_resolve(cf, host, out);
	/* The command line names this run's intent: it beats the file. */
	if (opt->pmc_sudo) {
		out->pmc_sudo = true;
	}
	if (opt->iface) {
		snprintf(out->iface, sizeof out->iface, "%s", opt->iface);
	}
	if (opt->transport_cmd) {
		out->transport = NODE_TRANSPORT_CMD;
		snprintf(out->transport_cmd, sizeof out->transport_cmd, "%s", opt->transport_cmd);
	} else if (opt->transport >= 0) {
		out->transport = (node_transport)opt->transport;
		out->transport_cmd[0] = '\0';
	}
	/* -J beats a group's "jump" as ssh's -J beats its files: for ssh the
	 * first value obtained wins, and the command line is read first */
	if (opt->jump) {
		snprintf(out->jump, sizeof out->jump, "%s", opt->jump);
	}
}

bool inventory_uses_exec(const inventory *inv)
{
	for (size_t i = 0; i < inv->count; i++) {
		if (!inv->specs[i].local && inv->specs[i].settings.transport != NODE_TRANSPORT_LIBSSH2) {
			return true;
		}
	}
	return false;
}

/* "localhost" without a user or port is polled by fork/exec, not SSH. */
static bool target_is_local(const target *t)
{
	return strcmp(t->host, "localhost") == 0 && !t->port && !t->user[0];
}

/* Keep a warning once, however many hosts it was met for. */
static void note_warning(inventory *inv, const char *w)
{
	for (int i = 0; i < inv->n_warnings; i++) {
		if (strcmp(inv->warnings[i], w) == 0) {
			return;
		}
	}
	if (inv->n_warnings < (int)(sizeof inv->warnings / sizeof inv->warnings[0])) {
		snprintf(inv->warnings[inv->n_warnings++], sizeof inv->warnings[0], "%s", w);
	}
}

/* How build_spec() is building: a node (depth 0), or a jump host `depth`
 * hops out, whose route is `via` when it is not the first hop of its
 * ProxyJump (then its own ProxyJump line does not apply: ssh runs
 * "ssh -J <the hops before it> host -W ..." for it, ssh.c:main). */
typedef struct {
	int depth;
	bool forced;               /* via decides the route, not its ProxyJump */
	const ssh_options *via;
} route_ctx;

static int build_spec(inventory *inv, const cli_options *opt, const conffile *conf, const ssh_config *cfg,
		      const target *t, node_spec *spec, char *err, size_t err_len, char *error_at,
		      size_t error_at_len, route_ctx rc);

/* The options of one jump host, built once per distinct hop and route and
 * shared by every node behind it.  A jump host is read as ssh reads it
 * when it runs "ssh [-l user] [-p port] [-J earlier hops] [-F file] host":
 * its own Host blocks apply; the node's -l, -p and -i do not. */
static const ssh_options *jump_host_options(inventory *inv, const cli_options *opt, const conffile *conf,
					    const ssh_config *cfg, const ssh_jump_hop *hop, route_ctx rc,
					    char *err, size_t err_len, char *error_at, size_t error_at_len)
{
	char key[SSH_JUMP_HOST_LEN + SSH_JUMP_USER_LEN + 64];
	snprintf(key, sizeof key, "%s@%s:%d %p %d", hop->user, hop->host, hop->port, (const void *)rc.via,
		 rc.forced);
	for (size_t i = 0; i < inv->n_jump_hosts; i++) {
		if (strcmp(inv->jump_keys[i], key) == 0) {
			return &inv->jump_hosts[i]->ssh;
		}
	}
	if (rc.depth > SSH_JUMP_MAX_HOPS) {
		snprintf(err, err_len, "jump host %s: more than %d jump hosts deep (a ProxyJump loop?)", hop->host,
			 SSH_JUMP_MAX_HOPS);
		return NULL;
	}
	target t;
	memset(&t, 0, sizeof t);
	snprintf(t.host, sizeof t.host, "%s", hop->host);
	snprintf(t.user, sizeof t.user, "%s", hop->user);
	t.port = hop->port;
	node_spec *spec = xcalloc(1, sizeof *spec);
	if (build_spec(inv, opt, conf, cfg, &t, spec, err, err_len, error_at, error_at_len, rc) != 0) {
		free(spec);
		return NULL;
	}
	ssh_jump_hop_format(hop, spec->ssh.jump_label, sizeof spec->ssh.jump_label);
	spec->ssh.jump_channels = opt->jump_channels;
	spec->ssh.verify_ctx = spec;
	size_t k = inv->n_jump_hosts++;
	inv->jump_hosts = xrealloc(inv->jump_hosts, inv->n_jump_hosts * sizeof(node_spec *));
	inv->jump_keys = xrealloc(inv->jump_keys, inv->n_jump_hosts * sizeof *inv->jump_keys);
	inv->jump_hosts[k] = spec;
	inv->jump_keys[k] = xstrdup(key);
	return &spec->ssh;
}

/* *out = the last jump host of a ProxyJump value (NULL for "none"), each
 * hop reached through the one before it; -1 with err on a bad value or hop. */
static int route_via(inventory *inv, const cli_options *opt, const conffile *conf, const ssh_config *cfg,
		     const char *value, const char *at, const target *t, int depth, const ssh_options **out,
		     char *err, size_t err_len, char *error_at, size_t error_at_len)
{
	ssh_jump_spec js;
	char why[384];
	*out = NULL;
	if (ssh_jump_spec_parse(value, &js, why, sizeof why) != 0) {
		snprintf(err, err_len, "%s: ProxyJump %s: %s", at, value, why);
		snprintf(error_at, error_at_len, "%s", at);
		return -1;
	}
	const ssh_options *via = NULL;
	for (int i = 0; i < js.count; i++) {
		/* ssh.c:main refuses a hop that is the host itself */
		const ssh_jump_hop *h = &js.hop[i];
		if (strcmp(h->host, t->host) == 0 && (h->port ? h->port : 22) == (t->port ? t->port : 22) &&
		    strcmp(h->user, t->user) == 0) {
			snprintf(err, err_len, "%s: ProxyJump %s applies to %s itself: a jump host loop "
				 "(ssh says \"jumphost loop via %s\"); exclude it from the block (Host * !%s)",
				 at, value, t->host, h->host, h->host);
			snprintf(error_at, error_at_len, "%s", at);
			return -1;
		}
		route_ctx rc = {.depth = depth + 1, .forced = i > 0, .via = via};
		via = jump_host_options(inv, opt, conf, cfg, h, rc, err, err_len, error_at, error_at_len);
		if (!via) {
			return -1;
		}
	}
	*out = via;
	return 0;
}

/* Fills spec, or returns -1 with err; for an ssh_config line the host
 * cannot be reached with, error_at is that line's "file:line". */
static int build_spec(inventory *inv, const cli_options *opt, const conffile *conf, const ssh_config *cfg,
		      const target *t, node_spec *spec, char *err, size_t err_len, char *error_at,
		      size_t error_at_len, route_ctx rc)
{
	ssh_host_options ho;
	ssh_options *so = &spec->ssh;
	bool is_node = rc.depth == 0;

	memset(spec, 0, sizeof *spec);
	display_name(t, spec->name, sizeof spec->name);
	spec->local = target_is_local(t);
	inventory_node_settings(opt, conf, t->host, &spec->settings);
	snprintf(spec->target_host, sizeof spec->target_host, "%s", t->host);
	snprintf(spec->target_user, sizeof spec->target_user, "%s", t->user);
	spec->target_port = t->port;
	if (spec->settings.transport != NODE_TRANSPORT_LIBSSH2 && !spec->local) {
		/* ssh (or the command) reads ssh_config and known_hosts itself:
		 * nothing in them is synctop's to refuse or check */
		return 0;
	}
	ssh_options_init(so);
	/* ssh knows the command line's user and port before it reads the
	 * files: "Match user", %r and %p see them */
	ssh_config_query q = {
		.host = t->host,
		.user = t->user[0] ? t->user : is_node ? opt->user : NULL,
		.port = t->port ? t->port : is_node ? opt->port : 0,
		/* a node: -J or its group's "jump" (as "ssh -J"); a hop after the
		 * first: "ssh -J <earlier hops>" decides its route */
		.jump = is_node ? spec->settings.jump : rc.forced ? "none" : NULL,
		.jump_from = opt->jump ? "-J" : "--config \"jump\"",
	};
	ssh_config_resolve_query(cfg, &q, &ho);
	if (ho.error[0] && !spec->local) {
		snprintf(err, err_len, "%s", ho.error);
		snprintf(error_at, error_at_len, "%s", ho.error_at);
		return -1;
	}
	if (ho.warning[0]) {
		note_warning(inv, ho.warning);
	}

	snprintf(so->host, sizeof so->host, "%s", ho.hostname[0] ? ho.hostname : t->host);
	const char *cli_user = is_node ? opt->user : NULL;
	int cli_port = is_node ? opt->port : 0;
	const char *user = t->user[0] ? t->user : cli_user;
	if (!user) {
		user = ho.user[0] ? ho.user : login_name();
	}
	snprintf(so->user, sizeof so->user, "%s", user);
	so->port = t->port ? t->port : cli_port ? cli_port : ho.port != SSH_OPTION_UNSET ? ho.port : 22;

	if (rc.forced) {
		so->via = rc.via;
	} else if (ho.proxy_jump[0] && !spec->local &&
		   route_via(inv, opt, conf, cfg, ho.proxy_jump, ho.proxy_jump_at, t, rc.depth, &so->via, err,
			     err_len, error_at, error_at_len) != 0) {
		return -1;
	}

	/* -i files first, then IdentityFile lines; the defaults only when
	 * neither names any (as ssh does; a jump host's ssh gets no -i). */
	for (int i = 0; is_node && i < opt->n_identities && so->n_identity_files < SSH_MAX_IDENTITIES; i++) {
		snprintf(so->identity_files[so->n_identity_files++], PATH_MAX, "%s", opt->identities[i]);
	}
	for (int i = 0; i < ho.identity_count && so->n_identity_files < SSH_MAX_IDENTITIES; i++) {
		snprintf(so->identity_files[so->n_identity_files++], PATH_MAX, "%s", ho.identity_file[i]);
	}
	so->identities_explicit = so->n_identity_files > 0;
	if (!so->n_identity_files) {
		static const char *const defaults[] = {"id_ed25519", "id_ecdsa", "id_rsa"};
		for (size_t i = 0; i < 3; i++) {
			snprintf(so->identity_files[so->n_identity_files++], PATH_MAX, "%s/.ssh/%s", home_dir(),
				 defaults[i]);
		}
	}
	so->identities_only = ho.identities_only == 1;
	if (opt->connect_timeout_s > 0) {
		so->connect_timeout_s = opt->connect_timeout_s;
	} else if (ho.connect_timeout != SSH_OPTION_UNSET && ho.connect_timeout > 0) {
		so->connect_timeout_s = ho.connect_timeout;
	}
	if (ho.server_alive_interval != SSH_OPTION_UNSET) {
		so->keepalive_interval_s = ho.server_alive_interval;
	}

	if (opt->strict >= 0) {
		spec->policy = (known_hosts_policy)opt->strict;
	} else {
		switch (ho.strict_host_key_checking) {
		case SSH_STRICT_NO: spec->policy = KNOWN_HOSTS_STRICT_NO; break;
		case SSH_STRICT_ACCEPT_NEW: spec->policy = KNOWN_HOSTS_STRICT_ACCEPT_NEW; break;
		case SSH_STRICT_YES:
		case SSH_STRICT_UNSET: spec->policy = KNOWN_HOSTS_STRICT_YES; break;
		}
	}

	const char *files[SSH_KNOWN_HOSTS_MAX], *global[SSH_KNOWN_HOSTS_MAX] = {0};
	size_t n_files = 0;
	if (opt->n_known_hosts) {
		for (int i = 0; i < opt->n_known_hosts; i++) {
			files[n_files++] = opt->known_hosts[i];
		}
	} else if (ho.known_hosts_count > 0) {
		for (int i = 0; i < ho.known_hosts_count; i++) {
			files[n_files++] = ho.known_hosts_file[i];
		}
	} else if (ho.known_hosts_count == 0) {
		files[n_files++] = "none"; /* UserKnownHostsFile none: no user file */
	}
	for (int i = 0; i < ho.global_known_hosts_count; i++) {
		global[i] = ho.global_known_hosts_file[i];
	}
	/* HostKeyAlias: known_hosts is asked about the alias, without a port
	 * (sshconnect.c:get_hostfile_hostname_ipaddr) */
	snprintf(spec->host_key_alias, sizeof spec->host_key_alias, "%s", ho.host_key_alias);
	if (!spec->local) {
		spec->known_hosts = known_hosts_for(inv, files, n_files, global, ho.global_known_hosts_count);
		if (!spec->known_hosts) {
			snprintf(err, err_len, "cannot load known_hosts files");
			return -1;
		}
		known_hosts_key_types(spec->known_hosts, spec->host_key_alias[0] ? spec->host_key_alias : so->host,
				      spec->host_key_alias[0] ? 22 : so->port, so->hostkey_methods,
				      sizeof so->hostkey_methods);
		/* what libssh2 cannot authenticate with: logged now, named if
		 * authentication fails (ssh_transport.c) */
		snprintf(so->auth_unsupported, sizeof so->auth_unsupported, "%s", ho.auth_unsupported);
		snprintf(so->auth_gssapi, sizeof so->auth_gssapi, "%s", ho.auth_gssapi);
		if (ho.ignored[0]) {
			log_printf("%s: ssh_config: %s ignored: synctop connects to the first address the resolver "
				   "returns for %s", spec->name, ho.ignored, so->host);
		}
		if (ho.auth_unsupported[0] || ho.auth_gssapi[0]) {
			log_printf("%s: ssh_config: %s%s%s: not used by synctop's SSH client (libssh2), which "
				   "authenticates with agent keys and key files", spec->name, ho.auth_gssapi,
				   ho.auth_gssapi[0] && ho.auth_unsupported[0] ? ", " : "", ho.auth_unsupported);
		}
	}
	so->verify_host_key = inventory_verify_host_key;
	/* verify_ctx is set once the spec array stops moving */
	return 0;
}

int inventory_verify_host_key(void *ctx, const char *host, int port, const unsigned char *key, size_t key_len,
			      char *msg, size_t msg_len)
{
	node_spec *spec = ctx;
	known_hosts_verdict v;
	if (spec->host_key_alias[0]) {
		host = spec->host_key_alias;
		port = 22;
	}
	known_hosts_check(spec->known_hosts, host, port, key, key_len, spec->policy, &v);
	if (v.accept) {
		return 0;
	}
	snprintf(msg, msg_len, "%s", v.message);
	return -1;
}

/* An ssh_config line refused target i: say how many targets it refuses, so
 * "Host *" + ProxyCommand reads as one problem, not the first node's. */
static void count_config_error(const cli_options *opt, const conffile *conf, const ssh_config *cfg,
			       const target_list *targets, size_t i, const char *at, char *err, size_t err_len)
{
	size_t same = 1;
	ssh_host_options *ho = xmalloc(sizeof *ho);
	node_settings *ns = xmalloc(sizeof *ns);
	for (size_t k = i + 1; k < targets->count; k++) {
		const target *t = &targets->items[k];
		inventory_node_settings(opt, conf, t->host, ns);
		if (ns->transport != NODE_TRANSPORT_LIBSSH2) {
			continue; /* ssh_config is OpenSSH's business there */
		}
		ssh_config_query q = {
			.host = t->host,
			.user = t->user[0] ? t->user : opt->user,
			.port = t->port ? t->port : opt->port,
			.jump = ns->jump,
		};
		ssh_config_resolve_query(cfg, &q, ho);
		same += strcmp(ho->error_at, at) == 0;
	}
	free(ho);
	free(ns);
	size_t len = strlen(err);
	if (same > 1 && len < err_len) {
		snprintf(err + len, err_len - len, " (the line applies to %zu of the nodes)", same);
	}
}

int inventory_build(const cli_options *opt, const conffile *conf, inventory *inv, char *err, size_t err_len)
{
	target_list targets;
	char why[512];
	ssh_config *cfg = NULL;

	memset(inv, 0, sizeof *inv);
	target_list_init(&targets);
	char shown[256]; /* an argument quoted in an error, made visible */
	for (size_t i = 0; i < opt->n_hosts; i++) {
		if (target_list_add_expr(&targets, opt->hosts[i], why, sizeof why) != 0) {
			sanitize_show(opt->hosts[i], strlen(opt->hosts[i]), shown, sizeof shown);
			snprintf(err, err_len, "host '%s': %s", shown, why);
			goto fail;
		}
	}
	for (size_t i = 0; i < opt->n_hostlists; i++) {
		if (target_list_add_expr(&targets, opt->hostlists[i], why, sizeof why) != 0) {
			sanitize_show(opt->hostlists[i], strlen(opt->hostlists[i]), shown, sizeof shown);
			snprintf(err, err_len, "-w '%s': %s", shown, why);
			goto fail;
		}
	}
	for (size_t i = 0; i < opt->n_host_files; i++) {
		if (target_list_read_file(&targets, opt->host_files[i], why, sizeof why) != 0) {
			snprintf(err, err_len, "%s", why);
			goto fail;
		}
	}
	if (opt->local && target_list_add_expr(&targets, "localhost", why, sizeof why) != 0) {
		snprintf(err, err_len, "--local: %s", why);
		goto fail;
	}

	/* Only this machine (--local): no SSH, so no ssh configuration either; a
	 * node-local gate must not fail on a broken ~/.ssh/config. */
	bool any_remote = false;
	for (size_t i = 0; i < targets.count; i++) {
		any_remote |= !target_is_local(&targets.items[i]);
	}
	cfg = ssh_config_load(any_remote ? opt->ssh_config : "none", why, sizeof why);
	if (!cfg) {
		snprintf(err, err_len, "ssh config: %s", why);
		goto fail;
	}
	for (size_t i = 0; i < ssh_config_warning_count(cfg); i++) {
		note_warning(inv, ssh_config_warning(cfg, i));
	}

	inv->specs = xcalloc(targets.count ? targets.count : 1, sizeof *inv->specs);
	for (size_t i = 0; i < targets.count; i++) {
		char at[SSH_PATH_LEN + 16] = "";
		if (build_spec(inv, opt, conf, cfg, &targets.items[i], &inv->specs[i], err, err_len, at,
			       sizeof at, (route_ctx){0}) != 0) {
			if (at[0]) {
				count_config_error(opt, conf, cfg, &targets, i, at, err, err_len);
			}
			goto fail;
		}
		inv->count++;
	}
	for (size_t i = 0; i < inv->count; i++) {
		inv->specs[i].ssh.verify_ctx = &inv->specs[i];
	}
	ssh_config_free(cfg);
	target_list_free(&targets);
	return 0;

fail:
	ssh_config_free(cfg);
	target_list_free(&targets);
	inventory_free(inv);
	return -1;
}

void inventory_free(inventory *inv)
{
	for (size_t i = 0; i < inv->n_known_hosts_sets; i++) {
		known_hosts_free(inv->known_hosts_sets[i]);
		free(inv->known_hosts_keys[i]);
	}
	free(inv->known_hosts_sets);
	free(inv->known_hosts_keys);
	for (size_t i = 0; i < inv->n_jump_hosts; i++) {
		free(inv->jump_hosts[i]);
		free(inv->jump_keys[i]);
	}
	free(inv->jump_hosts);
	free(inv->jump_keys);
	free(inv->specs);
	memset(inv, 0, sizeof *inv);
}

/* ------------------------------------------- encrypted identity files */

static size_t key_index(const private_agent_key *keys, size_t n, const char *path)
{
	size_t k = 0;
	while (k < n && strcmp(keys[k].path, path) != 0) {
		k++;
	}
	return k;
}

void inventory_load_encrypted_keys(inventory *inv)
{
	private_agent_key *keys = NULL;
	size_t n = 0;
	/* the nodes' options, then the jump hosts' */
	size_t total = inv->count + inv->n_jump_hosts;
	node_spec **all = xcalloc(total ? total : 1, sizeof(node_spec *));
	for (size_t s = 0; s < total; s++) {
		all[s] = s < inv->count ? &inv->specs[s] : inv->jump_hosts[s - inv->count];
	}

	/* Distinct files: a thousand nodes usually share one or two. */
	for (size_t s = 0; s < total; s++) {
		const ssh_options *so = &all[s]->ssh;
		for (int i = 0; !all[s]->local && i < so->n_identity_files; i++) {
			size_t k = key_index(keys, n, so->identity_files[i]);
			if (k == n) {
				keys = xrealloc(keys, (n + 1) * sizeof *keys);
				keys[n++] = (private_agent_key){.path = so->identity_files[i]};
			}
			keys[k].identities_only |= so->identities_only;
		}
	}
	private_agent_load(keys, n);
	for (size_t s = 0; s < total; s++) {
		ssh_options *so = &all[s]->ssh;
		for (int i = 0; !all[s]->local && i < so->n_identity_files; i++) {
			size_t k = key_index(keys, n, so->identity_files[i]);
			if (k < n) { /* always true (the loop above listed every file) */
				so->identity_states[i] = keys[k].state;
			}
		}
		snprintf(so->private_agent_socket, sizeof so->private_agent_socket, "%s", private_agent_socket());
	}
	free(all);
	free(keys);
}
