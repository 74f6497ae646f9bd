/* test_ssh_config_inventory.c - what the inventory makes of ssh_config:
 * HostKeyAlias is the name known_hosts is asked about (without a port, as
 * sshconnect.c does), GlobalKnownHostsFile replaces the system files, and a
 * key synctop cannot honour refuses the run with file:line. */
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
#include <libssh2.h>

#include "base64.h"
#include "cli.h"
#include "conffile.h"
#include "inventory.h"

typedef struct {
	char dir[64];
	char path[3][128]; /* ssh_config, known_hosts, global known_hosts */
	unsigned char key[1024];
	size_t key_len;
	char key_b64[1024];
} lab;

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void lab_make(lab *l)
{
	char line[2048];
	const char *dir = getenv("SYNCTOP_FIXTURES");
	snprintf(line, sizeof line, "%s/known_hosts/node7_ed25519.pub", dir ? dir : "tests/fixtures");
	FILE *f = fopen(line, "r");
	assert_non_null(f);
	assert_non_null(fgets(line, sizeof line, f));
	fclose(f);
	/* "ssh-ed25519 BASE64 comment" */
	assert_int_equal(sscanf(line, "%*s %1023s", l->key_b64), 1);
	assert_true(base64_decode(l->key_b64, strlen(l->key_b64), l->key, sizeof l->key, &l->key_len));

	snprintf(l->dir, sizeof l->dir, "/tmp/synctop-inv-XXXXXX");
	assert_non_null(mkdtemp(l->dir));
	snprintf(l->path[0], sizeof l->path[0], "%s/ssh_config", l->dir);
	snprintf(l->path[1], sizeof l->path[1], "%s/known_hosts", l->dir);
	snprintf(l->path[2], sizeof l->path[2], "%s/global_known_hosts", l->dir);
}

static void lab_free(lab *l)
{
	for (int i = 0; i < 3; i++) {
		unlink(l->path[i]);
	}
	rmdir(l->dir);
}

static int build(const char *cfg_path, inventory *inv, char *err, size_t err_len, cli_options *opt)
{
	char a[7][256];
	const char *words[] = {"synctop", "--once", "-F", cfg_path, "node1", "node2", "node3"};
	char *argv[8];
	for (int i = 0; i < 7; i++) {
		snprintf(a[i], sizeof a[i], "%s", words[i]);
		argv[i] = a[i];
	}
	argv[7] = NULL;
	memset(opt, 0, sizeof *opt);
	assert_int_equal(cli_parse(7, argv, opt), CLI_CONTINUE);
	return inventory_build(opt, NULL, inv, err, err_len);
}

static int verify(inventory *inv, size_t i, const lab *l, char *msg, size_t msg_len)
{
	node_spec *s = &inv->specs[i];
	return inventory_verify_host_key(s, s->ssh.host, s->ssh.port, l->key, l->key_len, msg, msg_len);
}

static void test_host_key_alias_and_global_files(void **state)
{
	(void)state;
	lab l;
	char text[2048], err[1024] = "", msg[1024];
	lab_make(&l);
	/* the key is listed under the alias only (lower case: ssh lowercases
	 * HostKeyAlias), and for [127.0.0.1]:2201 in the global file only */
	snprintf(text, sizeof text, "lab-node ssh-ed25519 %s\n", l.key_b64);
	write_file(l.path[1], text);
	snprintf(text, sizeof text, "[127.0.0.1]:2201 ssh-ed25519 %s\n", l.key_b64);
	write_file(l.path[2], text);
	snprintf(text, sizeof text,
		 "Host node*\n"
		 "    HostName 127.0.0.1\n"
		 "    Port 2201\n"
		 "    UserKnownHostsFile %s\n"
		 "Host node1\n"
		 "    HostKeyAlias Lab-Node\n"
		 "Host node1 node2\n"
		 "    GlobalKnownHostsFile none\n"
		 "Host node3\n"
		 "    GlobalKnownHostsFile %s\n",
		 l.path[1], l.path[2]);
	write_file(l.path[0], text);

	cli_options opt;
	inventory inv;
	if (build(l.path[0], &inv, err, sizeof err, &opt) != 0) {
		fail_msg("%s", err);
	}
	assert_int_equal(inv.count, 3);
	/* node1: looked up as "lab-node", found */
	assert_string_equal(inv.specs[0].host_key_alias, "lab-node");
	assert_int_equal(verify(&inv, 0, &l, msg, sizeof msg), 0);
	assert_string_equal(inv.specs[0].ssh.hostkey_methods, "ssh-ed25519");
	/* node2: the same address without the alias is not known */
	assert_int_equal(verify(&inv, 1, &l, msg, sizeof msg), -1);
	assert_non_null(strstr(msg, "127.0.0.1"));
	assert_non_null(strstr(msg, "not known"));
	/* node3: known through its GlobalKnownHostsFile */
	assert_int_equal(verify(&inv, 2, &l, msg, sizeof msg), 0);
	inventory_free(&inv);
	cli_free(&opt);
	lab_free(&l);
}

static void test_refused_keys_stop_the_build(void **state)
{
	(void)state;
	lab l;
	char err[1024] = "";
	lab_make(&l);
	write_file(l.path[0], "Host node3\n    ProxyCommand nc %h %p\nHost node1 node2\n"
			      "    ProxyCommand ssh -W %h:%p gw\n");
	cli_options opt;
	inventory inv;
	assert_int_equal(build(l.path[0], &inv, err, sizeof err, &opt), -1);
	char want[256];
	snprintf(want, sizeof want, "%s:4: ProxyCommand applies to node1", l.path[0]);
	assert_non_null(strstr(err, want));
	/* node3's line is another line: not counted with this one */
	assert_non_null(strstr(err, "(the line applies to 2 of the nodes)"));
	cli_free(&opt);
	lab_free(&l);
}

static int build_argv(int argc, const char *const *words, const conffile *conf, inventory *inv, char *err,
		      size_t err_len, cli_options *opt)
{
	char a[16][256];
	char *argv[17];
	assert_true(argc <= 16);
	for (int i = 0; i < argc; i++) {
		snprintf(a[i], sizeof a[i], "%s", words[i]);
		argv[i] = a[i];
	}
	argv[argc] = NULL;
	memset(opt, 0, sizeof *opt);
	assert_int_equal(cli_parse(argc, argv, opt), CLI_CONTINUE);
	return inventory_build(opt, conf, inv, err, err_len);
}

/* With the system ssh client, the keys libssh2 cannot follow are OpenSSH's
 * to honour: no error, and the node keeps the name, user and port as
 * written (ssh resolves HostName itself). */
static void test_exec_transport_takes_route_keys(void **state)
{
	(void)state;
	lab l;
	char err[1024] = "";
	lab_make(&l);
	write_file(l.path[0], "Host node*\n    HostName 10.65.0.2\n    ProxyCommand ssh -W %h:%p gw\n"
			      "    CanonicalizeHostname yes\n");
	cli_options opt;
	inventory inv;
	const char *words[] = {"synctop", "--once", "--transport", "ssh", "-F", l.path[0], "ops@node1:2222", "node2"};
	if (build_argv(8, words, NULL, &inv, err, sizeof err, &opt) != 0) {
		fail_msg("%s", err);
	}
	assert_int_equal(inv.count, 2);
	assert_int_equal(inv.specs[0].settings.transport, NODE_TRANSPORT_SSH);
	assert_string_equal(inv.specs[0].target_host, "node1");
	assert_string_equal(inv.specs[0].target_user, "ops");
	assert_int_equal(inv.specs[0].target_port, 2222);
	assert_string_equal(inv.specs[1].target_host, "node2");
	assert_true(inventory_uses_exec(&inv));
	inventory_free(&inv);
	cli_free(&opt);

	/* the same file with the built-in client: refused, as before */
	const char *plain[] = {"synctop", "--once", "-F", l.path[0], "node1", "node2"};
	assert_int_equal(build_argv(6, plain, NULL, &inv, err, sizeof err, &opt), -1);
	assert_non_null(strstr(err, "ProxyCommand applies to node1"));
	assert_non_null(strstr(err, "--transport ssh"));
	cli_free(&opt);
	lab_free(&l);
}

/* cli_parse + inventory_build over a word list (NULL-terminated). */
static int build_words(const char *const *words, inventory *inv, char *err, size_t err_len, cli_options *opt)
{
	int argc = 0;
	while (words[argc]) {
		argc++;
	}
	return build_argv(argc, words, NULL, inv, err, err_len, opt);
}


/* ProxyJump is read as ssh reads it: each jump host under its own Host
 * block (user and port in the ProxyJump value win), the first hop's own
 * ProxyJump applies and a later hop's does not (ssh runs "ssh -J <earlier
 * hops> hop" for it), and the nodes' -l, -p and -i are not the jump
 * host's (ssh.c passes only -F and -v to it). */
static void test_proxy_jump_routes(void **state)
{
	(void)state;
	lab l;
	char text[2048], err[1024] = "";
	lab_make(&l);
	write_file(l.path[1], "");
	snprintf(text, sizeof text,
		 "Host node1\n"
		 "    ProxyJump ops@gw1:2201,gw2\n"
		 "Host node2\n"
		 "    ProxyJump gw2\n"
		 "Host node3\n"
		 "    ProxyJump none\n"
		 "Host gw2\n"
		 "    HostName 10.0.0.2\n"
		 "    User jumper\n"
		 "    ProxyJump gw0\n"
		 "Host gw1\n"
		 "    HostName 10.0.0.1\n"
		 "    User ignored\n"
		 "    Port 9999\n"
		 "    IdentityFile /tmp/gw1key\n"
		 "Host gw0\n"
		 "    HostName 10.0.0.9\n"
		 "Host * !everyone\n"
		 "    ProxyJump everyone\n"
		 "Host *\n"
		 "    UserKnownHostsFile %s\n",
		 l.path[1]);
	write_file(l.path[0], text);
	const char *words[] = {"synctop", "--once", "-F", l.path[0], "-l", "root", "-p", "2022", "-i", "/tmp/clikey",
			       "--jump-channels", "7", "node1", "node2", "node3", NULL};
	cli_options opt;
	inventory inv;
	if (build_words(words, &inv, err, sizeof err, &opt) != 0) {
		fail_msg("%s", err);
	}
	assert_int_equal(inv.count, 3);
	const ssh_options *n1 = &inv.specs[0].ssh, *n2 = &inv.specs[1].ssh, *n3 = &inv.specs[2].ssh;
	assert_string_equal(n1->user, "root");
	assert_int_equal(n1->port, 2022);
	/* node1: gw2 reached through gw1; gw2's own ProxyJump does not apply */
	const ssh_options *gw2 = n1->via;
	assert_non_null(gw2);
	assert_string_equal(gw2->host, "10.0.0.2");
	assert_string_equal(gw2->user, "jumper");
	assert_int_equal(gw2->port, 22);
	assert_string_equal(gw2->jump_label, "gw2");
	assert_int_equal(gw2->jump_channels, 7);
	const ssh_options *gw1 = gw2->via;
	assert_non_null(gw1);
	assert_string_equal(gw1->host, "10.0.0.1");
	assert_string_equal(gw1->user, "ops");
	assert_int_equal(gw1->port, 2201);
	assert_string_equal(gw1->jump_label, "ops@gw1:2201");
	assert_int_equal(gw1->n_identity_files, 1);
	assert_string_equal(gw1->identity_files[0], "/tmp/gw1key");
	/* gw1 is the first hop: its own ProxyJump ("Host *": everyone) applies */
	assert_non_null(gw1->via);
	assert_string_equal(gw1->via->jump_label, "everyone");
	/* node2: gw2 as the first hop, through its own ProxyJump gw0 */
	assert_non_null(n2->via);
	assert_true(n2->via != gw2);
	assert_string_equal(n2->via->host, "10.0.0.2");
	assert_non_null(n2->via->via);
	assert_string_equal(n2->via->via->host, "10.0.0.9");
	/* node3: "none" was obtained first */
	assert_null(n3->via);
	/* the jump host's own known_hosts lookup, with its own verify context */
	assert_non_null(gw2->verify_host_key);
	assert_non_null(gw2->verify_ctx);
	inventory_free(&inv);
	cli_free(&opt);

	/* -J beats every ProxyJump line, for every node */
	const char *words_j[] = {"synctop", "--once", "-F", l.path[0], "-J", "u@gwx:23", "node1", "node3", NULL};
	if (build_words(words_j, &inv, err, sizeof err, &opt) != 0) {
		fail_msg("%s", err);
	}
	for (size_t i = 0; i < inv.count; i++) {
		assert_non_null(inv.specs[i].ssh.via);
		assert_string_equal(inv.specs[i].ssh.via->jump_label, "u@gwx:23");
		assert_int_equal(inv.specs[i].ssh.via->port, 23);
	}
	assert_ptr_equal(inv.specs[0].ssh.via, inv.specs[1].ssh.via); /* one jump host, shared */
	inventory_free(&inv);
	cli_free(&opt);

	/* "Host *" + ProxyJump gw, polling gw itself: a loop, refused as ssh
	 * refuses it ("jumphost loop via gw") */
	write_file(l.path[0], "Host *\n    ProxyJump gw\n");
	const char *words_loop[] = {"synctop", "--once", "-F", l.path[0], "gw", NULL};
	assert_int_equal(build_words(words_loop, &inv, err, sizeof err, &opt), -1);
	assert_non_null(strstr(err, "loop"));
	assert_non_null(strstr(err, "Host * !gw"));
	cli_free(&opt);
	lab_free(&l);
}

/* The transport per group (--config): only the libssh2 nodes are held to
 * what libssh2 can do, and only they are counted under the line. */
static void test_transport_per_group(void **state)
{
	(void)state;
	lab l;
	char err[1024] = "";
	const char *json = "{\"groups\": [{\"name\": \"via ssh\", \"hosts\": \"node[1-2]\", \"transport\": \"ssh\"},"
			   " {\"name\": \"pods\", \"hosts\": \"pod1\", \"transport_cmd\": \"kubectl exec -i {host} -- sh\"}]}";
	conffile *cf = NULL;
	lab_make(&l);
	assert_int_equal(conffile_parse(json, strlen(json), "test.json", &cf, err, sizeof err), 0);
	write_file(l.path[0], "Host *\n    ProxyCommand ssh -W %h:%p gw\n");
	cli_options opt;
	inventory inv;
	const char *words[] = {"synctop", "--once", "-F", l.path[0], "node1", "node2", "pod1"};
	if (build_argv(7, words, cf, &inv, err, sizeof err, &opt) != 0) {
		fail_msg("%s", err);
	}
	assert_int_equal(inv.specs[0].settings.transport, NODE_TRANSPORT_SSH);
	assert_int_equal(inv.specs[2].settings.transport, NODE_TRANSPORT_CMD);
	assert_string_equal(inv.specs[2].settings.transport_cmd, "kubectl exec -i {host} -- sh");
	inventory_free(&inv);
	cli_free(&opt);
	/* node3 is not in a group: libssh2, refused, and counted alone */
	const char *more[] = {"synctop", "--once", "-F", l.path[0], "node1", "node3", "node2"};
	assert_int_equal(build_argv(7, more, cf, &inv, err, sizeof err, &opt), -1);
	assert_non_null(strstr(err, "ProxyCommand applies to node3"));
	assert_null(strstr(err, "of the nodes"));
	cli_free(&opt);
	/* the command line beats the file */
	const char *cli[] = {"synctop", "--once", "--transport", "libssh2", "-F", l.path[0], "node1"};
	assert_int_equal(build_argv(7, cli, cf, &inv, err, sizeof err, &opt), -1);
	assert_non_null(strstr(err, "ProxyCommand applies to node1"));
	cli_free(&opt);
	conffile_free(cf);
	lab_free(&l);
}

/* A --config group's "jump" is that group's -J: it beats the ssh config's
 * ProxyJump and ProxyCommand lines, "none" goes directly, and -J on the
 * command line beats it (ssh keeps the first value it obtains, and reads
 * its command line first). */
static void test_jump_per_group(void **state)
{
	(void)state;
	lab l;
	char text[1024], err[1024] = "";
	const char *json = "{\"defaults\": {\"jump\": \"ops@gwd:2200\"},"
			   " \"groups\": [{\"name\": \"lab\", \"hosts\": \"node[1-2]\", \"jump\": \"gwa,gwb\"},"
			   " {\"name\": \"mgmt\", \"hosts\": \"node3\", \"jump\": \"none\"},"
			   " {\"name\": \"loop\", \"hosts\": \"gwa\", \"jump\": \"gwa\"}]}";
	conffile *cf = NULL;
	lab_make(&l);
	write_file(l.path[1], "");
	assert_int_equal(conffile_parse(json, strlen(json), "test.json", &cf, err, sizeof err), 0);
	snprintf(text, sizeof text,
		 "Host node1\n    ProxyCommand ssh -W %%h:%%p elsewhere\n"
		 "Host node3\n    ProxyJump viassh\n"
		 "Host *\n    UserKnownHostsFile %s\n", l.path[1]);
	write_file(l.path[0], text);
	cli_options opt;
	inventory inv;
	const char *words[] = {"synctop", "--once", "-F", l.path[0], "node1", "node2", "node3", "node4"};
	if (build_argv(8, words, cf, &inv, err, sizeof err, &opt) != 0) {
		fail_msg("%s", err);
	}
	/* node1, node2: gwb reached through gwa, one jump host shared; node1's
	 * ProxyCommand line is not an error (as with ssh -J) */
	const ssh_options *n1 = &inv.specs[0].ssh;
	assert_non_null(n1->via);
	assert_string_equal(n1->via->jump_label, "gwb");
	assert_non_null(n1->via->via);
	assert_string_equal(n1->via->via->jump_label, "gwa");
	assert_ptr_equal(inv.specs[1].ssh.via, n1->via);
	/* node3: "none" beats its ProxyJump line */
	assert_null(inv.specs[2].ssh.via);
	/* node4, in no group: the defaults' */
	assert_non_null(inv.specs[3].ssh.via);
	assert_string_equal(inv.specs[3].ssh.via->jump_label, "ops@gwd:2200");
	assert_int_equal(inv.specs[3].ssh.via->port, 2200);
	assert_string_equal(inv.specs[3].settings.jump, "ops@gwd:2200");
	inventory_free(&inv);
	cli_free(&opt);

	/* -J beats every group's "jump", "none" included */
	const char *cli[] = {"synctop", "--once", "-J", "gwx", "-F", l.path[0], "node1", "node3"};
	if (build_argv(8, cli, cf, &inv, err, sizeof err, &opt) != 0) {
		fail_msg("%s", err);
	}
	for (size_t i = 0; i < inv.count; i++) {
		assert_non_null(inv.specs[i].ssh.via);
		assert_string_equal(inv.specs[i].ssh.via->jump_label, "gwx");
		assert_null(inv.specs[i].ssh.via->via);
		assert_string_equal(inv.specs[i].settings.jump, "gwx");
	}
	inventory_free(&inv);
	cli_free(&opt);

	/* a group whose jump host is itself: the loop names the config key */
	const char *loop[] = {"synctop", "--once", "-F", l.path[0], "gwa"};
	assert_int_equal(build_argv(5, loop, cf, &inv, err, sizeof err, &opt), -1);
	assert_non_null(strstr(err, "--config \"jump\": ProxyJump gwa applies to gwa itself"));
	cli_free(&opt);

	/* --transport ssh keeps the value for ssh's own -J (main.c) */
	const char *ssh[] = {"synctop", "--once", "--transport", "ssh", "-F", l.path[0], "node2", "node3"};
	if (build_argv(8, ssh, cf, &inv, err, sizeof err, &opt) != 0) {
		fail_msg("%s", err);
	}
	assert_string_equal(inv.specs[0].settings.jump, "gwa,gwb");
	assert_string_equal(inv.specs[1].settings.jump, "none");
	inventory_free(&inv);
	cli_free(&opt);
	conffile_free(cf);
	lab_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_key_alias_and_global_files),
		cmocka_unit_test(test_proxy_jump_routes),
		cmocka_unit_test(test_jump_per_group),
		cmocka_unit_test(test_refused_keys_stop_the_build),
		cmocka_unit_test(test_exec_transport_takes_route_keys),
		cmocka_unit_test(test_transport_per_group),
	};
	libssh2_init(0);
	int rc = cmocka_run_group_tests_name("ssh_config_inventory", tests, NULL, NULL);
	libssh2_exit();
	return rc;
}
