/* fuzz_known_hosts.c - the pure host key checks: known_hosts_verify_text and
 * known_hosts_key_types_text over fuzzed known_hosts files, host and key.
 *
 * Input: byte 0 picks the policy (bits 0-1; 3 is not a policy) and the port
 * (bits 2-4, from ports[] below), then host FUZZ_SEP key blob FUZZ_SEP
 * file 1 FUZZ_SEP ... file 4.
 *
 * Beyond not crashing:
 *   - the verdict is one of the five results, returned and stored alike,
 *     with a printable one-line message; accept follows the policy exactly
 *     as known_hosts.h says (MISMATCH, REVOKED and ERROR never connect);
 *   - the deciding entry is a real line of a given file, and MATCH,
 *     MISMATCH and REVOKED always name one;
 *   - for any verdict but ERROR the fingerprint is known_hosts_fingerprint
 *     of the blob and key_type is the type name the blob carries;
 *   - the policy changes only accept and the message, never the lookup;
 *   - the method list has no duplicates and only key type characters, its
 *     count is its length, a MATCH's key type is in it, the "supported"
 *     restriction keeps a subsequence, and a list that does not fit is -1
 *     with "". */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "known_hosts.h"

#define MAX_FILES 4

static const int ports[8] = {22, 2201, 2222, 22, 0, -1, 65535, 65536};

/* Names in a comma-separated list; -1 when one is empty or repeated or holds
 * a character no key type has. */
static int list_names(const char *list)
{
	if (list[0] == '\0') {
		return 0;
	}
	int n = 0;
	const char *p = list;
	for (;;) {
		size_t len = strcspn(p, ",");
		if (len == 0 || strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					     "0123456789-@._") < len) {
			return -1;
		}
		for (const char *q = list; q < p;) {
			size_t qlen = strcspn(q, ",");
			if (qlen == len && memcmp(q, p, len) == 0) {
				return -1;
			}
			q += qlen + 1;
		}
		n++;
		if (p[len] == '\0') {
			return n;
		}
		p += len + 1;
	}
}

static bool list_has(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && memcmp(p, name, n) == 0) {
			return true;
		}
		p += len;
		if (*p == ',') {
			p++;
		}
	}
	return false;
}

/* Every name of sub appears in full, in the same order. */
static bool subsequence(const char *sub, const char *full)
{
	const char *f = full;
	for (const char *p = sub; *p;) {
		size_t len = strcspn(p, ",");
		bool found = false;
		while (*f) {
			size_t flen = strcspn(f, ",");
			bool same = flen == len && memcmp(f, p, len) == 0;
			f += flen;
			if (*f == ',') {
				f++;
			}
			if (same) {
				found = true;
				break;
			}
		}
		if (!found) {
			return false;
		}
		p += len;
		if (*p == ',') {
			p++;
		}
	}
	return true;
}

static size_t lines_in(const known_hosts_file *f)
{
	size_t n = 1;
	for (size_t i = 0; i < f->len; i++) {
		n += f->text[i] == '\n';
	}
	return n;
}

static void check_verdict(const known_hosts_verdict *v, known_hosts_result rc,
			  known_hosts_policy policy, const known_hosts_file *files, size_t nfiles,
			  const unsigned char *blob, size_t blob_len)
{
	FUZZ_CHECK(rc == v->result);
	FUZZ_CHECK(rc >= KNOWN_HOSTS_MATCH && rc <= KNOWN_HOSTS_ERROR);
	FUZZ_CHECK(strcmp(known_hosts_result_name(rc), "?") != 0);
	FUZZ_CHECK(v->message[0] != '\0' && fuzz_printable(v->message, sizeof v->message));
	FUZZ_CHECK(fuzz_printable(v->key_type, sizeof v->key_type));
	FUZZ_CHECK(fuzz_printable(v->fingerprint, sizeof v->fingerprint));
	FUZZ_CHECK(!v->added);

	bool lenient = policy == KNOWN_HOSTS_STRICT_ACCEPT_NEW || policy == KNOWN_HOSTS_STRICT_NO;
	FUZZ_CHECK(v->accept == (rc == KNOWN_HOSTS_MATCH || (rc == KNOWN_HOSTS_NOT_FOUND && lenient)));

	if (v->file == KNOWN_HOSTS_NO_FILE) {
		FUZZ_CHECK(rc == KNOWN_HOSTS_NOT_FOUND || rc == KNOWN_HOSTS_ERROR);
	} else {
		FUZZ_CHECK(rc != KNOWN_HOSTS_ERROR);
		FUZZ_CHECK(v->file < nfiles);
		FUZZ_CHECK(v->line >= 1 && v->line <= lines_in(&files[v->file]));
	}
	if (rc != KNOWN_HOSTS_ERROR) {
		char fp[KNOWN_HOSTS_FINGERPRINT_SIZE];
		FUZZ_CHECK(known_hosts_fingerprint(blob, blob_len, fp, sizeof fp) == 0);
		FUZZ_CHECK(strcmp(fp, v->fingerprint) == 0);
		FUZZ_CHECK(strncmp(fp, "SHA256:", 7) == 0 && strlen(fp) == 7 + 43);
		/* the blob starts with its type name as an SSH string */
		size_t tlen = strlen(v->key_type);
		FUZZ_CHECK(tlen > 0 && blob_len >= 4 + tlen);
		FUZZ_CHECK(((size_t)blob[0] << 24 | (size_t)blob[1] << 16 | (size_t)blob[2] << 8 |
			    blob[3]) == tlen);
		FUZZ_CHECK(memcmp(blob + 4, v->key_type, tlen) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0) {
		return 0;
	}
	known_hosts_policy policy = (known_hosts_policy)(data[0] & 3);
	int port = ports[(data[0] >> 2) & 7];
	fuzz_parts parts;
	fuzz_split(data + 1, size - 1, 2 + MAX_FILES, &parts);
	const fuzz_part *hp = fuzz_part_at(&parts, 0);
	char *host = fuzz_strndup(hp->p, hp->len);
	const fuzz_part *bp = fuzz_part_at(&parts, 1);
	const unsigned char *blob = (const unsigned char *)bp->p;
	size_t blob_len = bp->len;

	static const char *const paths[MAX_FILES] = {"user_known_hosts", "user_known_hosts2",
						     "global_known_hosts", "global_known_hosts2"};
	known_hosts_file files[MAX_FILES];
	size_t nfiles = 0;
	for (int i = 2; i < parts.n && nfiles < MAX_FILES; i++) {
		files[nfiles].path = paths[nfiles];
		files[nfiles].text = parts.part[i].p;
		files[nfiles].len = parts.part[i].len;
		nfiles++;
	}

	static known_hosts_verdict v, w;
	known_hosts_result rc = known_hosts_verify_text(files, nfiles, host, port, blob, blob_len,
							policy, &v);
	check_verdict(&v, rc, policy, files, nfiles, blob, blob_len);

	if (policy != 3 && rc != KNOWN_HOSTS_ERROR) {
		/* another policy: the same entry decides */
		known_hosts_policy other = (known_hosts_policy)((policy + 1) % 3);
		known_hosts_result rc2 = known_hosts_verify_text(files, nfiles, host, port, blob,
								 blob_len, other, &w);
		check_verdict(&w, rc2, other, files, nfiles, blob, blob_len);
		FUZZ_CHECK(rc2 == rc && w.file == v.file && w.line == v.line &&
			   strcmp(w.key_type, v.key_type) == 0);
	}

	static char list[65536], small[40], some[65536];
	int n = known_hosts_key_types_text(files, nfiles, host, port, NULL, 0, list, sizeof list);
	FUZZ_CHECK(fuzz_terminated(list, sizeof list));
	if (n < 0) {
		FUZZ_CHECK(n == -1 && list[0] == '\0');
	} else {
		FUZZ_CHECK(list_names(list) == n);
		if (rc == KNOWN_HOSTS_MATCH) {
			FUZZ_CHECK(list_has(list, v.key_type));
		}
		static const char *const supported[] = {"ssh-ed25519", "rsa-sha2-256",
							"ecdsa-sha2-nistp256"};
		int m = known_hosts_key_types_text(files, nfiles, host, port, supported, 3, some,
						   sizeof some);
		FUZZ_CHECK(m >= 0 && m <= n && list_names(some) == m && subsequence(some, list));
		for (const char *p = some; *p;) {
			size_t len = strcspn(p, ",");
			bool ok = false;
			for (size_t i = 0; i < 3; i++) {
				ok = ok || (strlen(supported[i]) == len && memcmp(supported[i], p, len) == 0);
			}
			FUZZ_CHECK(ok);
			p += len;
			if (*p == ',') {
				p++;
			}
		}
		int k = known_hosts_key_types_text(files, nfiles, host, port, NULL, 0, small,
						   sizeof small);
		if (strlen(list) < sizeof small) {
			FUZZ_CHECK(k == n && strcmp(small, list) == 0);
		} else {
			FUZZ_CHECK(k == -1 && small[0] == '\0');
		}
	}
	free(host);
	fuzz_parts_free(&parts);
	return 0;
}
