/* test_ssh_config.c - the OpenSSH client config reader.
 *
 * The expected values for tests/fixtures/ssh_config/basic.conf and the
 * include/ tree were checked with `ssh -G` from OpenSSH 9.2p1 (ssh prints
 * IdentityFile unexpanded; the selection and order are what is compared). */
#include <config.h>

#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "ssh_config.h"

#define HOME "/home/tester"

/* Path of fixture ssh_config/<name>.  Two buffers in turn, so two results
 * can be passed to one call. */
static char *fixture_path(const char *name)
{
	static char path[2][4096];
	static int turn;
	const char *dir = getenv("SYNCTOP_FIXTURES");
	turn = !turn;
	snprintf(path[turn], sizeof path[turn], "%s/ssh_config/%s", dir ? dir : "tests/fixtures",
		 name);
	return path[turn];
}

static ssh_config *load_fixture(const char *name)
{
	char err[512] = "";
	ssh_config *cfg;
	setenv("HOME", HOME, 1);
	setenv("USER", "tester", 1);
	cfg = ssh_config_load(fixture_path(name), err, sizeof err);
	if (!cfg) {
		fail_msg("%s: %s", name, err);
	}
	return cfg;
}

static bool has_warning(const ssh_config *cfg, const char *part)
{
	for (size_t i = 0; i < ssh_config_warning_count(cfg); i++) {
		if (strstr(ssh_config_warning(cfg, i), part)) {
			return true;
		}
	}
	return false;
}

/* ----------------------------------------------------- a private $HOME */

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

typedef struct {
	char dir[64];
} home;

static void home_make(home *h)
{
	char ssh[128];
	snprintf(h->dir, sizeof h->dir, "/tmp/synctop-home-XXXXXX");
	assert_non_null(mkdtemp(h->dir));
	snprintf(ssh, sizeof ssh, "%s/.ssh", h->dir);
	assert_int_equal(mkdir(ssh, 0700), 0);
	setenv("HOME", h->dir, 1);
	setenv("USER", "tester", 1);
}

static void home_mkdir(const home *h, const char *rel)
{
	char path[256];
	snprintf(path, sizeof path, "%s/.ssh/%s", h->dir, rel);
	assert_int_equal(mkdir(path, 0700), 0);
}

/* Copy fixture ssh_config/<fixture> to ~/.ssh/<rel> with the given mode. */
static void home_put(const home *h, const char *rel, const char *fixture, mode_t mode)
{
	char name[256], path[256];
	size_t len;
	char *text;
	FILE *f;

	snprintf(name, sizeof name, "ssh_config/%s", fixture);
	text = fixture_read(name, &len);
	snprintf(path, sizeof path, "%s/.ssh/%s", h->dir, rel);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
	free(text);
}

static void home_write(const home *h, const char *rel, const char *text)
{
	char path[256];
	FILE *f;
	snprintf(path, sizeof path, "%s/.ssh/%s", h->dir, rel);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	fclose(f);
	assert_int_equal(chmod(path, 0600), 0);
}

/* setup/teardown: the private $HOME goes away even when a test fails */
static int home_setup(void **state)
{
	home *h = calloc(1, sizeof *h);
	if (!h) {
		return -1;
	}
	home_make(h);
	*state = h;
	return 0;
}

static int home_teardown(void **state)
{
	home *h = *state;
	int rc = nftw(h->dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(h);
	return rc;
}

/* ------------------------------------------------------------ basic.conf */

static void test_first_value_wins(void **state)
{
	(void)state;
	ssh_config *cfg = load_fixture("basic.conf");
	ssh_host_options o;

	/* gpu001 has its own block first; the gpu* block only fills the rest */
	ssh_config_resolve(cfg, "gpu001", &o);
	assert_int_equal(o.port, 2001);
	assert_string_equal(o.user, "alice");
	assert_string_equal(o.hostname, "gpu001.cluster.example");
	assert_int_equal(o.identities_only, 1);
	assert_int_equal(o.strict_host_key_checking, SSH_STRICT_ACCEPT_NEW);
	/* "ConnectTimeout none" sets nothing, so the later 5 is obtained */
	assert_int_equal(o.connect_timeout, 5);
	assert_int_equal(o.server_alive_interval, 15);
	/* IdentityFile accumulates, in order; %h is the HostName */
	assert_int_equal(o.identity_count, 3);
	assert_string_equal(o.identity_file[0], HOME "/.ssh/id_gpu001");
	assert_string_equal(o.identity_file[1], HOME "/.ssh/id gpu001.cluster.example");
	assert_string_equal(o.identity_file[2], HOME "/.ssh/id_ed25519");
	/* all files of the first UserKnownHostsFile line; %r is the User */
	assert_int_equal(o.known_hosts_count, 2);
	assert_string_equal(o.known_hosts_file[0], HOME "/.ssh/known_hosts_cluster");
	assert_string_equal(o.known_hosts_file[1], "/etc/ssh/ssh_known_hosts_alice");
	assert_string_equal(o.warning, "");

	ssh_config_resolve(cfg, "gpu002", &o);
	assert_int_equal(o.port, 2200);
	assert_string_equal(o.user, "bob");
	assert_string_equal(o.known_hosts_file[1], "/etc/ssh/ssh_known_hosts_bob");
	assert_int_equal(o.identity_count, 2);
	ssh_config_free(cfg);
}

static void test_negation_and_wildcards(void **state)
{
	(void)state;
	ssh_config *cfg = load_fixture("basic.conf");
	ssh_host_options o;

	/* matches gpu* but also !gpu099: the whole block is skipped */
	ssh_config_resolve(cfg, "gpu099", &o);
	assert_string_equal(o.hostname, "");
	assert_string_equal(o.user, "");
	assert_int_equal(o.port, 22);
	assert_int_equal(o.strict_host_key_checking, SSH_STRICT_YES); /* "ask" */
	assert_int_equal(o.identities_only, SSH_OPTION_UNSET);
	assert_int_equal(o.known_hosts_count, SSH_OPTION_UNSET);
	assert_int_equal(o.identity_count, 1);

	/* '?' is exactly one character */
	ssh_config_resolve(cfg, "login1", &o);
	assert_string_equal(o.hostname, "login1.cluster.example");
	assert_int_equal(o.port, 2200);
	ssh_config_resolve(cfg, "login12", &o);
	assert_string_equal(o.hostname, "");
	assert_int_equal(o.port, 22);
	ssh_config_free(cfg);
}

static void test_keys_any_case_patterns_exact_case(void **state)
{
	(void)state;
	ssh_config *cfg = load_fixture("basic.conf");
	ssh_host_options o;

	ssh_config_resolve(cfg, "BMC7", &o);
	assert_int_equal(o.strict_host_key_checking, SSH_STRICT_NO); /* "OFF" */
	assert_int_equal(o.connect_timeout, 90);                     /* 1m30s */
	/* ssh matches Host patterns case-sensitively */
	ssh_config_resolve(cfg, "bmc7", &o);
	assert_int_equal(o.strict_host_key_checking, SSH_STRICT_YES);
	assert_int_equal(o.connect_timeout, 5);
	ssh_config_free(cfg);
}

static void test_match_exec_block_that_cannot_apply(void **state)
{
	(void)state;
	ssh_config *cfg = load_fixture("basic.conf");
	ssh_host_options o;

	/* "Match host gpu001 exec ...": host is false for these, so the exec
	 * that synctop does not evaluate cannot make the block apply */
	ssh_config_resolve(cfg, "unrelated", &o);
	assert_int_equal(o.port, 22); /* not 9999 from the Match block */
	assert_string_equal(o.user, "");
	assert_string_equal(o.error, "");
	/* gpu001's HostName is set above it: "Match host" sees that, not gpu001 */
	ssh_config_resolve(cfg, "gpu001", &o);
	assert_int_equal(o.port, 2001);
	assert_string_equal(o.error, "");
	/* the %C IdentityFile is dropped with its own warning */
	assert_true(has_warning(cfg, "basic.conf:13: IdentityFile ~/.ssh/id_%C ignored: "
				     "token %C is not supported"));
	assert_int_equal(ssh_config_warning_count(cfg), 1);
	assert_null(ssh_config_warning(cfg, 1));
	ssh_config_free(cfg);
}

static void test_limits_and_known_hosts_none(void **state)
{
	(void)state;
	ssh_config *cfg = load_fixture("many-ids.conf");
	ssh_host_options o;

	ssh_config_resolve(cfg, "any", &o);
	/* /k/1 twice counts once; /k/9 is the ninth and does not fit */
	assert_int_equal(o.identity_count, SSH_IDENTITY_MAX);
	assert_string_equal(o.identity_file[2], "/k/3");
	assert_string_equal(o.identity_file[7], "/k/8");
	assert_non_null(strstr(o.warning, "more than 8 IdentityFile entries apply; /k/9 ignored"));
	/* "none" is a value: it wins and means no files */
	assert_int_equal(o.known_hosts_count, 0);
	ssh_config_free(cfg);
}

static void test_null_config_and_host(void **state)
{
	(void)state;
	ssh_host_options o;
	memset(&o, 0x5a, sizeof o);
	ssh_config_resolve(NULL, "x", &o);
	assert_int_equal(o.port, SSH_OPTION_UNSET);
	assert_int_equal(o.connect_timeout, SSH_OPTION_UNSET);
	assert_int_equal(o.server_alive_interval, SSH_OPTION_UNSET);
	assert_int_equal(o.identity_count, 0);
	assert_string_equal(o.hostname, "");
	assert_string_equal(o.warning, "");
	assert_int_equal(ssh_config_warning_count(NULL), 0);

	ssh_config *cfg = load_fixture("basic.conf");
	ssh_config_resolve(cfg, NULL, &o); /* only Host * applies */
	assert_int_equal(o.port, 22);
	ssh_config_free(cfg);
}

/* --------------------------------------------------------------- Include */

static void test_include(void **state)
{
	home *h = *state;
	char err[512] = "";
	ssh_config *cfg;
	ssh_host_options o;

	home_mkdir(h, "conf.d");
	home_put(h, "config", "include/config", 0600);
	home_put(h, "conf.d/10-db.conf", "include/conf.d/10-db.conf", 0644);
	home_put(h, "conf.d/20-match.conf", "include/conf.d/20-match.conf", 0600);
	home_put(h, "web.inc", "include/web.inc", 0600);

	/* NULL: ~/.ssh/config, as plain ssh reads it (no system file here) */
	cfg = ssh_config_load_files(NULL, NULL, err, sizeof err);
	if (!cfg) {
		fail_msg("%s", err);
	}
	/* Port 1234 sits above any Host line in an included file: it applies to
	 * everybody; the includer's state comes back after each file */
	ssh_config_resolve(cfg, "web1", &o);
	assert_int_equal(o.port, 1234);
	assert_int_equal(o.server_alive_interval, 7);
	assert_string_equal(o.hostname, "web1.web.example");
	assert_string_equal(o.user, "webuser");

	/* web.inc was included inside "Host web*": nothing in it reaches db1 */
	ssh_config_resolve(cfg, "db1", &o);
	assert_int_equal(o.port, 1234);
	assert_string_equal(o.user, "dbadmin");
	assert_string_equal(o.hostname, "");

	ssh_config_resolve(cfg, "other", &o);
	assert_string_equal(o.user, "default");
	assert_int_equal(o.port, 1234);
	/* "Match user root" in an included file is evaluated: the -l user */
	ssh_config_query q = {.host = "other", .user = "root"};
	ssh_config_resolve_query(cfg, &q, &o);
	assert_int_equal(o.port, 1234); /* obtained above it: the first value wins */
	assert_int_equal(o.connect_timeout, 9);
	ssh_config_resolve(cfg, "other", &o);
	assert_int_equal(o.connect_timeout, SSH_OPTION_UNSET); /* the local user is tester */
	assert_int_equal(ssh_config_warning_count(cfg), 0);
	ssh_config_free(cfg);
}

static void test_include_permissions(void **state)
{
	home *h = *state;
	char err[512] = "";

	home_mkdir(h, "conf.d");
	home_put(h, "config", "include/config", 0600);
	home_put(h, "conf.d/10-db.conf", "include/conf.d/10-db.conf", 0666);
	assert_null(ssh_config_load_files(NULL, NULL, err, sizeof err));
	assert_non_null(strstr(err, "10-db.conf: bad owner or permissions"));

	/* ~/.ssh/config itself is checked too, as ssh does */
	home_put(h, "conf.d/10-db.conf", "include/conf.d/10-db.conf", 0600);
	home_put(h, "config", "include/config", 0620);
	assert_null(ssh_config_load_files(NULL, NULL, err, sizeof err));
	assert_non_null(strstr(err, "/.ssh/config: bad owner or permissions"));
}

static void test_include_loops_are_bounded(void **state)
{
	home *h = *state;
	char err[512] = "";
	char path[256];

	home_put(h, "loop.conf", "loop.conf", 0600);
	snprintf(path, sizeof path, "%s/.ssh/loop.conf", h->dir);
	assert_null(ssh_config_load(path, err, sizeof err));
	assert_non_null(strstr(err, "loop.conf:1:9: Include nested more than 16 deep"));

	/* no loop, just fan-out: 8 levels of 3 files, each including all of the
	 * next level, is 3^8 reads without a budget on files */
	for (int level = 1; level <= 8; level++) {
		char dir[16], rel[32], text[64];
		snprintf(dir, sizeof dir, "d%d", level);
		home_mkdir(h, dir);
		for (int k = 0; k < 3; k++) {
			snprintf(rel, sizeof rel, "d%d/%c.conf", level, 'a' + k);
			snprintf(text, sizeof text, "Include d%d/*.conf\n", level + 1);
			home_write(h, rel, text);
		}
	}
	snprintf(path, sizeof path, "%s/.ssh/d1/a.conf", h->dir);
	assert_null(ssh_config_load(path, err, sizeof err));
	if (!strstr(err, "more than 256 configuration files read")) {
		fail_msg("got \"%s\"", err);
	}
}

/* ------------------------------------------------------ which files load */

static void test_which_files(void **state)
{
	(void)state; /* uses the empty private $HOME set up for it */
	char err[512] = "";
	ssh_config *cfg;
	ssh_host_options o;

	/* no ~/.ssh/config: an empty configuration, not an error */
	cfg = ssh_config_load_files(NULL, NULL, err, sizeof err);
	assert_non_null(cfg);
	ssh_config_resolve(cfg, "x", &o);
	assert_int_equal(o.port, SSH_OPTION_UNSET);
	ssh_config_free(cfg);

	/* an explicit file (-F) must exist */
	assert_null(ssh_config_load("/nonexistent/ssh_config", err, sizeof err));
	assert_string_equal(err, "/nonexistent/ssh_config: No such file or directory");
	assert_null(ssh_config_load("/", err, sizeof err));
	assert_string_equal(err, "/: is a directory");

	/* -F none: nothing at all */
	cfg = ssh_config_load("none", err, sizeof err);
	assert_non_null(cfg);
	assert_int_equal(ssh_config_warning_count(cfg), 0);
	ssh_config_free(cfg);

	/* the user file is read before the system file */
	cfg = ssh_config_load_files(fixture_path("user-for-system.conf"),
				    fixture_path("system.conf"), err, sizeof err);
	if (!cfg) {
		fail_msg("%s", err);
	}
	ssh_config_resolve(cfg, "a", &o);
	assert_int_equal(o.port, 22);
	assert_string_equal(o.user, "sysuser");
	assert_int_equal(o.strict_host_key_checking, SSH_STRICT_NO);
	ssh_config_resolve(cfg, "b", &o);
	assert_int_equal(o.port, 2222);
	ssh_config_free(cfg);

	/* a missing system file is fine */
	cfg = ssh_config_load_files("none", "/nonexistent/ssh_config", err, sizeof err);
	assert_non_null(cfg);
	ssh_config_free(cfg);

	/* no HOME: ~/.ssh/config cannot be found; said, not fatal */
	unsetenv("HOME");
	cfg = ssh_config_load_files(NULL, NULL, err, sizeof err);
	assert_non_null(cfg);
	assert_true(has_warning(cfg, "HOME is not set"));
	ssh_config_free(cfg);
}

/* ---------------------------------------------------------------- errors */

static void test_syntax_errors_name_file_line_column(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		const char *want; /* after the directory */
	} cases[] = {
		{"bad-missing-value.conf", "bad-missing-value.conf:2:7: missing value for Port"},
		{"bad-comment-value.conf", "bad-comment-value.conf:1:6: missing value for Port"},
		{"bad-port.conf", "bad-port.conf:2:7: bad port '70000' (1-65535)"},
		{"bad-yesno.conf",
		 "bad-yesno.conf:2:20: bad value 'maybe' for IdentitiesOnly (yes or no)"},
		{"bad-quote.conf", "bad-quote.conf:2:18: unterminated double quote"},
		{"bad-time.conf", "bad-time.conf:2:16: bad time '10x' for ConnectTimeout"},
		{"bad-extra.conf", "bad-extra.conf:1:9: Port takes one value; unexpected '23'"},
		{"bad-strict.conf",
		 "bad-strict.conf:2:25: bad value 'sometimes' for StrictHostKeyChecking"},
		{"bad-hostname-token.conf",
		 "bad-hostname-token.conf:2:11: HostName accepts only the tokens %h and %%"},
		{"bad-control.conf", "bad-control.conf:2:9: control character \\x01"},
		{"bad-keyword.conf", "bad-keyword.conf:2:3: missing keyword before '='"},
		{"bad-empty-pattern.conf", "bad-empty-pattern.conf:1:9: empty Host pattern"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[512] = "";
		char want[512];
		setenv("HOME", HOME, 1);
		assert_null(ssh_config_load(fixture_path(cases[i].file), err, sizeof err));
		snprintf(want, sizeof want, "%s", fixture_path(cases[i].want));
		if (strncmp(err, want, strlen(want)) != 0) {
			fail_msg("got \"%s\", want \"%s...\"", err, want);
		}
	}

	/* ~ in an Include of the system file is refused, as ssh does */
	char err[512] = "";
	assert_null(ssh_config_load_files("none", fixture_path("bad-system-include.conf"), err,
					  sizeof err));
	assert_non_null(strstr(err, "bad-system-include.conf:1:9: Include path ~/.ssh/x.conf: "
				    "~ is not allowed in the system file"));
}

/* Values quoted in errors and warnings show bidi controls and other hidden
 * characters as \xNN instead of passing them to the terminal. */
static void test_messages_show_hidden_characters(void **state)
{
	(void)state;
	char err[512] = "";
	char want[512];
	setenv("HOME", HOME, 1);
	assert_null(ssh_config_load(fixture_path("bad-bidi-port.conf"), err, sizeof err));
	snprintf(want, sizeof want, "%s", fixture_path("bad-bidi-port.conf:2:8: bad port '2\\xe2\\x80\\xae2'"));
	if (strncmp(err, want, strlen(want)) != 0) {
		fail_msg("got \"%s\", want \"%s...\"", err, want);
	}

	ssh_config *cfg = load_fixture("warn-bidi-identity.conf");
	assert_true(has_warning(cfg, "IdentityFile %C/\\xe2\\x80\\xaeid ignored"));
	for (size_t i = 0; i < ssh_config_warning_count(cfg); i++) {
		for (const char *p = ssh_config_warning(cfg, i); *p; p++) {
			assert_true((unsigned char)*p < 0x80);
		}
	}
	ssh_config_free(cfg);
}

static void test_garbage_never_breaks_it(void **state)
{
	(void)state;
	static const char *const words[] = {
		"Host ", "Match ", "Include ", "HostName ", "Port ", "IdentityFile ", "User ",
		"=", "\"", "'", "\\", "#", "%h", "%", "*", "!", " ", "\t", "\n", "\r\n", "22",
		"yes", "none", "~/", "1m", "\001", "x",
	};
	char path[] = "/tmp/synctop-garbage-XXXXXX";
	int fd = mkstemp(path);
	uint32_t seed = 4242;

	assert_true(fd >= 0);
	close(fd);
	setenv("HOME", HOME, 1);
	for (int round = 0; round < 400; round++) {
		FILE *f = fopen(path, "wb");
		char err[512] = "";
		assert_non_null(f);
		for (int k = 0; k < 60; k++) {
			seed = seed * 1103515245u + 12345u;
			fputs(words[(seed >> 16) % (sizeof words / sizeof words[0])], f);
		}
		fclose(f);
		ssh_config *cfg = ssh_config_load(path, err, sizeof err);
		if (cfg) {
			ssh_host_options o;
			ssh_config_resolve(cfg, "x", &o);
			assert_true(o.identity_count >= 0 && o.identity_count <= SSH_IDENTITY_MAX);
			assert_true(o.port == SSH_OPTION_UNSET || (o.port >= 1 && o.port <= 65535));
			ssh_config_free(cfg);
		} else {
			/* every refusal names the file and a line */
			assert_int_equal(strncmp(err, path, strlen(path)), 0);
			assert_true(err[strlen(path)] == ':');
		}
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_value_wins),
		cmocka_unit_test(test_negation_and_wildcards),
		cmocka_unit_test(test_keys_any_case_patterns_exact_case),
		cmocka_unit_test(test_match_exec_block_that_cannot_apply),
		cmocka_unit_test(test_limits_and_known_hosts_none),
		cmocka_unit_test(test_null_config_and_host),
		cmocka_unit_test_setup_teardown(test_include, home_setup, home_teardown),
		cmocka_unit_test_setup_teardown(test_include_permissions, home_setup, home_teardown),
		cmocka_unit_test_setup_teardown(test_include_loops_are_bounded, home_setup, home_teardown),
		cmocka_unit_test_setup_teardown(test_which_files, home_setup, home_teardown),
		cmocka_unit_test(test_syntax_errors_name_file_line_column),
		cmocka_unit_test(test_messages_show_hidden_characters),
		cmocka_unit_test(test_garbage_never_breaks_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
