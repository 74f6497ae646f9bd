/* exit_codes.h - every exit status synctop has, by name, in one place.
 *
 * docs/synctop.1 (EXIT STATUS) lists the same table for people, and
 * tests/integration/cli.sh pins the numbers: scripts, cron jobs and Nagios
 * read them, so a value here never changes.
 *
 *   0    success (EXIT_SUCCESS)
 *   0-3  --check: REPORT_CHECK_OK, _WARN, _CRIT, _UNKNOWN (report_check.h,
 *        the Nagios plugin convention), what report_check_write() returns
 *   64   EX_USAGE: a bad option, host list, hosts file, ssh or --config file,
 *        or a --log file that cannot be opened; before anything connects
 *   69   EX_UNAVAILABLE: --from-prometheus --once: no server answered any
 *        query (--check says 3 instead)
 *   70   EX_SOFTWARE: the SSH library, a thread or the engine cannot start,
 *        or memory ran out (xalloc.c)
 *   74   EX_IOERR: the --json document cannot be written
 *   130  SIGINT, SIGTERM or SIGHUP ended the live view (the shell's 128 +
 *        SIGINT; tui_run() returns the same number, tui.h)
 *   141  the reader of --json went away (the shell's 128 + SIGPIPE) */
#ifndef SYNCTOP_EXIT_CODES_H
#define SYNCTOP_EXIT_CODES_H

#include <sysexits.h>

/* the --check statuses (0-3) */
#include "report_check.h"

enum {
	SYNCTOP_EXIT_INTERRUPTED = 130,
	SYNCTOP_EXIT_BROKEN_PIPE = 141,
};

#endif
