/* inventory.c - build the node list and each node's SSH options. */
#include <config.h>

#include "inventory.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "private_agent.h"
#include "sanitize.h"
#include "ssh_config.h"
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

/* One known_hosts object per distinct list of files: most nodes share one. */
static known_hosts *known_hosts_for(inventory *inv, const char *const *files, size_t n)
{
	char key[SSH_KNOWN_HOSTS_MAX * (SSH_PATH_LEN + 1) + 1] = "";
	size_t used = 0;
	for (size_t i = 0; i < n && used < sizeof key; i++) {
		int w = snprintf(key + used, sizeof key - used, "%s\n", files[i]);
		used += w > 0 ? (size_t)w : 0;
	}
	for (size_t i = 0; i < inv->n_known_hosts_sets; i++) {
		if (strcmp(inv->known_hosts_keys[i], key) == 0) {
			return inv->known_hosts_sets[i];
		}
	}
	known_hosts *kh = n ? known_hosts_load(files, n, NULL, 0) : known_hosts_load(NULL, 0, NULL, 0);
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
}

static int build_spec(inventory *inv, const cli_options *opt, const conffile *conf, const ssh_config *cfg,
		      const target *t, node_spec *spec, char *err, size_t err_len)
{
	ssh_host_options ho;
	ssh_options *so = &spec->ssh;

	memset(spec, 0, sizeof *spec);
	display_name(t, spec->name, sizeof spec->name);
	spec->local = strcmp(t->host, "localhost") == 0 && !t->port && !t->user[0];
	inventory_node_settings(opt, conf, t->host, &spec->settings);
	ssh_options_init(so);
	ssh_config_resolve(cfg, t->host, &ho);

	snprintf(so->host, sizeof so->host, "%s", ho.hostname[0] ? ho.hostname : t->host);
	const char *user = t->user[0] ? t->user : opt->user ? opt->user : ho.user[0] ? ho.user : login_name();
	snprintf(so->user, sizeof so->user, "%s", user);
	so->port = t->port ? t->port : opt->port ? opt->port : ho.port != SSH_OPTION_UNSET ? ho.port : 22;

	/* -i files first, then IdentityFile lines; the defaults only when
	 * neither names any (as ssh does). */
	for (int i = 0; i < opt->n_identities && so->n_identity_files < SSH_MAX_IDENTITIES; i++) {
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

	const char *files[SSH_KNOWN_HOSTS_MAX];
	size_t n_files = 0;
	if (opt->n_known_hosts) {
		for (int i = 0; i < opt->n_known_hosts; i++) {
			files[n_files++] = opt->known_hosts[i];
		}
	} else if (ho.known_hosts_count > 0) {
		for (int i = 0; i < ho.known_hosts_count; i++) {
			files[n_files++] = ho.known_hosts_file[i];
		}
	}
	if (!spec->local) {
		spec->known_hosts = known_hosts_for(inv, files, n_files);
		if (!spec->known_hosts) {
			snprintf(err, err_len, "cannot load known_hosts files");
			return -1;
		}
		known_hosts_key_types(spec->known_hosts, so->host, so->port, so->hostkey_methods,
				      sizeof so->hostkey_methods);
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
	known_hosts_check(spec->known_hosts, host, port, key, key_len, spec->policy, &v);
	if (v.accept) {
		return 0;
	}
	snprintf(msg, msg_len, "%s", v.message);
	return -1;
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

	cfg = ssh_config_load(opt->ssh_config, why, sizeof why);
	if (!cfg) {
		snprintf(err, err_len, "ssh config: %s", why);
		goto fail;
	}
	for (size_t i = 0; i < ssh_config_warning_count(cfg) && inv->n_warnings < 4; i++) {
		snprintf(inv->warnings[inv->n_warnings++], sizeof inv->warnings[0], "%s",
			 ssh_config_warning(cfg, i));
	}

	inv->specs = xcalloc(targets.count ? targets.count : 1, sizeof *inv->specs);
	for (size_t i = 0; i < targets.count; i++) {
		if (build_spec(inv, opt, conf, cfg, &targets.items[i], &inv->specs[i], err, err_len) != 0) {
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

	/* Distinct files: a thousand nodes usually share one or two. */
	for (size_t s = 0; s < inv->count; s++) {
		const ssh_options *so = &inv->specs[s].ssh;
		for (int i = 0; !inv->specs[s].local && i < so->n_identity_files; i++) {
			size_t k = key_index(keys, n, so->identity_files[i]);
			if (k == n) {
				keys = xrealloc(keys, (n + 1) * sizeof *keys);
				keys[n++] = (private_agent_key){.path = so->identity_files[i]};
			}
			keys[k].identities_only |= so->identities_only;
		}
	}
	private_agent_load(keys, n);
	for (size_t s = 0; s < inv->count; s++) {
		ssh_options *so = &inv->specs[s].ssh;
		for (int i = 0; !inv->specs[s].local && i < so->n_identity_files; i++) {
			size_t k = key_index(keys, n, so->identity_files[i]);
			if (k < n) { /* always true (the loop above listed every file) */
				so->identity_states[i] = keys[k].state;
			}
		}
		snprintf(so->private_agent_socket, sizeof so->private_agent_socket, "%s", private_agent_socket());
	}
	free(keys);
}
