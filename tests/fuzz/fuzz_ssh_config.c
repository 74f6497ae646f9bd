/* fuzz_ssh_config.c - the ssh_config reader on a fuzzed user file and
 * system file, then ssh_config_resolve for a few host names.
 *
 * Input: user file FUZZ_SEP system file FUZZ_SEP host name.  The files reach
 * ssh_config_load_files() as memfds (/proc/self/fd/N), so nothing is written
 * to disk per input.  HOME is a private directory made once, holding
 * ~/.ssh/inc.conf, ~/.ssh/conf.d/10-a.conf and a self-including
 * ~/.ssh/loop.conf for relative Includes to find.
 *
 * Beyond not crashing: a refused file gives NULL and a non-empty message;
 * warnings are NUL-terminated strings; for every inventory-valid host name
 * every resolved option is unset or in its documented range, paths are
 * non-empty, identity files never repeat, HostName holds only name
 * characters, an error starts with the file:line it names, and resolving
 * with no config leaves everything unset. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "ssh_config.h"

/* What an inventory host name is made of (target.h: names, IPv6 with a
 * %zone); ssh_config_resolve() is only ever asked about such names. */
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:"

static int user_fd = -1, system_fd = -1;
static char home[256];

static void write_file(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", home, rel);
	FILE *f = fopen(path, "w");
	FUZZ_CHECK(f != NULL);
	fputs(text, f);
	FUZZ_CHECK(fclose(f) == 0);
	FUZZ_CHECK(chmod(path, 0600) == 0);
}

static void remove_home(void)
{
	static const char *const files[] = {".ssh/inc.conf", ".ssh/loop.conf",
					    ".ssh/conf.d/10-a.conf", ".ssh/conf.d", ".ssh", ""};
	char path[512];
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", home, files[i]);
		remove(path);
	}
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(home, sizeof home, "%s/synctop-fuzz-home-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	FUZZ_CHECK(mkdtemp(home) != NULL);
	char path[512];
	snprintf(path, sizeof path, "%s/.ssh", home);
	FUZZ_CHECK(mkdir(path, 0700) == 0);
	snprintf(path, sizeof path, "%s/.ssh/conf.d", home);
	FUZZ_CHECK(mkdir(path, 0700) == 0);
	write_file(".ssh/inc.conf", "Host inc*\n\tHostName %h.example.org\n"
		   "\tIdentityFile ~/.ssh/id_%n\n\tUserKnownHostsFile ~/.ssh/kh_%r %d/kh2\n");
	write_file(".ssh/conf.d/10-a.conf", "Host a* !ab\n  User alice\n  Port 2201\n"
		   "  StrictHostKeyChecking accept-new\n");
	write_file(".ssh/loop.conf", "Include loop.conf\n");
	atexit(remove_home);
	setenv("HOME", home, 1);
	setenv("USER", "fuzzer", 1);
	user_fd = memfd_create("ssh_config", 0);
	system_fd = memfd_create("ssh_config_system", 0);
	FUZZ_CHECK(user_fd >= 0 && system_fd >= 0);
}

static void fill(int fd, const fuzz_part *part)
{
	FUZZ_CHECK(ftruncate(fd, 0) == 0);
	size_t done = 0;
	while (done < part->len) {
		ssize_t n = pwrite(fd, part->p + done, part->len - done, (off_t)done);
		FUZZ_CHECK(n > 0);
		done += (size_t)n;
	}
}

static bool path_ok(const char *p)
{
	return fuzz_terminated(p, SSH_PATH_LEN) && p[0] != '\0';
}

static void check_options(const ssh_host_options *o)
{
	FUZZ_CHECK(fuzz_terminated(o->hostname, sizeof o->hostname));
	FUZZ_CHECK(fuzz_terminated(o->user, sizeof o->user));
	FUZZ_CHECK(fuzz_terminated(o->warning, sizeof o->warning));
	FUZZ_CHECK(fuzz_terminated(o->error, sizeof o->error));
	FUZZ_CHECK(fuzz_terminated(o->error_at, sizeof o->error_at));
	FUZZ_CHECK(fuzz_terminated(o->host_key_alias, sizeof o->host_key_alias));
	FUZZ_CHECK(fuzz_terminated(o->auth_unsupported, sizeof o->auth_unsupported));
	FUZZ_CHECK(fuzz_terminated(o->auth_gssapi, sizeof o->auth_gssapi));
	FUZZ_CHECK(fuzz_terminated(o->ignored, sizeof o->ignored));
	/* an error always says where, and the place starts the message */
	FUZZ_CHECK((o->error[0] == '\0') == (o->error_at[0] == '\0'));
	FUZZ_CHECK(strncmp(o->error, o->error_at, strlen(o->error_at)) == 0);
	FUZZ_CHECK(o->global_known_hosts_count >= SSH_OPTION_UNSET &&
		   o->global_known_hosts_count <= SSH_KNOWN_HOSTS_MAX);
	for (int i = 0; i < o->global_known_hosts_count; i++) {
		FUZZ_CHECK(path_ok(o->global_known_hosts_file[i]));
	}
	FUZZ_CHECK(o->port == SSH_OPTION_UNSET || (o->port >= 1 && o->port <= 65535));
	FUZZ_CHECK(o->identity_count >= 0 && o->identity_count <= SSH_IDENTITY_MAX);
	for (int i = 0; i < o->identity_count; i++) {
		FUZZ_CHECK(path_ok(o->identity_file[i]));
		for (int j = 0; j < i; j++) {
			FUZZ_CHECK(strcmp(o->identity_file[i], o->identity_file[j]) != 0);
		}
	}
	FUZZ_CHECK(o->identities_only >= SSH_OPTION_UNSET && o->identities_only <= 1);
	FUZZ_CHECK(o->known_hosts_count >= SSH_OPTION_UNSET &&
		   o->known_hosts_count <= SSH_KNOWN_HOSTS_MAX);
	for (int i = 0; i < o->known_hosts_count; i++) {
		FUZZ_CHECK(path_ok(o->known_hosts_file[i]));
	}
	FUZZ_CHECK(o->strict_host_key_checking >= SSH_STRICT_UNSET &&
		   o->strict_host_key_checking <= SSH_STRICT_ACCEPT_NEW);
	FUZZ_CHECK(o->connect_timeout >= SSH_OPTION_UNSET);
	FUZZ_CHECK(o->server_alive_interval >= SSH_OPTION_UNSET);
	/* HostName is checked when read (letters, digits, ".-_:" and the tokens
	 * %h and %%, never a leading '-'), and %h is an inventory name */
	FUZZ_CHECK(strspn(o->hostname, NAME_CHARS "%") == strlen(o->hostname));
	FUZZ_CHECK(o->hostname[0] != '-');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (user_fd < 0) {
		setup();
	}
	fuzz_parts parts;
	fuzz_split(data, size, 3, &parts);
	fill(user_fd, fuzz_part_at(&parts, 0));
	fill(system_fd, fuzz_part_at(&parts, 1));
	const fuzz_part *hp = fuzz_part_at(&parts, 2);
	char *extra_host = fuzz_strndup(hp->p, hp->len < 300 ? hp->len : 300);

	char user_path[64], system_path[64], err[1024];
	snprintf(user_path, sizeof user_path, "/proc/self/fd/%d", user_fd);
	snprintf(system_path, sizeof system_path, "/proc/self/fd/%d", system_fd);
	memset(err, 0, sizeof err);
	ssh_config *cfg = ssh_config_load_files(user_path, system_path, err, sizeof err);
	if (cfg == NULL) {
		FUZZ_CHECK(err[0] != '\0' && fuzz_terminated(err, sizeof err));
	} else {
		size_t n = ssh_config_warning_count(cfg);
		for (size_t i = 0; i < n; i++) {
			const char *w = ssh_config_warning(cfg, i);
			FUZZ_CHECK(w != NULL && w[0] != '\0');
		}
	}

	const char *hosts[] = {"node1", "inc1", "a1", "ab", "gpu01.example.org", "fe80::1%eth0",
			       extra_host};
	size_t nhosts = sizeof hosts / sizeof hosts[0];
	if (extra_host[0] == '\0' || extra_host[0] == '-' ||
	    strspn(extra_host, NAME_CHARS "%") != strlen(extra_host)) {
		nhosts--; /* not a name the inventory would hand over */
	}
	ssh_host_options o;
	for (size_t i = 0; i < nhosts; i++) {
		ssh_config_resolve(cfg, hosts[i], &o);
		check_options(&o);
		/* with a command-line user and port ("Match user", %r, %p) */
		ssh_config_query q = {.host = hosts[i], .user = "admin", .port = 2022};
		ssh_config_resolve_query(cfg, &q, &o);
		check_options(&o);
		if (cfg == NULL) {
			FUZZ_CHECK(o.hostname[0] == '\0' && o.user[0] == '\0' &&
				   o.port == SSH_OPTION_UNSET && o.identity_count == 0 &&
				   o.known_hosts_count == SSH_OPTION_UNSET &&
				   o.strict_host_key_checking == SSH_STRICT_UNSET);
		}
	}
	ssh_config_free(cfg);
	free(extra_host);
	fuzz_parts_free(&parts);
	return 0;
}
