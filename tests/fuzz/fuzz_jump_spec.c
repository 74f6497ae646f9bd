/* fuzz_jump_spec.c - ProxyJump / -J values (ssh_jump_spec.h) over a fuzzed
 * first line.
 *
 * Beyond not crashing, the promises of ssh_jump_spec.h:
 *   - a refused value leaves *out empty (no hops, not none) and says why in
 *     a message without control characters;
 *   - an accepted value is "none" with no hops, or 1..SSH_JUMP_MAX_HOPS hops,
 *     each with a non-empty host that has no blank, quote or shell
 *     metacharacter and does not start with '-', a user without blanks or
 *     control characters, a port of 0 or 1..65535;
 *   - every hop reads back the same when written out again with
 *     ssh_jump_hop_format() (unless its user holds a ',' or '#', which a
 *     list cannot carry). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "ssh_jump_spec.h"

static bool no_controls(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f) {
			return false;
		}
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_parts whole;
	fuzz_split(data, size, 1, &whole);
	const char *text = whole.part[0].p;
	size_t len = whole.part[0].len;
	const char *nl = memchr(text, '\n', len);
	char *line = fuzz_strndup(text, nl ? (size_t)(nl - text) : len);

	ssh_jump_spec spec;
	char err[512];
	memset(err, 0, sizeof err);
	int rc = ssh_jump_spec_parse(line, &spec, err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK(rc == -1 && spec.count == 0 && !spec.none);
		FUZZ_CHECK(err[0] != '\0' && fuzz_terminated(err, sizeof err));
	} else if (spec.none) {
		FUZZ_CHECK(spec.count == 0);
	} else {
		FUZZ_CHECK(spec.count >= 1 && spec.count <= SSH_JUMP_MAX_HOPS);
		for (int i = 0; i < spec.count; i++) {
			const ssh_jump_hop *h = &spec.hop[i];
			FUZZ_CHECK(fuzz_terminated(h->host, sizeof h->host) && fuzz_terminated(h->user, sizeof h->user));
			FUZZ_CHECK(h->host[0] != '\0' && h->host[0] != '-' && no_controls(h->host));
			FUZZ_CHECK(no_controls(h->user) && !strpbrk(h->user, " \t"));
			FUZZ_CHECK(strpbrk(h->host, " \t'\"`$\\;&<>|(){}") == NULL);
			FUZZ_CHECK(h->port >= 0 && h->port <= 65535);
			if (strpbrk(h->user, ",#") || strpbrk(h->host, ",#/[]") || strchr(h->host, '@')) {
				continue;
			}
			char back_text[SSH_JUMP_USER_LEN + SSH_JUMP_HOST_LEN + 16];
			ssh_jump_hop_format(h, back_text, sizeof back_text);
			ssh_jump_spec back;
			if (strcasecmp(back_text, "none") == 0) {
				continue; /* a host called none cannot be written as one */
			}
			FUZZ_CHECK(ssh_jump_spec_parse(back_text, &back, err, sizeof err) == 0);
			FUZZ_CHECK(back.count == 1 && strcmp(back.hop[0].host, h->host) == 0 &&
				   strcmp(back.hop[0].user, h->user) == 0 && back.hop[0].port == h->port);
		}
	}
	free(line);
	fuzz_parts_free(&whole);
	return 0;
}
