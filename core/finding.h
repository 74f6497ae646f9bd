/* finding.h - one thing the health rules have to say about a node. */
#ifndef SYNCTOP_FINDING_H
#define SYNCTOP_FINDING_H

#include <stdbool.h>

typedef enum {
	SEVERITY_OK = 0,
	SEVERITY_WARN,
	SEVERITY_CRIT,
} severity;

/* "ok", "warn", "crit" */
const char *severity_name(severity sev);

#define FINDING_MESSAGE_LEN 192
#define FINDING_HINT_LEN 256
#define MAX_FINDINGS 16

typedef struct {
	severity sev;
	const char *code;               /* stable identifier, e.g. "chrony.offset" (static string) */
	char message[FINDING_MESSAGE_LEN]; /* what is wrong, with the numbers */
	char hint[FINDING_HINT_LEN];       /* what to run or change to fix it */
	/* Set by health.c after the rules ran (finding_wait.h): the observation
	 * time of the first poll of the unbroken run that saw this code, and
	 * whether the live view still waits before raising the node for it. */
	double since;
	bool pending;
} finding;

typedef struct {
	finding items[MAX_FINDINGS];
	/* After the items: in a node it shares a page with what follows
	 * (node.h), not one of its own, when there are no findings. */
	int count;
} finding_list;

#if defined(__GNUC__)
#define FINDING_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define FINDING_PRINTF(f, a)
#endif

/* Sets severity and code (a static string), empties message and hint;
 * not pending, no since. */
void finding_start(finding *f, severity sev, const char *code);
/* printf into the message / the hint, truncated to fit. */
FINDING_PRINTF(2, 3) void finding_message(finding *f, const char *fmt, ...);
FINDING_PRINTF(2, 3) void finding_hint(finding *f, const char *fmt, ...);

#endif
