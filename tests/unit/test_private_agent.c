/* test_private_agent.c - telling encrypted key files from plain ones (keys
 * made by ssh-keygen, tests/fixtures/keys), reading their public halves, and
 * the private agent's life: started, loaded, matched, stopped and gone. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libssh2.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "log.h"
#include "private_agent.h"

#define PASSPHRASE "synctop-test-only" /* of the fixture keys; see tests/fixtures/keys/README.md */

static key_file_protection classify_fixture(const char *name)
{
	size_t len;
	char *text = fixture_read(name, &len);
	key_file_protection p = private_agent_classify(text, len);
	free(text);
	return p;
}

static void test_classifies_ssh_keygen_keys(void **state)
{
	(void)state;
	assert_int_equal(classify_fixture("keys/ed25519-plain"), KEY_FILE_PLAIN);
	assert_int_equal(classify_fixture("keys/ed25519-encrypted"), KEY_FILE_ENCRYPTED);
	assert_int_equal(classify_fixture("keys/ecdsa-encrypted"), KEY_FILE_ENCRYPTED);
	assert_int_equal(classify_fixture("keys/rsa-openssh-encrypted"), KEY_FILE_ENCRYPTED);
	assert_int_equal(classify_fixture("keys/rsa-pem-plain"), KEY_FILE_PLAIN);
	assert_int_equal(classify_fixture("keys/rsa-pem-encrypted"), KEY_FILE_ENCRYPTED);
	assert_int_equal(classify_fixture("keys/ecdsa-pem-encrypted"), KEY_FILE_ENCRYPTED);
	assert_int_equal(classify_fixture("keys/rsa-pkcs8-plain"), KEY_FILE_PLAIN);
	assert_int_equal(classify_fixture("keys/rsa-pkcs8-encrypted"), KEY_FILE_ENCRYPTED);
	/* a public key is no private key */
	assert_int_equal(classify_fixture("keys/ed25519-plain.pub"), KEY_FILE_UNKNOWN);
}

static void test_classify_hostile_input(void **state)
{
	(void)state;
	static const char *const cases[] = {
		"",
		"-----BEGIN ",
		"-----BEGIN OPENSSH PRIVATE KEY",
		"-----BEGIN OPENSSH PRIVATE KEY-----",
		"-----BEGIN OPENSSH PRIVATE KEY-----\n",
		"-----BEGIN OPENSSH PRIVATE KEY-----\n-----END OPENSSH PRIVATE KEY-----\n",
		/* "openssh-key-v1\0" then a cipher name claiming 4 GiB */
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA/////w==\n",
		/* the magic without its NUL */
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n",
		"-----BEGIN PUBLIC KEY-----\nMIIB\n",
		"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\n",
		"garbage\n\x01\x02\xff",
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(private_agent_classify(cases[i], strlen(cases[i])), KEY_FILE_UNKNOWN);
	}
	assert_int_equal(private_agent_classify(NULL, 0), KEY_FILE_UNKNOWN);

	/* "openssh-key-v1\0", cipher "none" (len 4): plain, even cut right after */
	static const char none[] = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n";
	assert_int_equal(private_agent_classify(none, strlen(none)), KEY_FILE_PLAIN);
	/* the same cut one byte short of the cipher name */
	static const char cut[] = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vb\n";
	assert_int_equal(private_agent_classify(cut, strlen(cut)), KEY_FILE_UNKNOWN);

	/* A PEM header "Proc-Type" without ENCRYPTED, and one after the body
	 * (not a header): both plain. */
	static const char pem_mic[] = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,MIC-ONLY\n\nMIIB\n";
	assert_int_equal(private_agent_classify(pem_mic, strlen(pem_mic)), KEY_FILE_PLAIN);
	static const char pem_late[] = "-----BEGIN RSA PRIVATE KEY-----\nMIIB\nProc-Type: 4,ENCRYPTED\n";
	assert_int_equal(private_agent_classify(pem_late, strlen(pem_late)), KEY_FILE_PLAIN);

	/* The length given is the end, even with more text after it. */
	size_t len;
	char *text = fixture_read("keys/rsa-pem-encrypted", &len);
	const char *hdr = strstr(text, "Proc-Type");
	assert_non_null(hdr);
	assert_int_equal(private_agent_classify(text, (size_t)(hdr - text)), KEY_FILE_PLAIN);
	free(text);
}

/* Every prefix, and byte flips, of real keys: never a crash, never a read
 * past the length (ASan watches a buffer sized exactly). */
static void test_classify_never_overreads(void **state)
{
	(void)state;
	static const char *const names[] = {"keys/ed25519-encrypted", "keys/rsa-pem-encrypted",
					    "keys/rsa-openssh-encrypted"};
	unsigned seed = 12345;
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		size_t len;
		char *text = fixture_read(names[k], &len);
		for (size_t cut = 0; cut <= len; cut++) {
			char *copy = malloc(cut ? cut : 1);
			assert_non_null(copy);
			memcpy(copy, text, cut);
			unsigned char blob[512];
			(void)private_agent_classify(copy, cut);
			(void)private_agent_key_public_blob(copy, cut, blob, sizeof blob);
			(void)private_agent_pub_line_blob(copy, cut, blob, sizeof blob);
			free(copy);
		}
		for (int round = 0; round < 2000; round++) {
			char *copy = malloc(len);
			assert_non_null(copy);
			memcpy(copy, text, len);
			for (int f = 0; f < 4; f++) {
				seed = seed * 1103515245u + 12345u;
				copy[(seed >> 8) % len] = (char)(seed >> 24);
			}
			unsigned char blob[4096];
			(void)private_agent_classify(copy, len);
			(void)private_agent_key_public_blob(copy, len, blob, sizeof blob);
			free(copy);
		}
		free(text);
	}
}

static size_t pub_blob(const char *name, unsigned char *blob, size_t cap)
{
	size_t len;
	char *text = fixture_read(name, &len);
	size_t n = private_agent_pub_line_blob(text, len, blob, cap);
	free(text);
	return n;
}

static void assert_key_blob_is_pub_blob(const char *key)
{
	char pub[128];
	unsigned char from_key[4096], from_pub[4096];
	size_t len;
	char *text = fixture_read(key, &len);
	size_t n = private_agent_key_public_blob(text, len, from_key, sizeof from_key);
	free(text);
	snprintf(pub, sizeof pub, "%s.pub", key);
	size_t m = pub_blob(pub, from_pub, sizeof from_pub);
	assert_true(n > 0);
	assert_int_equal(n, m);
	assert_memory_equal(from_key, from_pub, n);
}

static void test_public_blob_of_openssh_keys(void **state)
{
	(void)state;
	/* the public half is readable without the passphrase */
	assert_key_blob_is_pub_blob("keys/ed25519-encrypted");
	assert_key_blob_is_pub_blob("keys/ed25519-plain");
	assert_key_blob_is_pub_blob("keys/ecdsa-encrypted");
	assert_key_blob_is_pub_blob("keys/rsa-openssh-encrypted");

	unsigned char blob[4096];
	assert_int_equal(pub_blob("keys/ed25519-plain.pub", blob, sizeof blob), 51); /* 4+11+4+32 */
	assert_memory_equal(blob, "\0\0\0\x0bssh-ed25519", 15);

	/* PEM files keep no public half in the clear */
	size_t len;
	char *text = fixture_read("keys/rsa-pem-encrypted", &len);
	assert_int_equal(private_agent_key_public_blob(text, len, blob, sizeof blob), 0);
	free(text);
	/* too small a buffer: nothing, not a truncated blob */
	text = fixture_read("keys/ed25519-encrypted", &len);
	assert_int_equal(private_agent_key_public_blob(text, len, blob, 50), 0);
	assert_int_equal(private_agent_key_public_blob(text, len, blob, 51), 51);
	free(text);
}

static void test_pub_line_rejects_noise(void **state)
{
	(void)state;
	unsigned char blob[4096];
	size_t len;
	char *text = fixture_read("keys/ed25519-plain.pub", &len);
	const char *b64 = strchr(text, ' ') + 1;
	char line[512];

	/* the blob names another type than the line */
	snprintf(line, sizeof line, "ssh-rsa %s", b64);
	assert_int_equal(private_agent_pub_line_blob(line, strlen(line), blob, sizeof blob), 0);
	/* leading blanks and no comment are fine */
	snprintf(line, sizeof line, "  \tssh-ed25519 %.68s", b64);
	assert_int_equal(private_agent_pub_line_blob(line, strlen(line), blob, sizeof blob), 51);
	free(text);

	static const char *const bad[] = {"", "ssh-ed25519", "ssh-ed25519 ", "ssh-ed25519 !!!!", "  \n",
					  "ssh-ed25519 AAAA", "y AAAAAXg="};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(private_agent_pub_line_blob(bad[i], strlen(bad[i]), blob, sizeof blob), 0);
	}
	assert_int_equal(private_agent_pub_line_blob(NULL, 0, blob, sizeof blob), 0);
}

/* ------------------------------------------------------ the agent itself */

static char tmpdir[64];

static bool have_program(const char *name)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
	return system(cmd) == 0;
}

/* A fixture copied to the temp dir, 0600 as ssh-add insists. */
static void copy_key(const char *fixture, const char *name, char *path, size_t path_len)
{
	size_t len;
	char *text = fixture_read(fixture, &len);
	snprintf(path, path_len, "%s/%s", tmpdir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	free(text);
}

/* Is any live (not zombie) process running with `needle` in its command line? */
static bool process_with_arg(const char *needle)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;
	assert_non_null(d);
	while (!found && (e = readdir(d)) != NULL) {
		char path[300], buf[4096], stat[512];
		if (e->d_name[0] < '0' || e->d_name[0] > '9') {
			continue;
		}
		snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0) {
			continue;
		}
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0) {
			continue; /* kernel threads and zombies have none */
		}
		for (ssize_t i = 0; i < n; i++) {
			buf[i] = buf[i] ? buf[i] : ' ';
		}
		buf[n] = '\0';
		if (!strstr(buf, needle)) {
			continue;
		}
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		fd = open(path, O_RDONLY);
		n = fd >= 0 ? read(fd, stat, sizeof stat - 1) : -1;
		if (fd >= 0) {
			close(fd);
		}
		if (n > 0) {
			stat[n] = '\0';
			const char *paren = strrchr(stat, ')');
			found = !paren || (paren[2] != 'Z' && paren[2] != 'X');
		}
	}
	closedir(d);
	return found;
}

static bool connectable(const char *sock)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	bool ok = connect(fd, (const struct sockaddr *)&sa, sizeof sa) == 0;
	close(fd);
	return ok;
}

/* stdin from /dev/null for the body of a test: "no terminal". */
static int stdin_off(void)
{
	int saved = dup(STDIN_FILENO);
	int null = open("/dev/null", O_RDONLY);
	assert_true(null >= 0);
	dup2(null, STDIN_FILENO);
	close(null);
	return saved;
}

static void stdin_back(int saved)
{
	if (saved >= 0) {
		dup2(saved, STDIN_FILENO);
		close(saved);
	} else {
		close(STDIN_FILENO);
	}
}

static int setup_dir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof tmpdir, "/tmp/synctop-test-pa.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		return -1;
	}
	unsetenv("SSH_AUTH_SOCK");
	return 0;
}

static int teardown_dir(void **state)
{
	(void)state;
	char cmd[128];
	private_agent_stop();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_agent_lifecycle(void **state)
{
	(void)state;
	char err[256] = "", key[256], sock[128], dir[128], other[256];
	unsigned char blob[4096], wrong[4096];
	struct stat st;

	if (!have_program("ssh-agent") || !have_program("ssh-add")) {
		skip();
	}
	copy_key("keys/ed25519-plain", "id_plain", key, sizeof key);
	assert_string_equal(private_agent_socket(), "");

	assert_int_equal(private_agent_start(err, sizeof err), 0);
	snprintf(sock, sizeof sock, "%s", private_agent_socket());
	assert_true(sock[0] == '/');
	snprintf(dir, sizeof dir, "%s", sock);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700); /* only us */
	assert_true(connectable(sock));
	assert_true(process_with_arg(sock));

	/* A plain key loads without asking anything, even with no terminal. */
	int saved = stdin_off();
	assert_int_equal(private_agent_add(key, err, sizeof err), 0);
	stdin_back(saved);
	size_t n = pub_blob("keys/ed25519-plain.pub", blob, sizeof blob);
	assert_int_equal(private_agent_key_matches(key, blob, n), 1);
	size_t m = pub_blob("keys/ed25519-encrypted.pub", wrong, sizeof wrong);
	assert_int_equal(private_agent_key_matches(key, wrong, m), 0);
	assert_int_equal(private_agent_key_matches("/not/loaded", blob, n), -1);

	/* A missing file: ssh-add fails, we say so and go on. */
	snprintf(other, sizeof other, "%s/missing", tmpdir);
	err[0] = '\0';
	assert_int_equal(private_agent_add(other, err, sizeof err), -1);
	assert_true(err[0] != '\0');

	private_agent_stop();
	assert_string_equal(private_agent_socket(), "");
	assert_int_equal(private_agent_key_matches(key, blob, n), -1);
	assert_false(connectable(sock));
	assert_int_equal(access(sock, F_OK), -1);
	assert_int_equal(access(dir, F_OK), -1);
	/* the agent itself is gone, not only its socket */
	for (int i = 0; i < 100 && process_with_arg(sock); i++) {
		usleep(20000);
	}
	assert_false(process_with_arg(sock));
	private_agent_stop(); /* twice is fine */
}

/* --log into tmpdir/log. */
static void log_start(void)
{
	char path[256];
	snprintf(path, sizeof path, "%s/log", tmpdir);
	assert_int_equal(log_open(path), 0);
}

/* Closes the log; how many of its lines end with "identity PATH: WHAT". */
static int log_count(const char *path, const char *what)
{
	char log_path[256], line[1024], want[600];
	log_close();
	snprintf(log_path, sizeof log_path, "%s/log", tmpdir);
	snprintf(want, sizeof want, "identity %s: %s\n", path, what);
	FILE *f = fopen(log_path, "r");
	assert_non_null(f);
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		size_t len = strlen(line), wlen = strlen(want);
		n += len >= wlen && strcmp(line + len - wlen, want) == 0;
	}
	fclose(f);
	return n;
}

/* Lines of the log that record an identity's change of state. */
static int log_identity_lines(void)
{
	char log_path[256], line[1024];
	snprintf(log_path, sizeof log_path, "%s/log", tmpdir);
	FILE *f = fopen(log_path, "r");
	assert_non_null(f);
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		n += strstr(line, " identity ") != NULL;
	}
	fclose(f);
	return n;
}

static void test_load_without_terminal_warns(void **state)
{
	(void)state;
	char enc[256], plain[256], missing[256];
	copy_key("keys/ed25519-encrypted", "id_enc", enc, sizeof enc);
	copy_key("keys/rsa-pem-plain", "id_rsa", plain, sizeof plain);
	snprintf(missing, sizeof missing, "%s/nope", tmpdir);
	private_agent_key keys[] = {{.path = enc}, {.path = plain}, {.path = missing}};

	log_start();
	int saved = stdin_off();
	assert_int_equal(private_agent_load(keys, 3), 0);
	stdin_back(saved);
	assert_int_equal(keys[0].state, IDENTITY_ENCRYPTED);
	assert_int_equal(keys[1].state, IDENTITY_PLAIN);
	assert_int_equal(keys[2].state, IDENTITY_PLAIN); /* the key file stage reports it */
	assert_string_equal(private_agent_socket(), ""); /* no agent for nothing */
	/* --log: the one change, with its cause; the plain ones stayed put */
	assert_int_equal(log_count(enc, "plain -> encrypted (the file is encrypted)"), 1);
	assert_int_equal(log_identity_lines(), 1);
}

/* The user's own agent already holds the encrypted key: nothing is asked,
 * unless a node must not use that agent (IdentitiesOnly). */
static void test_key_in_user_agent_is_not_asked_for(void **state)
{
	(void)state;
	char err[256], enc[256], askpass[256], cmd[1024], sock[128];

	if (!have_program("ssh-agent") || !have_program("ssh-add")) {
		skip();
	}
	copy_key("keys/ed25519-encrypted", "id_enc", enc, sizeof enc);
	snprintf(askpass, sizeof askpass, "%s/askpass", tmpdir);
	FILE *f = fopen(askpass, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho '%s'\n", PASSPHRASE);
	fclose(f);
	chmod(askpass, 0700);

	/* Play the user's agent with one we start, loaded through askpass. */
	assert_int_equal(private_agent_start(err, sizeof err), 0);
	snprintf(sock, sizeof sock, "%s", private_agent_socket());
	snprintf(cmd, sizeof cmd,
		 "SSH_AUTH_SOCK='%s' SSH_ASKPASS='%s' SSH_ASKPASS_REQUIRE=force ssh-add '%s' </dev/null 2>/dev/null", sock,
		 askpass, enc);
	assert_int_equal(system(cmd), 0);
	setenv("SSH_AUTH_SOCK", sock, 1);

	private_agent_key keys[] = {{.path = enc}, {.path = enc, .identities_only = true}};
	log_start();
	int saved = stdin_off();
	private_agent_load(keys, 2);
	stdin_back(saved);
	assert_int_equal(keys[0].state, IDENTITY_IN_USER_AGENT);
	assert_int_equal(keys[1].state, IDENTITY_ENCRYPTED);
	assert_int_equal(log_count(enc, "plain -> encrypted (the file is encrypted)"), 2);
	assert_int_equal(log_count(enc, "encrypted -> in ssh-agent (ssh-agent holds it)"), 1);

	unsetenv("SSH_AUTH_SOCK");
	private_agent_stop();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classifies_ssh_keygen_keys),
		cmocka_unit_test(test_classify_hostile_input),
		cmocka_unit_test(test_classify_never_overreads),
		cmocka_unit_test(test_public_blob_of_openssh_keys),
		cmocka_unit_test(test_pub_line_rejects_noise),
		cmocka_unit_test_setup_teardown(test_agent_lifecycle, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_load_without_terminal_warns, setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_key_in_user_agent_is_not_asked_for, setup_dir, teardown_dir),
	};
	libssh2_init(0);
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	libssh2_exit();
	return failed;
}
