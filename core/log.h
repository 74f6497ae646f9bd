/* log.h - the optional debug log (--log FILE).
 *
 * One line per event, with a UTC timestamp.  When no log is open every call
 * returns at once: not having a log costs a branch.  Never pass anything
 * secret; remote text must be sanitised by the caller. */
#ifndef SYNCTOP_LOG_H
#define SYNCTOP_LOG_H

#include <stdbool.h>

/* Returns 0, or -1 with errno set. */
int log_open(const char *path);
void log_close(void);
bool log_enabled(void);

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void log_printf(const char *fmt, ...);

#endif
