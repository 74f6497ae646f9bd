/* test_known_hosts.c - host key verification against known_hosts files made
 * by ssh-keygen (tests/fixtures/known_hosts/, see make-fixtures.sh there):
 * MATCH / MISMATCH / NOT_FOUND / REVOKED under each policy, hashed and
 * [host]:port entries, markers, garbage, accept-new writing, fingerprints
 * equal to ssh-keygen -l, and the key-type list for libssh2. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "known_hosts.h"

/* ---- helpers ------------------------------------------------------------ */

/* snprintf that fails the test instead of truncating */
__attribute__((format(printf, 3, 4)))
static void fmt(char *buf, size_t cap, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(buf, cap, f, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < cap);
}

typedef struct {
	unsigned char data[4096];
	size_t len;
	char b64[6000];
} pubkey;

static int b64v(char ch)
{
	const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = strchr(alphabet, ch);
	return ch && p ? (int)(p - alphabet) : -1;
}

/* An independent decoder, so the test does not trust the module's. */
static void load_pub(const char *name, pubkey *k)
{
	char path[256];
	size_t len;
	fmt(path, sizeof path, "known_hosts/%s.pub", name);
	char *text = fixture_read(path, &len);
	char type[64];
	assert_int_equal(sscanf(text, "%63s %5999s", type, k->b64), 2);
	free(text);
	k->len = 0;
	unsigned acc = 0, bits = 0;
	for (const char *p = k->b64; *p && *p != '='; p++) {
		int v = b64v(*p);
		assert_true(v >= 0);
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			assert_true(k->len < sizeof k->data);
			k->data[k->len++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	/* the blob names the same type as the .pub line */
	assert_true(k->len > 4 + strlen(type));
	assert_memory_equal(k->data + 4, type, strlen(type));
}

/* The SHA256:... field of `ssh-keygen -lf NAME.pub`, from fingerprints.txt. */
static void keygen_fingerprint(const char *name, char *out, size_t cap)
{
	size_t len;
	char *text = fixture_read("known_hosts/fingerprints.txt", &len);
	char needle[128];
	fmt(needle, sizeof needle, " %s (", name);
	char *hit = strstr(text, needle);
	assert_non_null(hit);
	char *line = hit;
	while (line > text && line[-1] != '\n') {
		line--;
	}
	char fp[128];
	assert_int_equal(sscanf(line, "%*d %127s", fp), 1);
	fmt(out, cap, "%s", fp);
	free(text);
}

typedef struct {
	char *text[4];
	known_hosts_file files[4];
	size_t n;
} file_set;

/* Load fixture files; path labels are the fixture names. */
static void files_load(file_set *fs, const char *a, const char *b)
{
	const char *names[2] = {a, b};
	memset(fs, 0, sizeof *fs);
	for (size_t i = 0; i < 2 && names[i]; i++) {
		char path[256];
		fmt(path, sizeof path, "known_hosts/%s", names[i]);
		fs->text[i] = fixture_read(path, &fs->files[i].len);
		fs->files[i].text = fs->text[i];
		fs->files[i].path = names[i];
		fs->n++;
	}
}

static void files_free(file_set *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->text[i]);
	}
}

static known_hosts_result verify(const file_set *fs, const char *host, int port, const pubkey *k,
	known_hosts_policy policy, known_hosts_verdict *v)
{
	return known_hosts_verify_text(fs->files, fs->n, host, port, k->data, k->len, policy, v);
}

static const char *fixture_dir(void)
{
	const char *dir = getenv("SYNCTOP_FIXTURES");
	return dir ? dir : "tests/fixtures";
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void tmp_make(char *dir, size_t cap)
{
	fmt(dir, cap, "/tmp/synctop-kh-XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void tmp_remove(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		return NULL;
	}
	char *buf = calloc(1, 65536);
	assert_non_null(buf);
	*len = fread(buf, 1, 65535, f);
	fclose(f);
	return buf;
}

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static const char *const no_files[1] = {NULL};

/* A FIDO (sk-ssh-ed25519) public key built by hand, since ssh-keygen needs a
 * token to make one; `ssh-keygen -lf` on it prints the fingerprint below. */
static const char sk_b64[] = "AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIAECAwQFBgcICQoLDA0ODxAR"
	"EhMUFRYXGBkaGxwdHh8gAAAABHNzaDo=";
static const char sk_fingerprint[] = "SHA256:nX0hpi5mKbTIJ10yBq5/sLQhiI1Y0RBAqN0drDdgJWs";

/* ---- digests and fingerprints -------------------------------------------- */

static void test_sha256_vectors(void **state)
{
	(void)state;
	/* expected: openssl dgst -sha256 -binary | base64, '=' removed */
	static const struct {
		size_t len;
		const char *fp;
	} vectors[] = {
		{0, "SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU"},
		{55, "SHA256:n0OQ+NMMLdkuyfCVtl4rmumwqSWlJY4kHJ8ekQ9zQxg"},
		{56, "SHA256:s1Q5pKxvCUi21vnjxq8PX1kM4g8b3nCQ73lwaG7Gc4o"},
		{63, "SHA256:fT50oF19sVvOStnsBljqmOPwbu7PFrTG//LaRX3cLzQ"},
		{64, "SHA256:/+BU/nrgy23GXDr5th1SCfQ5hR20PQulmXM33xVGaOs"},
		{65, "SHA256:Y1NhxIu56rFBmOduqKt/GkFoXWrWKqkUbTAdTxfrCuA"},
		{119, "SHA256:MeulHDE6XAgiat8Y1KNZz9/Y0ugWsT9K+VL36mWE3Ps"},
		{1000, "SHA256:Qe3s5C1j6Nm/UVqbppMuHCDLyfWl0TRkWttdsblzfqM"},
	};
	unsigned char a[1000];
	memset(a, 'a', sizeof a);
	char fp[KNOWN_HOSTS_FINGERPRINT_SIZE];
	for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
		assert_int_equal(known_hosts_fingerprint(a, vectors[i].len, fp, sizeof fp), 0);
		assert_string_equal(fp, vectors[i].fp);
	}
	assert_int_equal(known_hosts_fingerprint((const unsigned char *)"abc", 3, fp, sizeof fp), 0);
	assert_string_equal(fp, "SHA256:ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0");
	/* too small a buffer is refused, not overrun */
	assert_int_equal(known_hosts_fingerprint(a, 3, fp, sizeof fp - 1), -1);
	assert_string_equal(fp, "");
}

static void test_fingerprint_equals_ssh_keygen(void **state)
{
	(void)state;
	const char *keys[] = {"node7_ed25519", "node7_ecdsa", "node7_ecdsa384", "node8_rsa",
		"lab_ed25519", "ca_ed25519"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		pubkey k;
		char want[128], got[KNOWN_HOSTS_FINGERPRINT_SIZE];
		load_pub(keys[i], &k);
		keygen_fingerprint(keys[i], want, sizeof want);
		assert_int_equal(known_hosts_fingerprint(k.data, k.len, got, sizeof got), 0);
		assert_string_equal(got, want);
	}

	/* and the verdict carries it, with the label ssh prints */
	char text[512];
	known_hosts_verdict v;
	fmt(text, sizeof text, "node8 sk-ssh-ed25519@openssh.com %s\n", sk_b64);
	known_hosts_file f = {"mem", text, strlen(text)};
	unsigned char blob[128];
	size_t len = 0;
	unsigned acc = 0, bits = 0;
	for (const char *p = sk_b64; *p && *p != '='; p++) {
		acc = (acc << 6) | (unsigned)b64v(*p);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			blob[len++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	assert_int_equal(known_hosts_verify_text(&f, 1, "node8", 22, blob, len, KNOWN_HOSTS_STRICT_YES,
		&v), KNOWN_HOSTS_MATCH);
	assert_string_equal(v.fingerprint, sk_fingerprint);
	assert_string_equal(v.key_type, "sk-ssh-ed25519@openssh.com");
	assert_non_null(strstr(v.message, "ED25519-SK key " "SHA256:"));
}

/* ---- MATCH ------------------------------------------------------------------ */

static void test_match_plain_and_lists(void **state)
{
	(void)state;
	file_set fs;
	pubkey ed, ec, lab, rsa;
	known_hosts_verdict v;
	files_load(&fs, "user_known_hosts", NULL);
	load_pub("node7_ed25519", &ed);
	load_pub("node7_ecdsa", &ec);
	load_pub("lab_ed25519", &lab);
	load_pub("node8_rsa", &rsa);

	assert_int_equal(verify(&fs, "node7", 22, &ed, KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_true(v.accept);
	assert_false(v.added);
	assert_int_equal(v.file, 0);
	assert_int_equal(v.line, 2);
	assert_string_equal(v.key_type, "ssh-ed25519");

	assert_int_equal(verify(&fs, "node7", 22, &ec, KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 3);
	assert_string_equal(v.key_type, "ecdsa-sha2-nistp256");

	/* comma list: plain name, address, and [address]:port */
	assert_int_equal(verify(&fs, "node1", 22, &lab, KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 5);
	assert_int_equal(verify(&fs, "10.77.0.1", 22, &lab, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 5);
	assert_int_equal(verify(&fs, "10.77.0.1", 2201, &lab, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 5);

	/* names are case-insensitive both ways ("NODE8" in the file) */
	assert_int_equal(verify(&fs, "node8", 22, &rsa, KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 7);
	assert_string_equal(v.key_type, "ssh-rsa");
	assert_int_equal(verify(&fs, "Node8", 22, &rsa, KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);

	/* CRLF line */
	pubkey n5;
	load_pub("node5_ed25519", &n5);
	assert_int_equal(verify(&fs, "node5", 22, &n5, KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 21);
	files_free(&fs);
}

static void test_port_entries(void **state)
{
	(void)state;
	file_set fs;
	pubkey lab, ed;
	known_hosts_verdict v;
	files_load(&fs, "user_known_hosts", NULL);
	load_pub("lab_ed25519", &lab);
	load_pub("node7_ed25519", &ed);

	assert_int_equal(verify(&fs, "127.0.0.1", 2201, &lab, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 4);
	/* [127.0.0.1]:2201 says nothing about port 22 or port 2202 */
	assert_int_equal(verify(&fs, "127.0.0.1", 22, &lab, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_NOT_FOUND);
	assert_false(v.accept);
	assert_int_equal(verify(&fs, "127.0.0.1", 2202, &lab, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_NOT_FOUND);
	/* and a plain "node7" entry says nothing about node7:2201 (OpenSSH;
	 * libssh2's checkp would fall back to it) */
	assert_int_equal(verify(&fs, "node7", 2201, &ed, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_NOT_FOUND);
	assert_int_equal(v.file, KNOWN_HOSTS_NO_FILE);
	assert_int_equal(v.line, 0);

	/* "[node7]:22" is not how port 22 is written, so it does not match */
	known_hosts_file f = {"mem", NULL, 0};
	char text[512];
	fmt(text, sizeof text, "[node7]:22 ssh-ed25519 %s\n", ed.b64);
	f.text = text;
	f.len = strlen(text);
	assert_int_equal(known_hosts_verify_text(&f, 1, "node7", 22, ed.data, ed.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_NOT_FOUND);
	files_free(&fs);
}

static void test_wildcards_and_negation(void **state)
{
	(void)state;
	file_set fs;
	pubkey w;
	known_hosts_verdict v;
	files_load(&fs, "user_known_hosts", NULL);
	load_pub("wild_ed25519", &w);

	assert_int_equal(verify(&fs, "node-3.lab", 22, &w, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 6);
	assert_int_equal(verify(&fs, "NODE-12.LAB", 22, &w, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_MATCH);
	/* "!node-9.lab" vetoes the whole line */
	assert_int_equal(verify(&fs, "node-9.lab", 22, &w, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_NOT_FOUND);
	assert_int_equal(verify(&fs, "node-3.lab.evil", 22, &w, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_NOT_FOUND);
	/* '?' is exactly one character */
	assert_int_equal(verify(&fs, "node-a.rack", 22, &w, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 22);
	assert_int_equal(verify(&fs, "node-ab.rack", 22, &w, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_NOT_FOUND);
	assert_int_equal(verify(&fs, "node-.rack", 22, &w, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_NOT_FOUND);
	files_free(&fs);
}

static void test_hashed_entries(void **state)
{
	(void)state;
	file_set fs;
	pubkey ed, lab, n5;
	known_hosts_verdict v;
	files_load(&fs, "hashed_known_hosts", NULL);
	load_pub("node7_ed25519", &ed);
	load_pub("lab_ed25519", &lab);
	load_pub("node5_ed25519", &n5);

	assert_int_equal(verify(&fs, "node7", 22, &ed, KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 1);
	assert_int_equal(verify(&fs, "NODE7", 22, &ed, KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_int_equal(verify(&fs, "node77", 22, &ed, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_NOT_FOUND);
	assert_int_equal(verify(&fs, "127.0.0.1", 2201, &lab, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 2);
	assert_int_equal(verify(&fs, "127.0.0.1", 22, &lab, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_NOT_FOUND);
	/* node5 is revoked by hashed name only, so [node5]:2205 still matches */
	assert_int_equal(verify(&fs, "node5", 2205, &n5, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 4);
	files_free(&fs);
}

/* ---- MISMATCH --------------------------------------------------------------- */

static void test_mismatch_message(void **state)
{
	(void)state;
	pubkey ed, fresh;
	known_hosts_verdict v;
	char fp[128], want[KNOWN_HOSTS_MESSAGE_SIZE], text[2048] = "";
	load_pub("node7_ed25519", &ed);
	load_pub("node7_new_ed25519", &fresh);
	keygen_fingerprint("node7_new_ed25519", fp, sizeof fp);

	/* the entry on line 12, as in the example */
	for (int i = 1; i < 12; i++) {
		strcat(text, "# padding\n");
	}
	strcat(text, "[node7]:2201 ssh-ed25519 ");
	strcat(text, ed.b64);
	strcat(text, "\n");
	known_hosts_file f = {"/root/.ssh/known_hosts", text, strlen(text)};
	const known_hosts_policy policies[] = {KNOWN_HOSTS_STRICT_YES, KNOWN_HOSTS_STRICT_ACCEPT_NEW,
		KNOWN_HOSTS_STRICT_NO};
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(known_hosts_verify_text(&f, 1, "node7", 2201, fresh.data, fresh.len,
			policies[i], &v), KNOWN_HOSTS_MISMATCH);
		assert_false(v.accept);
		assert_int_equal(v.file, 0);
		assert_int_equal(v.line, 12);
		assert_string_equal(v.fingerprint, fp);
		fmt(want, sizeof want, "host key for node7:2201 has CHANGED: offered ED25519 key %s; "
			"known_hosts says otherwise at /root/.ssh/known_hosts:12. Refusing to connect. "
			"If the node was reinstalled, remove the old key with: "
			"ssh-keygen -R '[node7]:2201' -f '/root/.ssh/known_hosts'", fp);
		assert_string_equal(v.message, want);
	}

	/* port 22, and a path that needs shell quoting */
	fmt(text, sizeof text, "node7 ssh-ed25519 %s\n", ed.b64);
	known_hosts_file g = {"/home/o'brien/.ssh/known_hosts", text, strlen(text)};
	assert_int_equal(known_hosts_verify_text(&g, 1, "node7", 22, fresh.data, fresh.len,
		KNOWN_HOSTS_STRICT_NO, &v), KNOWN_HOSTS_MISMATCH);
	assert_non_null(strstr(v.message, "host key for node7 has CHANGED"));
	assert_non_null(strstr(v.message,
		"ssh-keygen -R 'node7' -f '/home/o'\\''brien/.ssh/known_hosts'"));
}

static void test_mismatch_from_files(void **state)
{
	(void)state;
	file_set fs;
	pubkey ed, ec256, n7new;
	known_hosts_verdict v;
	load_pub("node7_ed25519", &ed);
	load_pub("node7_ecdsa", &ec256);
	load_pub("node7_new_ed25519", &n7new);

	files_load(&fs, "changed_known_hosts", NULL);
	assert_int_equal(verify(&fs, "node7", 22, &ed, KNOWN_HOSTS_STRICT_ACCEPT_NEW, &v),
		KNOWN_HOSTS_MISMATCH);
	assert_int_equal(v.line, 3);
	assert_non_null(strstr(v.message, "changed_known_hosts:3"));
	/* all ECDSA curves are one key type to OpenSSH: P-256 offered, P-384 known */
	assert_int_equal(verify(&fs, "node7", 22, &ec256, KNOWN_HOSTS_STRICT_NO, &v),
		KNOWN_HOSTS_MISMATCH);
	assert_int_equal(v.line, 4);
	files_free(&fs);

	/* a key known in a later file wins over a different one in an earlier file */
	files_load(&fs, "changed_known_hosts", "user_known_hosts");
	assert_int_equal(verify(&fs, "node7", 22, &ed, KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.file, 1);
	assert_int_equal(v.line, 2);
	files_free(&fs);

	/* node7_new appears in user_known_hosts only under @cert-authority and an
	 * unknown @bogus marker: neither may make it a match */
	files_load(&fs, "user_known_hosts", NULL);
	assert_int_equal(verify(&fs, "node7", 22, &n7new, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_MISMATCH);
	assert_int_equal(v.line, 2);
	files_free(&fs);
}

/* ---- NOT_FOUND and the policies ------------------------------------------------ */

static void test_not_found_policies(void **state)
{
	(void)state;
	file_set fs;
	pubkey lab, ed;
	known_hosts_verdict v;
	files_load(&fs, "user_known_hosts", "global_known_hosts");
	load_pub("lab_ed25519", &lab);
	load_pub("node7_ed25519", &ed);

	assert_int_equal(verify(&fs, "node42", 22, &lab, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_NOT_FOUND);
	assert_false(v.accept);
	assert_false(v.added);
	assert_non_null(strstr(v.message, "Refusing to connect"));
	assert_non_null(strstr(v.message, v.fingerprint));
	assert_int_equal(verify(&fs, "node42", 22, &lab, KNOWN_HOSTS_STRICT_ACCEPT_NEW, &v),
		KNOWN_HOSTS_NOT_FOUND);
	assert_true(v.accept);
	assert_false(v.added); /* the pure check never writes */
	assert_int_equal(verify(&fs, "node42", 22, &lab, KNOWN_HOSTS_STRICT_NO, &v),
		KNOWN_HOSTS_NOT_FOUND);
	assert_true(v.accept);
	assert_non_null(strstr(v.message, "StrictHostKeyChecking=no"));

	/* system file entries count too */
	pubkey w;
	load_pub("wild_ed25519", &w);
	assert_int_equal(verify(&fs, "node9", 22, &w, KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.file, 1);
	assert_int_equal(v.line, 1);

	/* node8 has only an RSA key: an ED25519 key is new (as in OpenSSH),
	 * and the verdict points at the RSA entry */
	assert_int_equal(verify(&fs, "node8", 22, &ed, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_NOT_FOUND);
	assert_false(v.accept);
	assert_int_equal(v.file, 0);
	assert_int_equal(v.line, 7);
	assert_non_null(strstr(v.message, "only lists a key of type RSA for it, at user_known_hosts:7"));
	files_free(&fs);
}

/* ---- REVOKED ---------------------------------------------------------------------- */

static void test_revoked(void **state)
{
	(void)state;
	file_set fs;
	pubkey rev, n5;
	known_hosts_verdict v;
	const known_hosts_policy policies[] = {KNOWN_HOSTS_STRICT_YES, KNOWN_HOSTS_STRICT_ACCEPT_NEW,
		KNOWN_HOSTS_STRICT_NO};
	load_pub("revoked_ed25519", &rev);
	load_pub("node5_ed25519", &n5);

	/* "@revoked *": refused for every host, known or not, under every policy */
	files_load(&fs, "user_known_hosts", NULL);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(verify(&fs, "node7", 22, &rev, policies[i], &v), KNOWN_HOSTS_REVOKED);
		assert_false(v.accept);
		assert_int_equal(v.line, 12);
		assert_int_equal(verify(&fs, "somewhere.else", 2222, &rev, policies[i], &v),
			KNOWN_HOSTS_REVOKED);
		assert_false(v.accept);
	}
	assert_non_null(strstr(v.message, "REVOKED"));
	assert_non_null(strstr(v.message, "user_known_hosts:12"));
	files_free(&fs);

	/* a hashed @revoked line beats the same key listed as known */
	files_load(&fs, "hashed_known_hosts", NULL);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(verify(&fs, "node5", 22, &n5, policies[i], &v), KNOWN_HOSTS_REVOKED);
		assert_false(v.accept);
		assert_int_equal(v.line, 5);
	}
	files_free(&fs);

	/* and across files: user_known_hosts lists node5's key on line 21 */
	files_load(&fs, "user_known_hosts", "hashed_known_hosts");
	assert_int_equal(verify(&fs, "node5", 22, &n5, KNOWN_HOSTS_STRICT_NO, &v), KNOWN_HOSTS_REVOKED);
	assert_int_equal(v.file, 1);
	assert_int_equal(v.line, 5);
	files_free(&fs);

	/* @revoked with a pattern list: only the hosts it names */
	char text[512];
	fmt(text, sizeof text, "@revoked node-*,!node-2 ssh-ed25519 %s\n", n5.b64);
	known_hosts_file f = {"mem", text, strlen(text)};
	assert_int_equal(known_hosts_verify_text(&f, 1, "node-1", 22, n5.data, n5.len,
		KNOWN_HOSTS_STRICT_NO, &v), KNOWN_HOSTS_REVOKED);
	assert_int_equal(known_hosts_verify_text(&f, 1, "node-2", 22, n5.data, n5.len,
		KNOWN_HOSTS_STRICT_NO, &v), KNOWN_HOSTS_NOT_FOUND);
}

static void test_cert_authority_ignored(void **state)
{
	(void)state;
	file_set fs;
	pubkey ca;
	known_hosts_verdict v;
	files_load(&fs, "user_known_hosts", NULL);
	load_pub("ca_ed25519", &ca);
	/* "@cert-authority *" lists the CA key for every host: still not a match */
	assert_int_equal(verify(&fs, "fresh-node", 22, &ca, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_NOT_FOUND);
	assert_false(v.accept);
	assert_int_equal(v.file, KNOWN_HOSTS_NO_FILE);
	/* but the message says why: the CA line is its only entry, and what to do */
	assert_non_null(strstr(v.message, "only under @cert-authority, at "));
	assert_non_null(strstr(v.message, "user_known_hosts:10"));
	assert_non_null(strstr(v.message, "cannot check host certificates"));
	assert_non_null(strstr(v.message, "ssh-keyscan"));
	/* a host with no entry at all, CA or other, is not told about CAs */
	known_hosts_file plain = {"plain", "node1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK7eDmpD74iRyq5l0k2ia/bsTZBhNzQTtyICVgI5dkpw\n", 0};
	plain.len = strlen(plain.text);
	assert_int_equal(known_hosts_verify_text(&plain, 1, "fresh-node", 22, ca.data, ca.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_NOT_FOUND);
	assert_null(strstr(v.message, "cert-authority"));
	files_free(&fs);
}

/* ---- robustness --------------------------------------------------------------------- */

static void test_garbage_and_odd_bytes(void **state)
{
	(void)state;
	pubkey ed;
	known_hosts_verdict v;
	load_pub("node7_ed25519", &ed);

	/* NUL bytes, control bytes, broken hashes, a star storm, a key of the
	 * wrong length prefix, then the real entry with no final newline */
	char text[20000];
	size_t n = 0;
	const char head[] = "node7\0 ssh-ed25519 AAAA\n"
		"\x01\xff\xfe junk \x7f\n"
		"|1| ssh-ed25519 AAAAC3NzaC1lZDI1NTE5\n"
		"|1|!!!|@@@ ssh-ed25519 AAAAC3NzaC1lZDI1NTE5\n"
		"|1|c2FsdA==|aGFzaA== ssh-ed25519 AAAAC3NzaC1lZDI1NTE5\n"
		"node7 ssh-ed25519 /////w==\n"
		"@revoked\n"
		"@revoked node7\n"
		"\t \t\n";
	memcpy(text, head, sizeof head - 1);
	n += sizeof head - 1;
	for (int i = 0; i < 4000; i++) {
		text[n++] = '*';
		text[n++] = 'x';
	}
	n += (size_t)snprintf(text + n, sizeof text - n, " ssh-ed25519 %s\nnode7 ssh-ed25519 %s",
		ed.b64, ed.b64);
	known_hosts_file f = {"mem", text, n};
	assert_int_equal(known_hosts_verify_text(&f, 1, "node7", 22, ed.data, ed.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 11);
	/* the star storm must not match a host without the x's */
	assert_int_equal(known_hosts_verify_text(&f, 1, "node8", 22, ed.data, ed.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_NOT_FOUND);

	/* every prefix of the text: never a crash, never a false MISMATCH */
	for (size_t cut = 0; cut <= n; cut += 97) {
		known_hosts_file g = {"mem", text, cut};
		known_hosts_result r = known_hosts_verify_text(&g, 1, "node7", 22, ed.data, ed.len,
			KNOWN_HOSTS_STRICT_YES, &v);
		assert_true(r == KNOWN_HOSTS_NOT_FOUND || r == KNOWN_HOSTS_MATCH);
	}

	/* a line cut short (disk full while writing) is skipped, as OpenSSH
	 * skips it, not read as a changed key */
	pubkey ec;
	load_pub("node7_ecdsa", &ec);
	char cut_line[512];
	/* cut mid-key, cut right after the curve name, and a 31-byte Ed25519 key */
	fmt(cut_line, sizeof cut_line, "node7 ssh-ed25519 %.40s\nnode7 ecdsa-sha2-nistp256 %.120s\n"
		"node7 ecdsa-sha2-nistp256 %.47s\n"
		"node7 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAHwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
		ed.b64, ec.b64, ec.b64);
	known_hosts_file c = {"mem", cut_line, strlen(cut_line)};
	assert_int_equal(known_hosts_verify_text(&c, 1, "node7", 22, ed.data, ed.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_NOT_FOUND);
	assert_int_equal(known_hosts_verify_text(&c, 1, "node7", 22, ec.data, ec.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_NOT_FOUND);

	/* empty and absent contents */
	known_hosts_file empty[2] = {{"a", "", 0}, {NULL, NULL, 5}};
	assert_int_equal(known_hosts_verify_text(empty, 2, "node7", 22, ed.data, ed.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_NOT_FOUND);
	assert_int_equal(known_hosts_verify_text(NULL, 0, "node7", 22, ed.data, ed.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_NOT_FOUND);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	file_set fs;
	pubkey ed;
	known_hosts_verdict v;
	files_load(&fs, "user_known_hosts", NULL);
	load_pub("node7_ed25519", &ed);

	const char *hosts[] = {NULL, "", "node 7", "node7,evil", "node*", "node7\n", "[node7]:22",
		"node7'", "|1|x"};
	for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
		assert_int_equal(verify(&fs, hosts[i], 22, &ed, KNOWN_HOSTS_STRICT_NO, &v),
			KNOWN_HOSTS_ERROR);
		assert_false(v.accept);
	}
	char longhost[300];
	memset(longhost, 'a', sizeof longhost - 1);
	longhost[sizeof longhost - 1] = '\0';
	assert_int_equal(verify(&fs, longhost, 22, &ed, KNOWN_HOSTS_STRICT_NO, &v), KNOWN_HOSTS_ERROR);
	assert_int_equal(verify(&fs, "node7", 0, &ed, KNOWN_HOSTS_STRICT_NO, &v), KNOWN_HOSTS_ERROR);
	assert_int_equal(verify(&fs, "node7", 65536, &ed, KNOWN_HOSTS_STRICT_NO, &v),
		KNOWN_HOSTS_ERROR);
	assert_int_equal(verify(&fs, "node7", 22, &ed, (known_hosts_policy)7, &v), KNOWN_HOSTS_ERROR);
	assert_false(v.accept);

	/* malformed offered blobs */
	const unsigned char short_blob[] = {0, 0, 0};
	const unsigned char long_len[] = {0, 0, 0, 200, 's', 's', 'h'};
	const unsigned char comma[] = {0, 0, 0, 3, 'a', ',', 'b'};
	const unsigned char zero[] = {0, 0, 0, 0, 1, 2};
	const unsigned char *blobs[] = {short_blob, long_len, comma, zero};
	const size_t lens[] = {sizeof short_blob, sizeof long_len, sizeof comma, sizeof zero};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(known_hosts_verify_text(fs.files, fs.n, "node7", 22, blobs[i], lens[i],
			KNOWN_HOSTS_STRICT_NO, &v), KNOWN_HOSTS_ERROR);
		assert_false(v.accept);
	}
	assert_int_equal(known_hosts_verify_text(fs.files, fs.n, "node7", 22, NULL, 10,
		KNOWN_HOSTS_STRICT_NO, &v), KNOWN_HOSTS_ERROR);
	/* a host certificate (type, nonce, key...) is refused with a reason */
	static const unsigned char cert[] = {0, 0, 0, 32, 's', 's', 'h', '-', 'e', 'd', '2', '5', '5',
		'1', '9', '-', 'c', 'e', 'r', 't', '-', 'v', '0', '1', '@', 'o', 'p', 'e', 'n', 's', 's',
		'h', '.', 'c', 'o', 'm', 0, 0, 0, 2, 'n', 'n'};
	assert_int_equal(known_hosts_verify_text(fs.files, fs.n, "node7", 22, cert, sizeof cert,
		KNOWN_HOSTS_STRICT_NO, &v), KNOWN_HOSTS_ERROR);
	assert_false(v.accept);
	assert_non_null(strstr(v.message, "host certificate"));
	files_free(&fs);

	/* IPv6 literals are fine */
	pubkey lab;
	load_pub("lab_ed25519", &lab);
	char text[256];
	fmt(text, sizeof text, "[::1]:2201 ssh-ed25519 %s\n", lab.b64);
	known_hosts_file f = {"mem", text, strlen(text)};
	assert_int_equal(known_hosts_verify_text(&f, 1, "::1", 2201, lab.data, lab.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_non_null(strstr(v.message, "[::1]:2201"));
}

/* ---- key types ------------------------------------------------------------------------ */

static int types(const file_set *fs, const char *host, int port, char *list, size_t len)
{
	return known_hosts_key_types_text(fs->files, fs->n, host, port, NULL, 0, list, len);
}

static void test_key_types(void **state)
{
	(void)state;
	file_set fs;
	char list[256];
	files_load(&fs, "user_known_hosts", "global_known_hosts");

	assert_int_equal(types(&fs, "node7", 22, list, sizeof list), 2);
	assert_string_equal(list, "ssh-ed25519,ecdsa-sha2-nistp256");
	assert_int_equal(types(&fs, "node8", 22, list, sizeof list), 3);
	assert_string_equal(list, "rsa-sha2-512,rsa-sha2-256,ssh-rsa");
	assert_int_equal(types(&fs, "127.0.0.1", 2201, list, sizeof list), 1);
	assert_string_equal(list, "ssh-ed25519");
	/* only @cert-authority and @revoked lines match: nothing usable */
	assert_int_equal(types(&fs, "fresh-node", 22, list, sizeof list), 0);
	assert_string_equal(list, "");
	assert_int_equal(types(&fs, "node7", 2201, list, sizeof list), 0);
	assert_string_equal(list, "");
	/* does not fit: nothing half-written */
	assert_int_equal(types(&fs, "node7", 22, list, 20), -1);
	assert_string_equal(list, "");
	assert_int_equal(types(&fs, "node 7", 22, list, sizeof list), -1);
	assert_int_equal(types(&fs, "node7", 22, list, 0), -1);

	/* restricted to what a libssh2 supports (1.10 has no rsa-sha2-*) */
	const char *const old_libssh2[] = {"ecdsa-sha2-nistp256", "ssh-ed25519", "ssh-rsa"};
	assert_int_equal(known_hosts_key_types_text(fs.files, fs.n, "node8", 22, old_libssh2, 3, list,
		sizeof list), 1);
	assert_string_equal(list, "ssh-rsa");
	assert_int_equal(known_hosts_key_types_text(fs.files, fs.n, "node7", 22, old_libssh2 + 1, 2,
		list, sizeof list), 1);
	assert_string_equal(list, "ssh-ed25519");
	files_free(&fs);

	/* duplicates across files are listed once; hashed entries count */
	files_load(&fs, "changed_known_hosts", "hashed_known_hosts");
	assert_int_equal(types(&fs, "node7", 22, list, sizeof list), 2);
	assert_string_equal(list, "ssh-ed25519,ecdsa-sha2-nistp384");
	files_free(&fs);
}

static void test_key_types_for_libssh2(void **state)
{
	(void)state;
	char dir[64], path[128], text[1024];
	char list[256];
	pubkey rsa, ec;
	load_pub("node8_rsa", &rsa);
	load_pub("node7_ecdsa384", &ec);
	tmp_make(dir, sizeof dir);
	fmt(path, sizeof path, "%s/kh", dir);
	fmt(text, sizeof text, "node8 sk-ssh-ed25519@openssh.com %s\n"
		"node8 ssh-rsa %s\nnode8 ecdsa-sha2-nistp384 %s\n", sk_b64, rsa.b64, ec.b64);
	spit(path, text);
	const char *users[] = {path};
	known_hosts *kh = known_hosts_load(users, 1, no_files, 0);
	assert_non_null(kh);

	/* the pure function, unrestricted: every type the file names */
	size_t len;
	char *raw = slurp(path, &len);
	assert_non_null(raw);
	known_hosts_file f = {path, raw, len};
	assert_int_equal(known_hosts_key_types_text(&f, 1, "node8", 22, NULL, 0, list, sizeof list), 5);
	assert_string_equal(list, "sk-ssh-ed25519@openssh.com,rsa-sha2-512,rsa-sha2-256,ssh-rsa,"
		"ecdsa-sha2-nistp384");
	free(raw);

	/* the object: only names this libssh2 knows, which it then takes as
	 * they are (1.10 would mangle a list holding an unknown name, and
	 * ASan catches its overlapping memcpy) */
	int n = known_hosts_key_types(kh, "node8", 22, list, sizeof list);
	assert_true(n >= 2);
	assert_null(strstr(list, "sk-ssh-ed25519"));
	assert_non_null(strstr(list, "ssh-rsa"));
	assert_non_null(strstr(list, "ecdsa-sha2-nistp384"));
	if (libssh2_version(0x010b00) == NULL) {
		assert_string_equal(list, "ssh-rsa,ecdsa-sha2-nistp384");
	}
	LIBSSH2_SESSION *s = libssh2_session_init();
	assert_non_null(s);
	assert_int_equal(libssh2_session_method_pref(s, LIBSSH2_METHOD_HOSTKEY, list), 0);
	libssh2_session_free(s);
	assert_int_equal(known_hosts_key_types(kh, "node9", 22, list, sizeof list), 0);
	assert_string_equal(list, "");
	assert_int_equal(known_hosts_key_types(kh, "node8", 22, list, 8), -1);
	assert_string_equal(list, "");
	known_hosts_free(kh);
	tmp_remove(dir);
}

/* ---- the file wrapper ----------------------------------------------------------------- */

static void test_accept_new_writes_then_matches(void **state)
{
	(void)state;
	char dir[64], sshdir[128], path[160];
	pubkey lab, ed, fresh;
	known_hosts_verdict v;
	struct stat st;
	load_pub("lab_ed25519", &lab);
	load_pub("node7_ed25519", &ed);
	load_pub("node7_new_ed25519", &fresh);
	tmp_make(dir, sizeof dir);
	fmt(sshdir, sizeof sshdir, "%s/.ssh", dir);
	fmt(path, sizeof path, "%s/known_hosts", sshdir);
	const char *users[] = {path};

	known_hosts *kh = known_hosts_load(users, 1, no_files, 0);
	assert_non_null(kh);
	assert_int_equal(known_hosts_file_count(kh), 1);
	assert_int_equal(known_hosts_check(kh, "Node7", 2201, lab.data, lab.len,
		KNOWN_HOSTS_STRICT_ACCEPT_NEW, &v), KNOWN_HOSTS_NOT_FOUND);
	assert_true(v.accept);
	assert_true(v.added);
	assert_int_equal(v.file, 0);
	assert_int_equal(v.line, 1);
	assert_non_null(strstr(v.message, path));

	assert_int_equal(stat(sshdir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	size_t len;
	char *text = slurp(path, &len);
	assert_non_null(text);
	char want[512];
	fmt(want, sizeof want, "[node7]:2201 ssh-ed25519 %s\n", lab.b64);
	assert_string_equal(text, want);
	free(text);

	/* port 22 is written as a plain name */
	assert_int_equal(known_hosts_check(kh, "node7", 22, ed.data, ed.len,
		KNOWN_HOSTS_STRICT_ACCEPT_NEW, &v), KNOWN_HOSTS_NOT_FOUND);
	assert_true(v.added);
	assert_int_equal(v.line, 2);

	/* the same object, then a fresh load, now match under "yes" */
	assert_int_equal(known_hosts_check(kh, "node7", 2201, lab.data, lab.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 1);
	known_hosts_free(kh);
	kh = known_hosts_load(users, 1, no_files, 0);
	assert_non_null(kh);
	assert_int_equal(known_hosts_check(kh, "node7", 2201, lab.data, lab.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_int_equal(known_hosts_check(kh, "node7", 22, ed.data, ed.len, KNOWN_HOSTS_STRICT_YES,
		&v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 2);
	/* and a changed key is refused, never appended */
	assert_int_equal(known_hosts_check(kh, "node7", 22, fresh.data, fresh.len,
		KNOWN_HOSTS_STRICT_ACCEPT_NEW, &v), KNOWN_HOSTS_MISMATCH);
	assert_false(v.accept);
	assert_false(v.added);
	char where[200];
	fmt(where, sizeof where, "%s:2.", path);
	assert_non_null(strstr(v.message, where));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((size_t)st.st_size, strlen(want) + strlen("node7 ssh-ed25519 \n") +
		strlen(ed.b64));
	known_hosts_free(kh);
	tmp_remove(dir);
}

static void test_accept_new_file_without_final_newline(void **state)
{
	(void)state;
	char dir[64], path[128], text[512];
	pubkey lab, w;
	known_hosts_verdict v;
	load_pub("lab_ed25519", &lab);
	load_pub("wild_ed25519", &w);
	tmp_make(dir, sizeof dir);
	fmt(path, sizeof path, "%s/kh", dir);
	fmt(text, sizeof text, "node9 ssh-ed25519 %s", w.b64);
	spit(path, text);
	const char *users[] = {path};
	known_hosts *kh = known_hosts_load(users, 1, no_files, 0);
	assert_non_null(kh);
	assert_int_equal(known_hosts_check(kh, "node3", 22, lab.data, lab.len,
		KNOWN_HOSTS_STRICT_ACCEPT_NEW, &v), KNOWN_HOSTS_NOT_FOUND);
	assert_true(v.added);
	assert_int_equal(v.line, 2);
	assert_int_equal(known_hosts_check(kh, "node9", 22, w.data, w.len, KNOWN_HOSTS_STRICT_YES, &v),
		KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 1);
	assert_int_equal(known_hosts_check(kh, "node3", 22, lab.data, lab.len, KNOWN_HOSTS_STRICT_YES,
		&v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 2);
	known_hosts_free(kh);
	tmp_remove(dir);
}

static void test_accept_new_first_writable(void **state)
{
	(void)state;
	char dir[64], blocker[128], bad[160], good[128];
	pubkey lab;
	known_hosts_verdict v;
	load_pub("lab_ed25519", &lab);
	tmp_make(dir, sizeof dir);
	/* a regular file where a directory should be: unwritable even for root */
	fmt(blocker, sizeof blocker, "%s/notadir", dir);
	spit(blocker, "x\n");
	fmt(bad, sizeof bad, "%s/sub/known_hosts", blocker);
	fmt(good, sizeof good, "%s/second", dir);
	const char *users[] = {bad, good};
	known_hosts *kh = known_hosts_load(users, 2, no_files, 0);
	assert_non_null(kh);
	assert_int_equal(known_hosts_check(kh, "node3", 2203, lab.data, lab.len,
		KNOWN_HOSTS_STRICT_ACCEPT_NEW, &v), KNOWN_HOSTS_NOT_FOUND);
	assert_true(v.accept);
	assert_true(v.added);
	assert_int_equal(v.file, 1);
	assert_string_equal(known_hosts_file_path(kh, 1), good);
	known_hosts_free(kh);

	/* nowhere to write: accepted (as OpenSSH does) but said so */
	const char *only_bad[] = {bad};
	kh = known_hosts_load(only_bad, 1, no_files, 0);
	assert_non_null(kh);
	assert_int_equal(known_hosts_check(kh, "node3", 2203, lab.data, lab.len,
		KNOWN_HOSTS_STRICT_ACCEPT_NEW, &v), KNOWN_HOSTS_NOT_FOUND);
	assert_true(v.accept);
	assert_false(v.added);
	assert_non_null(strstr(v.message, "could not record"));
	known_hosts_free(kh);
	tmp_remove(dir);
}

static void test_policy_no_and_yes_do_not_write(void **state)
{
	(void)state;
	char dir[64], path[128];
	pubkey lab;
	known_hosts_verdict v;
	struct stat st;
	load_pub("lab_ed25519", &lab);
	tmp_make(dir, sizeof dir);
	fmt(path, sizeof path, "%s/kh", dir);
	const char *users[] = {path};
	known_hosts *kh = known_hosts_load(users, 1, no_files, 0);
	assert_non_null(kh);
	assert_int_equal(known_hosts_check(kh, "node3", 22, lab.data, lab.len, KNOWN_HOSTS_STRICT_NO,
		&v), KNOWN_HOSTS_NOT_FOUND);
	assert_true(v.accept);
	assert_false(v.added);
	assert_int_equal(known_hosts_check(kh, "node3", 22, lab.data, lab.len, KNOWN_HOSTS_STRICT_YES,
		&v), KNOWN_HOSTS_NOT_FOUND);
	assert_false(v.accept);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	known_hosts_free(kh);
	tmp_remove(dir);
}

static void test_unreadable_file_fails_closed(void **state)
{
	(void)state;
	char dir[64], global[512];
	pubkey lab, ed;
	known_hosts_verdict v;
	load_pub("lab_ed25519", &lab);
	load_pub("node7_ed25519", &ed);
	tmp_make(dir, sizeof dir);
	fmt(global, sizeof global, "%s/known_hosts/global_known_hosts", fixture_dir());
	/* a directory cannot be read as a file */
	const char *users[] = {dir};
	const char *globals[] = {global};
	known_hosts *kh = known_hosts_load(users, 1, globals, 1);
	assert_non_null(kh);
	assert_int_equal(known_hosts_check(kh, "node3", 22, lab.data, lab.len,
		KNOWN_HOSTS_STRICT_ACCEPT_NEW, &v), KNOWN_HOSTS_ERROR);
	assert_false(v.accept);
	assert_false(v.added);
	assert_non_null(strstr(v.message, dir));
	/* a key positively known elsewhere is still a match */
	assert_int_equal(known_hosts_check(kh, "node7", 22, ed.data, ed.len, KNOWN_HOSTS_STRICT_YES,
		&v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.file, 1);
	known_hosts_free(kh);
	tmp_remove(dir);
}

static void test_reread_after_change(void **state)
{
	(void)state;
	char dir[64], path[128], text[512];
	pubkey ed, fresh;
	known_hosts_verdict v;
	load_pub("node7_ed25519", &ed);
	load_pub("node7_new_ed25519", &fresh);
	tmp_make(dir, sizeof dir);
	fmt(path, sizeof path, "%s/kh", dir);
	fmt(text, sizeof text, "node7 ssh-ed25519 %s\n", ed.b64);
	spit(path, text);
	const char *users[] = {path};
	known_hosts *kh = known_hosts_load(users, 1, no_files, 0);
	assert_non_null(kh);
	assert_int_equal(known_hosts_check(kh, "node7", 22, fresh.data, fresh.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MISMATCH);
	/* the person removes the old key and adds the new one */
	fmt(text, sizeof text, "# reinstalled\nnode7 ssh-ed25519 %s\n", fresh.b64);
	spit(path, text);
	assert_int_equal(known_hosts_check(kh, "node7", 22, fresh.data, fresh.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.line, 2);
	char list[64];
	assert_int_equal(known_hosts_key_types(kh, "node7", 22, list, sizeof list), 1);
	assert_string_equal(list, "ssh-ed25519");
	/* and deletes the file */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(known_hosts_check(kh, "node7", 22, fresh.data, fresh.len,
		KNOWN_HOSTS_STRICT_YES, &v), KNOWN_HOSTS_NOT_FOUND);
	known_hosts_free(kh);
	tmp_remove(dir);
}

static void test_defaults_and_paths(void **state)
{
	(void)state;
	char dir[64], sshdir[128], path[160], text[512];
	pubkey ed;
	known_hosts_verdict v;
	load_pub("node7_ed25519", &ed);
	tmp_make(dir, sizeof dir);
	fmt(sshdir, sizeof sshdir, "%s/.ssh", dir);
	assert_int_equal(mkdir(sshdir, 0700), 0);
	fmt(path, sizeof path, "%s/known_hosts2", sshdir);
	fmt(text, sizeof text, "node7 ssh-ed25519 %s\n", ed.b64);
	spit(path, text);

	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	assert_int_equal(setenv("HOME", dir, 1), 0);
	known_hosts *kh = known_hosts_load(NULL, 0, no_files, 0);
	assert_non_null(kh);
	assert_int_equal(known_hosts_file_count(kh), 2);
	char want[160];
	fmt(want, sizeof want, "%s/.ssh/known_hosts", dir);
	assert_string_equal(known_hosts_file_path(kh, 0), want);
	assert_string_equal(known_hosts_file_path(kh, 1), path);
	assert_null(known_hosts_file_path(kh, 2));
	assert_int_equal(known_hosts_check(kh, "node7", 22, ed.data, ed.len, KNOWN_HOSTS_STRICT_YES,
		&v), KNOWN_HOSTS_MATCH);
	assert_int_equal(v.file, 1);
	known_hosts_free(kh);

	/* explicit list: "~/" expanded, "none" skipped, /dev/null is empty */
	const char *users[] = {"none", "~/.ssh/known_hosts2", "/dev/null"};
	kh = known_hosts_load(users, 3, NULL, 0);
	assert_non_null(kh);
	assert_int_equal(known_hosts_file_count(kh), 4);
	assert_string_equal(known_hosts_file_path(kh, 0), path);
	assert_string_equal(known_hosts_file_path(kh, 2), "/etc/ssh/ssh_known_hosts");
	assert_int_equal(known_hosts_check(kh, "node7", 22, ed.data, ed.len, KNOWN_HOSTS_STRICT_YES,
		&v), KNOWN_HOSTS_MATCH);
	assert_int_equal(known_hosts_check(kh, "node3", 22, ed.data, ed.len, KNOWN_HOSTS_STRICT_YES,
		&v), KNOWN_HOSTS_NOT_FOUND);
	known_hosts_free(kh);

	if (old_home) {
		setenv("HOME", old_home, 1);
		free(old_home);
	} else {
		unsetenv("HOME");
	}
	tmp_remove(dir);
}

static void test_session_and_names(void **state)
{
	(void)state;
	known_hosts_verdict v;
	known_hosts *kh = known_hosts_load(no_files, 0, no_files, 0);
	assert_non_null(kh);
	LIBSSH2_SESSION *s = libssh2_session_init();
	assert_non_null(s);
	/* no handshake, so no host key: refused, not crashed */
	assert_int_equal(known_hosts_check_session(kh, s, "node7", 22, KNOWN_HOSTS_STRICT_NO, &v),
		KNOWN_HOSTS_ERROR);
	assert_false(v.accept);
	libssh2_session_free(s);
	assert_int_equal(known_hosts_check(NULL, "node7", 22, NULL, 0, KNOWN_HOSTS_STRICT_NO, &v),
		KNOWN_HOSTS_ERROR);
	char list[8];
	assert_int_equal(known_hosts_key_types(NULL, "node7", 22, list, sizeof list), -1);
	known_hosts_free(kh);
	known_hosts_free(NULL);

	known_hosts_policy p = KNOWN_HOSTS_STRICT_NO;
	assert_int_equal(known_hosts_policy_parse("yes", &p), 0);
	assert_int_equal(p, KNOWN_HOSTS_STRICT_YES);
	assert_int_equal(known_hosts_policy_parse("accept-new", &p), 0);
	assert_int_equal(p, KNOWN_HOSTS_STRICT_ACCEPT_NEW);
	assert_int_equal(known_hosts_policy_parse("off", &p), 0);
	assert_int_equal(p, KNOWN_HOSTS_STRICT_NO);
	assert_int_equal(known_hosts_policy_parse("ask", &p), 0);
	assert_int_equal(p, KNOWN_HOSTS_STRICT_YES);
	assert_int_equal(known_hosts_policy_parse("maybe", &p), -1);
	assert_int_equal(known_hosts_policy_parse(NULL, &p), -1);
	assert_string_equal(known_hosts_result_name(KNOWN_HOSTS_MISMATCH), "mismatch");
	assert_string_equal(known_hosts_result_name(KNOWN_HOSTS_NOT_FOUND), "not-found");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_vectors),
		cmocka_unit_test(test_fingerprint_equals_ssh_keygen),
		cmocka_unit_test(test_match_plain_and_lists),
		cmocka_unit_test(test_port_entries),
		cmocka_unit_test(test_wildcards_and_negation),
		cmocka_unit_test(test_hashed_entries),
		cmocka_unit_test(test_mismatch_message),
		cmocka_unit_test(test_mismatch_from_files),
		cmocka_unit_test(test_not_found_policies),
		cmocka_unit_test(test_revoked),
		cmocka_unit_test(test_cert_authority_ignored),
		cmocka_unit_test(test_garbage_and_odd_bytes),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_key_types),
		cmocka_unit_test(test_key_types_for_libssh2),
		cmocka_unit_test(test_accept_new_writes_then_matches),
		cmocka_unit_test(test_accept_new_file_without_final_newline),
		cmocka_unit_test(test_accept_new_first_writable),
		cmocka_unit_test(test_policy_no_and_yes_do_not_write),
		cmocka_unit_test(test_unreadable_file_fails_closed),
		cmocka_unit_test(test_reread_after_change),
		cmocka_unit_test(test_defaults_and_paths),
		cmocka_unit_test(test_session_and_names),
	};
	/* known_hosts_load asks libssh2 what it supports: initialise it first,
	 * as synctop does. */
	if (libssh2_init(0) != 0) {
		return 1;
	}
	int failed = cmocka_run_group_tests_name("known_hosts", tests, NULL, NULL);
	libssh2_exit();
	return failed;
}
