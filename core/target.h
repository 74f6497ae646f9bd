/* target.h - inventory entries: "[user@]host[:port]", "[user@][v6addr]:port",
 * and lists of them read from a hosts file or a command-line host list.
 *
 * Accepted forms:
 *   host            gpu01, 10.0.0.1, node-1.example.org
 *   host:port       gpu01:2222
 *   user@host...    root@gpu01:22 (split at the last '@', as ssh does)
 *   [v6]  [v6]:port [fe80::1%eth0]:22
 *   v6              fe80::1  (two or more ':' without brackets: no port)
 * Host names may hold letters, digits, '.', '-' and '_' and may not start
 * with '-' (it would read as an option to anything that takes a host name). */
#ifndef SYNCTOP_TARGET_H
#define SYNCTOP_TARGET_H

#include <stddef.h>

#include "hostlist.h"

#define TARGET_USER_LEN 64
#define TARGET_HOST_LEN 256
/* Most targets one list may hold. */
#define TARGET_LIST_MAX HOSTLIST_MAX_HOSTS
/* Largest hosts file read, bytes: a 100000-node list with comments fits. */
#define TARGET_FILE_MAX (16u << 20)

typedef struct {
	char user[TARGET_USER_LEN]; /* "" = not given */
	char host[TARGET_HOST_LEN]; /* name or address; IPv6 without brackets */
	int port;                   /* 0 = not given, else 1..65535 */
} target;

/* Parse one entry (no host list syntax).  Returns 0, or -1 with err holding
 * "column N: what is wrong"; *out is only written on success. */
int target_parse(const char *text, target *out, char *err, size_t err_len);

/* A growing array of targets.  Owned by the caller: target_list_init() before
 * use, target_list_free() after. */
typedef struct {
	target *items;
	size_t count;
	size_t cap;
} target_list;

void target_list_init(target_list *list);
void target_list_free(target_list *list);

/* Append every target of one host list expression ("root@gpu[01-04]:22,
 * login1").  Returns 0, or -1 with err = "column N: ..." and the list as it
 * was before the call. */
int target_list_add_expr(target_list *list, const char *expr, char *err, size_t err_len);

/* Append the targets of a hosts file held in text[0, len): one host list
 * expression per line, '#' starts a comment, blank lines are ignored.
 * `name` is used in messages "name:line:column: ...".  Pure: no I/O.
 * Returns 0, or -1 with err set and the list as it was before the call. */
int target_list_parse(target_list *list, const char *text, size_t len, const char *name,
		      char *err, size_t err_len);

/* Read the hosts file at path and append its targets (target_list_parse). */
int target_list_read_file(target_list *list, const char *path, char *err, size_t err_len);

#endif
