/* fuzz_target.c - inventory parsing: target_list_parse over a fuzzed hosts
 * file, target_list_add_expr and target_parse over its first line.
 *
 * Beyond not crashing, the promises of target.h:
 *   - a refused list leaves the list as it was (a target added before the
 *     call survives, the count is back), with a message that starts with
 *     "name:line:column: " and holds no control character;
 *   - every target accepted has a valid user, a host name of the allowed
 *     characters not starting with '-' or a real IPv6 address, a port of
 *     0 or 1..65535;
 *   - every target accepted reads back the same when written out again as
 *     "[user@]host[:port]" (brackets around IPv6);
 *   - target_parse writes *out only on success. */
#include <config.h>

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "target.h"

#define HOST_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"
#define USER_CHARS HOST_CHARS "@$"

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

static bool v6_ok(const char *host)
{
	char addr[INET6_ADDRSTRLEN + 1];
	unsigned char bin[16];
	const char *pct = strchr(host, '%');
	size_t alen = pct ? (size_t)(pct - host) : strlen(host);
	if (alen == 0 || alen >= sizeof addr) {
		return false;
	}
	memcpy(addr, host, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET6, addr, bin) != 1) {
		return false;
	}
	return pct == NULL || (pct[1] != '\0' && strspn(pct + 1, HOST_CHARS) == strlen(pct + 1));
}

static void check_target(const target *t)
{
	FUZZ_CHECK(fuzz_terminated(t->user, sizeof t->user));
	FUZZ_CHECK(fuzz_terminated(t->host, sizeof t->host));
	FUZZ_CHECK(strspn(t->user, USER_CHARS) == strlen(t->user) && t->user[0] != '-');
	FUZZ_CHECK(t->host[0] != '\0');
	if (strchr(t->host, ':') != NULL) {
		FUZZ_CHECK(v6_ok(t->host));
	} else {
		FUZZ_CHECK(strspn(t->host, HOST_CHARS) == strlen(t->host) && t->host[0] != '-');
	}
	FUZZ_CHECK(t->port >= 0 && t->port <= 65535);

	/* written out again, it reads back the same */
	char text[TARGET_USER_LEN + TARGET_HOST_LEN + 24], port[16] = "";
	bool v6 = strchr(t->host, ':') != NULL;
	if (t->port > 0) {
		snprintf(port, sizeof port, ":%d", t->port);
	}
	snprintf(text, sizeof text, "%s%s%s%s%s%s", t->user, t->user[0] ? "@" : "", v6 ? "[" : "",
		 t->host, v6 ? "]" : "", port);
	target back;
	char err[512];
	FUZZ_CHECK(target_parse(text, &back, err, sizeof err) == 0);
	FUZZ_CHECK(strcmp(back.user, t->user) == 0 && strcmp(back.host, t->host) == 0 &&
		   back.port == t->port);
}

static void check_list(const target_list *l, const target *first)
{
	FUZZ_CHECK(l->count >= 1 && l->count <= l->cap && l->count <= TARGET_LIST_MAX + 1);
	FUZZ_CHECK(memcmp(&l->items[0], first, sizeof *first) == 0);
	for (size_t i = 1; i < l->count; i++) {
		check_target(&l->items[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_parts whole;
	fuzz_split(data, size, 1, &whole); /* an exact-size copy */
	const char *text = whole.part[0].p;
	size_t len = whole.part[0].len;
	char err[1024];
	target first;
	target_list list;

	FUZZ_CHECK(target_parse("keep@sentinel:7", &first, err, sizeof err) == 0);

	/* the whole input as a hosts file */
	target_list_init(&list);
	FUZZ_CHECK(target_list_add_expr(&list, "keep@sentinel:7", err, sizeof err) == 0);
	memset(err, 0, sizeof err);
	int rc = target_list_parse(&list, text, len, "hosts", err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK(rc == -1 && list.count == 1);
		FUZZ_CHECK(strncmp(err, "hosts:", 6) == 0 && no_controls(err));
		unsigned long line = 0, col = 0;
		FUZZ_CHECK(sscanf(err, "hosts:%lu:%lu: ", &line, &col) == 2 && line >= 1 && col >= 1);
	}
	check_list(&list, &first);
	target_list_free(&list);

	/* the first line as one expression and as one entry */
	const char *nl = memchr(text, '\n', len);
	char *line = fuzz_strndup(text, nl ? (size_t)(nl - text) : len);
	target_list_init(&list);
	FUZZ_CHECK(target_list_add_expr(&list, "keep@sentinel:7", err, sizeof err) == 0);
	memset(err, 0, sizeof err);
	rc = target_list_add_expr(&list, line, err, sizeof err);
	if (rc != 0) {
		FUZZ_CHECK(rc == -1 && list.count == 1);
		FUZZ_CHECK(strncmp(err, "column ", 7) == 0 && no_controls(err));
	}
	check_list(&list, &first);
	target_list_free(&list);

	target one;
	memset(&one, 0x5a, sizeof one);
	target untouched = one;
	memset(err, 0, sizeof err);
	rc = target_parse(line, &one, err, sizeof err);
	if (rc == 0) {
		check_target(&one);
	} else {
		FUZZ_CHECK(rc == -1 && memcmp(&one, &untouched, sizeof one) == 0);
		FUZZ_CHECK(strncmp(err, "column ", 7) == 0 && no_controls(err));
	}
	free(line);
	fuzz_parts_free(&whole);
	return 0;
}
