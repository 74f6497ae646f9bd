/* test_ssh_config_match.c - Match blocks, tokens, HostKeyAlias, and the keys
 * synctop cannot honour (an error for the hosts they apply to, nothing for
 * the others; authentication keys only noted).
 *
 * The Match and token expectations were checked with `ssh -G -F FILE HOST`
 * from OpenSSH 9.2p1 (Debian 12), with the local user set to tester. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ssh_config.h"
#include "ssh_match.h"
#include "ssh_unsupported.h"

#define HOME "/home/tester"

/* Load text as the -F file (/tmp/synctop-match-XXXXXX, removed at once);
 * its name is left in path for messages. */
static ssh_config *load_text(const char *text, char *path, size_t path_len)
{
	char err[512] = "";
	setenv("HOME", HOME, 1);
	setenv("USER", "tester", 1);
	snprintf(path, path_len, "/tmp/synctop-match-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t len = strlen(text);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	ssh_config *cfg = ssh_config_load(path, err, sizeof err);
	unlink(path);
	if (!cfg) {
		fail_msg("%s", err);
	}
	return cfg;
}

/* The error load_text's file gets, "" when it loads. */
static void load_error(const char *text, char *err, size_t err_len)
{
	char path[64];
	snprintf(path, sizeof path, "/tmp/synctop-match-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t len = strlen(text);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	err[0] = '\0';
	ssh_config *cfg = ssh_config_load(path, err, err_len);
	unlink(path);
	ssh_config_free(cfg);
}

static void resolve(const ssh_config *cfg, const char *host, const char *user, ssh_host_options *o)
{
	ssh_config_query q = {.host = host, .user = user};
	ssh_config_resolve_query(cfg, &q, o);
}

/* ------------------------------------------------------------ patterns */

static void test_pattern_lists(void **state)
{
	(void)state;
	assert_true(ssh_match_pattern("gpu01", "gpu*"));
	assert_true(ssh_match_pattern("gpu01", "gpu?1"));
	assert_false(ssh_match_pattern("GPU01", "gpu*")); /* case-sensitive */
	assert_false(ssh_match_pattern("gpu011", "gpu??"));
	assert_int_equal(ssh_match_pattern_list("a.example", "*.example,!bad.example", false), 1);
	assert_int_equal(ssh_match_pattern_list("bad.example", "*.example,!bad.example", false), -1);
	assert_int_equal(ssh_match_pattern_list("other", "*.example,!bad.example", false), 0);
	/* a negation alone never makes a match */
	assert_int_equal(ssh_match_pattern_list("x", "!y", false), 0);
	/* host names compare in lower case, patterns too */
	assert_int_equal(ssh_match_pattern_list("Node1", "NODE*", true), 1);
	assert_int_equal(ssh_match_pattern_list("Node1", "NODE*", false), 0);
}

static ssh_match_result eval(const char *line, const ssh_match_context *ctx, bool *final,
			     const char **what)
{
	char buf[256], *argv[16];
	int argc = 0;
	snprintf(buf, sizeof buf, "%s", line);
	for (char *t = strtok(buf, " "); t && argc < 16; t = strtok(NULL, " ")) {
		argv[argc++] = t;
	}
	int bad;
	char why[128];
	assert_int_equal(ssh_match_check(argc, argv, &bad, why, sizeof why), 0);
	return ssh_match_eval(argc, argv, ctx, final, what);
}

static void test_criteria(void **state)
{
	(void)state;
	ssh_match_context ctx = {
		.host = "real1.example",
		.original_host = "alias1",
		.user = "admin",
		.local_user = "tester",
	};
	bool final = false;
	const char *what;
	assert_int_equal(eval("all", &ctx, &final, &what), SSH_MATCH_YES);
	assert_int_equal(eval("!all", &ctx, &final, &what), SSH_MATCH_NO);
	assert_int_equal(eval("host real1.*", &ctx, &final, &what), SSH_MATCH_YES);
	assert_int_equal(eval("host alias1", &ctx, &final, &what), SSH_MATCH_NO);
	assert_int_equal(eval("originalhost alias1", &ctx, &final, &what), SSH_MATCH_YES);
	assert_int_equal(eval("!originalhost alias1", &ctx, &final, &what), SSH_MATCH_NO);
	assert_int_equal(eval("host=REAL1.EXAMPLE", &ctx, &final, &what), SSH_MATCH_YES);
	assert_int_equal(eval("user adm*,root", &ctx, &final, &what), SSH_MATCH_YES);
	assert_int_equal(eval("user ADMIN", &ctx, &final, &what), SSH_MATCH_NO); /* exact case */
	assert_int_equal(eval("user *,!admin", &ctx, &final, &what), SSH_MATCH_NO);
	assert_int_equal(eval("localuser tester", &ctx, &final, &what), SSH_MATCH_YES);
	assert_int_equal(eval("!localuser tester", &ctx, &final, &what), SSH_MATCH_NO);
	/* ANDed */
	assert_int_equal(eval("host real1.example user admin", &ctx, &final, &what),
			 SSH_MATCH_YES);
	assert_int_equal(eval("host real1.example user root", &ctx, &final, &what), SSH_MATCH_NO);
	assert_int_equal(eval("host real1.example all", &ctx, &final, &what), SSH_MATCH_YES);
	/* canonical and final are true only in the final pass */
	assert_false(final);
	assert_int_equal(eval("canonical", &ctx, &final, &what), SSH_MATCH_NO);
	assert_false(final);
	assert_int_equal(eval("final", &ctx, &final, &what), SSH_MATCH_NO);
	assert_true(final);
	final = false;
	assert_int_equal(eval("!final", &ctx, &final, &what), SSH_MATCH_YES);
	assert_false(final); /* a negated final asks for no second pass */
	ctx.final_pass = true;
	assert_int_equal(eval("canonical", &ctx, &final, &what), SSH_MATCH_YES);
	assert_int_equal(eval("final", &ctx, &final, &what), SSH_MATCH_YES);
	ctx.final_pass = false;
	/* what synctop does not evaluate is unknown, unless ruled out */
	assert_int_equal(eval("exec true", &ctx, &final, &what), SSH_MATCH_UNKNOWN);
	assert_string_equal(what, "exec");
	assert_int_equal(eval("!exec true", &ctx, &final, &what), SSH_MATCH_UNKNOWN);
	assert_int_equal(eval("host other exec true", &ctx, &final, &what), SSH_MATCH_NO);
	assert_null(what);
	assert_int_equal(eval("exec true host other", &ctx, &final, &what), SSH_MATCH_NO);
	assert_int_equal(eval("localnetwork 10.0.0.0/8", &ctx, &final, &what), SSH_MATCH_UNKNOWN);
	assert_string_equal(what, "localnetwork");
	assert_int_equal(eval("tagged x", &ctx, &final, &what), SSH_MATCH_UNKNOWN);
	assert_int_equal(eval("exec true !all", &ctx, &final, &what), SSH_MATCH_NO);
}

static void test_bad_match_lines(void **state)
{
	(void)state;
	char err[512];
	load_error("Match bogus x\n", err, sizeof err);
	assert_non_null(strstr(err, ":1:7: unsupported Match criterion 'bogus'"));
	load_error("Match host\n", err, sizeof err);
	assert_non_null(strstr(err, ":1:7: missing argument for Match 'host'"));
	load_error("Match all host x\n", err, sizeof err);
	assert_non_null(strstr(err, "'all' cannot be combined"));
	load_error("Match user a host b all\n", err, sizeof err);
	assert_non_null(strstr(err, "'all' cannot be combined"));
	load_error("Match host=\n", err, sizeof err);
	assert_non_null(strstr(err, "empty argument for Match 'host='"));
	load_error("Match tagged=\n  Port 1\n", err, sizeof err);
	assert_string_equal(err, ""); /* tagged and command may be empty */
	load_error("CanonicalizeHostname perhaps\n", err, sizeof err);
	assert_non_null(strstr(err, ":1:22: bad value 'perhaps' for CanonicalizeHostname"));
	/* a command is the rest of the line, unbalanced quotes and all, as ssh
	 * reads it */
	load_error("ProxyCommand sh -c \"nc %h %p\n", err, sizeof err);
	assert_string_equal(err, "");
}

/* ------------------------------------------------------- Match in files */

static const char match_conf[] =
	"Host alias1\n"
	"    HostName Real1.Example\n"
	"Match host real1.example\n"
	"    Port 2001\n"
	"Match originalhost alias1\n"
	"    User orig\n"
	"Match host alias1\n"
	"    IdentityFile /k/never\n"
	"Match host \"*.example,!bad.example\" user orig\n"
	"    ConnectTimeout 11\n"
	"Match !host db* localuser tester\n"
	"    ServerAliveInterval 9\n"
	"Match user=admin\n"
	"    IdentitiesOnly yes\n"
	"Host tok*\n"
	"    HostName %h.tok.example\n"
	"    IdentityFile /k/%h_%p_%r_%n_%k_%%\n"
	"    HostKeyAlias Tok-Alias\n"
	"    Port 2222\n";

static void test_match_in_files(void **state)
{
	(void)state;
	char path[64];
	ssh_config *cfg = load_text(match_conf, path, sizeof path);
	ssh_host_options o;

	/* "Match host" sees the HostName obtained so far, %h expanded;
	 * originalhost the name typed; user the User obtained so far */
	resolve(cfg, "alias1", NULL, &o);
	assert_string_equal(o.hostname, "real1.example"); /* lowercased, as ssh does */
	assert_int_equal(o.port, 2001);
	assert_string_equal(o.user, "orig");
	assert_int_equal(o.connect_timeout, 11);
	assert_int_equal(o.server_alive_interval, 9);
	assert_int_equal(o.identity_count, 0); /* not /k/never */
	assert_int_equal(o.identities_only, SSH_OPTION_UNSET);
	assert_string_equal(o.error, "");

	resolve(cfg, "db1", NULL, &o);
	assert_int_equal(o.port, SSH_OPTION_UNSET);
	assert_string_equal(o.user, "");
	assert_int_equal(o.server_alive_interval, SSH_OPTION_UNSET); /* !host db* */

	/* the command line's user is known before the files are read */
	resolve(cfg, "x", "admin", &o);
	assert_int_equal(o.identities_only, 1);
	resolve(cfg, "x", NULL, &o);
	assert_int_equal(o.identities_only, SSH_OPTION_UNSET);

	/* tokens: HostName %h; IdentityFile %h %p %r %n %k %%; the alias is
	 * lowercased as ssh does */
	resolve(cfg, "tok1", NULL, &o);
	assert_string_equal(o.hostname, "tok1.tok.example");
	assert_string_equal(o.host_key_alias, "tok-alias");
	assert_int_equal(o.identity_count, 1);
	assert_string_equal(o.identity_file[0], "/k/tok1.tok.example_2222_tester_tok1_tok-alias_%");
	/* %p and %r are the command line's when it gives them */
	ssh_config_query q = {.host = "tok1", .user = "ops", .port = 2022};
	ssh_config_resolve_query(cfg, &q, &o);
	assert_string_equal(o.identity_file[0], "/k/tok1.tok.example_2022_ops_tok1_tok-alias_%");
	ssh_config_free(cfg);
}

static void test_match_final_second_pass(void **state)
{
	(void)state;
	char path[64];
	/* ssh -G: alias1 gets User fin (the final pass sees the final host
	 * name) and ConnectTimeout 33; "Match host alias1" never applies */
	ssh_config *cfg = load_text("Host alias1\n"
				    "    HostName Real1.Example\n"
				    "Match host alias1\n"
				    "    User never\n"
				    "Match final host real1.example\n"
				    "    User fin\n"
				    "Match canonical\n"
				    "    ConnectTimeout 33\n"
				    "Host real1.example\n"
				    "    Port 2002\n",
				    path, sizeof path);
	ssh_host_options o;
	resolve(cfg, "alias1", NULL, &o);
	assert_string_equal(o.user, "fin");
	assert_int_equal(o.connect_timeout, 33);
	/* in the final pass Host lines see the final (lowercased) name too */
	assert_int_equal(o.port, 2002);
	resolve(cfg, "other", NULL, &o);
	assert_string_equal(o.user, "");
	assert_int_equal(o.connect_timeout, 33);
	assert_int_equal(o.port, SSH_OPTION_UNSET);
	ssh_config_free(cfg);

	/* HostName is not obtained in the final pass: ssh set it before */
	cfg = load_text("Match final\n  HostName late.example\n", path, sizeof path);
	resolve(cfg, "foo", NULL, &o);
	assert_string_equal(o.hostname, "");
	ssh_config_free(cfg);
	/* %h is the lowercased host name, unless it is an address */
	cfg = load_text("Host *\n  IdentityFile /k/%h\n", path, sizeof path);
	resolve(cfg, "Node1", NULL, &o);
	assert_string_equal(o.identity_file[0], "/k/node1");
	resolve(cfg, "fe80::A%eth0", NULL, &o);
	assert_string_equal(o.identity_file[0], "/k/fe80::A%eth0");
	ssh_config_free(cfg);

	/* without a "final" criterion there is no second pass */
	cfg = load_text("Match canonical\n    ConnectTimeout 33\n", path, sizeof path);
	resolve(cfg, "other", NULL, &o);
	assert_int_equal(o.connect_timeout, SSH_OPTION_UNSET);
	ssh_config_free(cfg);
}

/* ---------------------------------------------- keys synctop cannot honour */

/* Resolve host in text: its error ("" if none). */
static void error_for(const char *text, const char *host, char *err, size_t err_len,
		      char *path, size_t path_len)
{
	ssh_config *cfg = load_text(text, path, path_len);
	ssh_host_options o;
	resolve(cfg, host, NULL, &o);
	snprintf(err, err_len, "%s", o.error);
	ssh_config_free(cfg);
}

static void test_route_keys_are_errors_where_they_apply(void **state)
{
	(void)state;
	char err[SSH_ERROR_LEN], path[64], want[320];
	static const struct {
		const char *text;
		const char *key;
		unsigned line;
	} cases[] = {
		{"Host node*\n    ProxyCommand ssh -W %h:%p bastion\n", "ProxyCommand", 2},
		{"Host node*\n    ProxyJump bastion:0\n", "ProxyJump", 2}, /* a bad value */
		{"Host *\n  CanonicalizeHostname yes\n", "CanonicalizeHostname", 2},
		{"Host *\n  CanonicalizeHostname always\n", "CanonicalizeHostname", 2},
		{"Host *\n  CanonicalizePermittedCNAMEs *.a:*.b\n", "CanonicalizePermittedCNAMEs", 2},
		{"Host *\n  RemoteCommand tmux attach\n", "RemoteCommand", 2},
		{"Host *\n  BindAddress 10.0.0.1\n", "BindAddress", 2},
		{"Host *\n  BindInterface eth1\n", "BindInterface", 2},
		{"Host *\n  KnownHostsCommand /bin/kh %H\n", "KnownHostsCommand", 2},
		{"Host *\n  RevokedHostKeys /etc/ssh/revoked\n", "RevokedHostKeys", 2},
		{"Match originalhost node1\n  ProxyCommand nc %h %p\n", "ProxyCommand", 2},
		{"Match user tester\n  ProxyJump b,,c\n", "ProxyJump", 2},
		{"Host *\n  User %u\n", "User", 2},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		error_for(cases[i].text, "node1", err, sizeof err, path, sizeof path);
		snprintf(want, sizeof want, "%s:%u: %s", path, cases[i].line, cases[i].key);
		if (strncmp(err, want, strlen(want)) != 0) {
			fail_msg("case %zu: want \"%s...\", got \"%s\"", i, want, err);
		}
		assert_non_null(strstr(err, "node1"));
	}
	/* ProxyCommand's advice is the one kept in ssh_unsupported.h */
	error_for("Host *\n  ProxyCommand nc %h %p\n", "node1", err, sizeof err, path, sizeof path);
	assert_non_null(strstr(err, SSH_UNSUPPORTED_ROUTE_FIX));
}

/* ProxyJump is followed: no error, the value and its line are kept; the
 * first obtained wins (ProxyCommand included), and -J beats the files. */
static void test_proxy_jump_is_followed(void **state)
{
	(void)state;
	char path[64];
	ssh_host_options o;
	ssh_config *cfg = load_text("Host node1\n  ProxyJump ops@gw:2222,gw2 # the login node\n"
				    "Host *\n  ProxyCommand nc %h %p\n  ProxyJump other\n",
				    path, sizeof path);
	resolve(cfg, "node1", NULL, &o);
	assert_string_equal(o.error, "");
	assert_string_equal(o.proxy_jump, "ops@gw:2222,gw2 # the login node");
	char at[128];
	snprintf(at, sizeof at, "%s:2", path);
	assert_string_equal(o.proxy_jump_at, at);
	/* node2 gets the ProxyCommand first: an error, as before */
	resolve(cfg, "node2", NULL, &o);
	assert_non_null(strstr(o.error, "ProxyCommand"));
	/* -J: neither line in the files applies */
	ssh_config_query q = {.host = "node2", .jump = "j1,j2"};
	ssh_config_resolve_query(cfg, &q, &o);
	assert_string_equal(o.error, "");
	assert_string_equal(o.proxy_jump, "j1,j2");
	assert_string_equal(o.proxy_jump_at, "-J");
	ssh_config_free(cfg);

	cfg = load_text("Host node1\n  ProxyJump none\nHost *\n  ProxyJump gw\n", path, sizeof path);
	resolve(cfg, "node1", NULL, &o);
	assert_string_equal(o.error, "");
	assert_string_equal(o.proxy_jump, "");
	resolve(cfg, "gw", NULL, &o);
	/* "Host *" reaches the jump host too: the inventory refuses the loop, as
	 * ssh.c:main does ("jumphost loop via gw") */
	assert_string_equal(o.proxy_jump, "gw");
	ssh_config_free(cfg);
}

static void test_route_keys_that_do_not_apply(void **state)
{
	(void)state;
	char err[SSH_ERROR_LEN], path[64];
	static const char *const texts[] = {
		/* a block for other hosts */
		"Host bastion\n    ProxyCommand ssh -W %h:%p gw\n",
		"Match host other*\n    ProxyJump bastion\n",
		"Match !originalhost node*\n    ProxyJump bastion\n",
		"Match user root\n    ProxyJump bastion\n",
		"Host node1\n    HostName n1.example\nMatch host node1\n    ProxyJump b\n",
		/* "none" obtained first wins */
		"Host node1\n    ProxyCommand none\nHost *\n    ProxyCommand nc %h %p\n",
		"Host node1\n    ProxyJump none\nHost *\n    ProxyJump bastion\n",
		"Host *\n    RemoteCommand none\n    RevokedHostKeys none\n",
		"Host *\n  CanonicalizeHostname no\nHost *\n  CanonicalizeHostname yes\n",
		/* a Match synctop cannot evaluate, ruled out by one it can */
		"Match host other exec \"test -e /x\"\n    ProxyCommand nc %h %p\n",
		/* ... or too late to change anything: HostName was obtained */
		"Host *\n  HostName n.example\nMatch exec true\n  HostName elsewhere\n",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		error_for(texts[i], "node1", err, sizeof err, path, sizeof path);
		if (err[0] != '\0') {
			fail_msg("case %zu: unexpected error \"%s\"", i, err);
		}
	}
}

static void test_unevaluated_match(void **state)
{
	(void)state;
	char err[SSH_ERROR_LEN], path[64], want[320];
	error_for("Host *\n  Port 2\nMatch exec \"test -e ~/.vpn\"\n  ProxyJump bastion\n", "node1",
		  err, sizeof err, path, sizeof path);
	snprintf(want, sizeof want, "%s:3: synctop does not evaluate 'Match exec', and that block "
		 "sets ProxyJump (%s:4)", path, path);
	assert_non_null(strstr(err, want));
	error_for("Match localnetwork 10.0.0.0/8\n  HostName gw-side\n", "node1", err, sizeof err,
		  path, sizeof path);
	assert_non_null(strstr(err, "'Match localnetwork'"));
	assert_non_null(strstr(err, "sets HostName"));
	/* a User there cannot matter when the command line gives the user */
	ssh_config *c2 = load_text("Match exec true\n  User other\n", path, sizeof path);
	ssh_host_options o2;
	resolve(c2, "node1", NULL, &o2);
	assert_non_null(strstr(o2.error, "sets User"));
	resolve(c2, "node1", "ops", &o2);
	assert_string_equal(o2.error, "");
	ssh_config_free(c2);
	ssh_config *cfg;
	ssh_host_options o;
	/* a line that does not decide the route is left out, with a warning */
	cfg = load_text("Match exec true\n  IdentityFile /k/maybe\n  ConnectTimeout 3\n", path,
			sizeof path);
	resolve(cfg, "node1", NULL, &o);
	assert_string_equal(o.error, "");
	assert_int_equal(o.identity_count, 0);
	assert_int_equal(o.connect_timeout, SSH_OPTION_UNSET);
	assert_non_null(strstr(o.warning, "synctop does not evaluate 'Match exec': the "
					  "IdentityFile line at"));
	ssh_config_free(cfg);
}

/* ------------------------------------------------ authentication keys */

static void test_auth_keys_are_noted_not_refused(void **state)
{
	(void)state;
	char path[64];
	ssh_config *cfg = load_text("Host *\n"
				    "  GSSAPIAuthentication yes\n"
				    "  CertificateFile ~/.ssh/id_ed25519-cert.pub\n"
				    "  PKCS11Provider /usr/lib/opensc-pkcs11.so\n"
				    "  IdentityAgent SSH_AUTH_SOCK\n"
				    "Host plain\n",
				    path, sizeof path);
	ssh_host_options o;
	char want[320];
	resolve(cfg, "node1", NULL, &o);
	assert_string_equal(o.error, "");
	snprintf(want, sizeof want, "GSSAPIAuthentication yes (%s:2)", path);
	assert_string_equal(o.auth_gssapi, want);
	snprintf(want, sizeof want, "CertificateFile (%s:3), PKCS11Provider (%s:4)", path, path);
	assert_string_equal(o.auth_unsupported, want);
	ssh_config_free(cfg);

	cfg = load_text("Host *\n  GSSAPIAuthentication no\n  GSSAPIAuthentication yes\n"
			"  SecurityKeyProvider internal\n", path, sizeof path);
	resolve(cfg, "node1", NULL, &o);
	assert_string_equal(o.auth_gssapi, ""); /* "no" came first */
	assert_string_equal(o.auth_unsupported, "");
	ssh_config_free(cfg);

	/* AddressFamily is ignored but said (the log): not an error */
	cfg = load_text("Host *\n  AddressFamily inet\n", path, sizeof path);
	resolve(cfg, "node1", NULL, &o);
	assert_string_equal(o.error, "");
	snprintf(want, sizeof want, "AddressFamily inet (%s:2)", path);
	assert_string_equal(o.ignored, want);
	ssh_config_free(cfg);
	cfg = load_text("Host *\n  AddressFamily any\n", path, sizeof path);
	resolve(cfg, "node1", NULL, &o);
	assert_string_equal(o.ignored, "");
	ssh_config_free(cfg);
}

/* Debian's stock /etc/ssh/ssh_config: Include of ssh_config.d, "Host *"
 * with SendEnv, HashKnownHosts and GSSAPIAuthentication yes.  OpenSSH falls
 * back to keys; so does synctop, with no error and no warning. */
static void check_debian_default(const char *system_path)
{
	char err[512] = "";
	setenv("HOME", HOME, 1);
	setenv("USER", "tester", 1);
	ssh_config *cfg = ssh_config_load_files("none", system_path, err, sizeof err);
	if (!cfg) {
		fail_msg("%s: %s", system_path, err);
	}
	assert_int_equal(ssh_config_warning_count(cfg), 0);
	ssh_host_options o;
	resolve(cfg, "node1", NULL, &o);
	assert_string_equal(o.error, "");
	assert_string_equal(o.warning, "");
	assert_non_null(strstr(o.auth_gssapi, "GSSAPIAuthentication yes"));
	ssh_config_free(cfg);
}

static void test_debian_default(void **state)
{
	(void)state;
	char path[4096];
	const char *dir = getenv("SYNCTOP_FIXTURES");
	snprintf(path, sizeof path, "%s/ssh_config/debian-stock.conf", dir ? dir : "tests/fixtures");
	check_debian_default(path);
	/* and this machine's own, when it is Debian's */
	FILE *f = fopen(SSH_CONFIG_SYSTEM_PATH, "r");
	if (f) {
		char line[256];
		bool gssapi = false;
		while (fgets(line, sizeof line, f)) {
			gssapi = gssapi || strncmp(line, "    GSSAPIAuthentication yes", 28) == 0;
		}
		fclose(f);
		if (gssapi) {
			check_debian_default(SSH_CONFIG_SYSTEM_PATH);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern_lists),
		cmocka_unit_test(test_criteria),
		cmocka_unit_test(test_bad_match_lines),
		cmocka_unit_test(test_match_in_files),
		cmocka_unit_test(test_match_final_second_pass),
		cmocka_unit_test(test_route_keys_are_errors_where_they_apply),
		cmocka_unit_test(test_route_keys_that_do_not_apply),
		cmocka_unit_test(test_proxy_jump_is_followed),
		cmocka_unit_test(test_unevaluated_match),
		cmocka_unit_test(test_auth_keys_are_noted_not_refused),
		cmocka_unit_test(test_debian_default),
	};
	return cmocka_run_group_tests_name("ssh_config_match", tests, NULL, NULL);
}
